package io.argus.pipeline.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.cpu.CpuOptions;
import io.argus.detector.cpu.CpuPrecision;
import io.argus.detector.cpu.WinogradPolicy;
import io.argus.pipeline.testing.TestConfig;
import io.argus.testkit.Budget;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code models[].cpu}: precision, tuning and its cache read into {@link CpuOptions}, and what the detector opens with. */
@Budget(seconds = 5)
class CpuConfigTest {
    @TempDir
    Path tmp;

    ArgusConfig read(Consumer<JsonObject> edit, Map<String, String> env) throws Exception {
        return TestConfig.read(tmp, edit, env);
    }

    static JsonObject model(JsonObject json) { return json.getJsonArray("models").getJsonObject(0); }

    @Test
    void defaultsThenSettingsThenEnvironment() throws Exception {
        ArgusConfig defaults = read(j -> model(j).remove("cpu"), Map.of());
        CpuOptions d = defaults.models().get(0).cpu();
        assertEquals(CpuPrecision.FP32, d.precision());
        assertTrue(d.tune());
        assertEquals(defaults.cacheDir().resolve("cpu-tuning"), d.tuningDir());

        ModelConfig m = read(j -> model(j).put("cpu", new JsonObject().put("precision", "BF16").put("tune", false)
                .put("tuningCache", "tuning")), Map.of()).models().get(0);
        assertEquals(new CpuOptions(CpuPrecision.BF16, false, tmp.resolve("tuning")), m.cpu());
        assertEquals(m.cpu(), m.detectorOptions().cpu(), "what InferenceWorker and a hot swap open the detector with");

        java.nio.file.Files.createDirectories(tmp.resolve("frames"));
        ModelConfig q = read(j -> model(j).put("cpu", new JsonObject().put("precision", "int8").put("calibration", "frames")),
                Map.of()).models().get(0);
        assertEquals(new CpuOptions(CpuPrecision.INT8, true, q.cpu().tuningDir(), tmp.resolve("frames")), q.cpu());

        CpuOptions env = read(j -> {}, Map.of("ARGUS_MODELS_0_CPU_PRECISION", "bf16", "ARGUS_MODELS_0_CPU_TUNING_CACHE", "off"))
                .models().get(0).cpu();
        assertEquals(CpuPrecision.BF16, env.precision());
        assertEquals(null, env.tuningDir());
    }

    @Test
    void badValuesNameTheKey() {
        ConfigException int8 = assertThrows(ConfigException.class,
                () -> read(j -> model(j).put("cpu", new JsonObject().put("precision", "int8")), Map.of()));
        assertEquals("models[0].cpu.calibration", int8.key());
        assertTrue(int8.getMessage().contains("precision int8 needs sample frames"), int8.getMessage());
        ConfigException missing = assertThrows(ConfigException.class, () -> read(j -> model(j).put("cpu",
                new JsonObject().put("precision", "int8").put("calibration", "frames")), Map.of()));
        assertEquals("models[0].cpu.calibration: no such folder or list file " + tmp.resolve("frames"), missing.getMessage());
        ConfigException fp16 = assertThrows(ConfigException.class,
                () -> read(j -> model(j).put("cpu", new JsonObject().put("precision", "fp16")), Map.of()));
        assertEquals("models[0].cpu.precision: expected fp32, bf16 or int8, found \"fp16\"", fp16.getMessage());
        ConfigException typo = assertThrows(ConfigException.class,
                () -> read(j -> model(j).put("cpu", new JsonObject().put("precission", "bf16")), Map.of()));
        assertEquals("models[0].cpu.precission", typo.key());
    }

    @Test
    void winogradAutoOffOrForced() throws Exception {
        assertEquals(WinogradPolicy.AUTO, read(j -> {}, Map.of()).models().get(0).cpu().winograd());
        assertEquals(WinogradPolicy.F2X2, read(j -> model(j).put("cpu", new JsonObject().put("winograd", "f2x2")),
                Map.of()).models().get(0).cpu().winograd());
        // a bare `off` in YAML arrives as false
        assertEquals(WinogradPolicy.OFF, read(j -> model(j).put("cpu", new JsonObject().put("winograd", false)),
                Map.of()).models().get(0).cpu().winograd());
        assertEquals(WinogradPolicy.F4X4, read(j -> {}, Map.of("ARGUS_MODELS_0_CPU_WINOGRAD", "f4x4")).models().get(0)
                .cpu().winograd());
        ConfigException bad = assertThrows(ConfigException.class,
                () -> read(j -> model(j).put("cpu", new JsonObject().put("winograd", "f6x6")), Map.of()));
        assertEquals("models[0].cpu.winograd: expected auto, off, f2x2 or f4x4, found \"f6x6\"", bad.getMessage());
        ConfigException bf16 = assertThrows(ConfigException.class, () -> read(j -> model(j).put("cpu",
                new JsonObject().put("precision", "bf16").put("winograd", "f2x2")), Map.of()));
        assertEquals("models[0].cpu.winograd: f2x2 is FP32 only; precision is bf16 (use auto or off)", bf16.getMessage());
    }
}
