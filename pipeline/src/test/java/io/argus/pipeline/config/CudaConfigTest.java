package io.argus.pipeline.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.backends.Detector;
import io.argus.detector.cuda.CudaOptions;
import io.argus.gpu.MemoryMode;
import io.argus.pipeline.testing.TestConfig;
import io.argus.testkit.Budget;
import io.argus.trainer.backends.TrainingBackends;
import io.argus.trainer.cuda.CudaTrainingOptions;
import io.argus.trainer.cuda.Precision;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code cuda:} sections: {@code models[].cuda} and {@code training.cuda} read into the engine's option records
 * (defaults, ranges, environment overrides, unknown keys named), and a model's options are what its detector is
 * opened with, so two models can name two GPUs.
 */
@Budget(seconds = 5)
class CudaConfigTest {
    @TempDir
    Path tmp;

    ArgusConfig read(Consumer<JsonObject> edit, Map<String, String> env) throws Exception {
        return TestConfig.read(tmp, edit, env);
    }

    static JsonObject model(JsonObject json, int i) { return json.getJsonArray("models").getJsonObject(i); }

    ConfigException error(Consumer<JsonObject> edit) {
        return assertThrows(ConfigException.class, () -> read(edit, Map.of()));
    }

    @Test
    void withoutASectionTheDefaults() throws Exception {
        ArgusConfig c = read(j -> {}, Map.of());
        CudaOptions d = CudaOptions.defaults();
        Path plans = c.cacheDir().resolve("plans"); // under cacheDir, as every cache
        assertEquals(new CudaOptions(d.device(), d.memory(), d.fusion(), d.graphs(), d.inPlace(), d.autotune(), plans),
                c.models().get(0).cuda());
        CudaTrainingOptions t = c.training().cuda();
        CudaTrainingOptions td = CudaTrainingOptions.defaults(Precision.MIXED);
        assertEquals(new CudaTrainingOptions(td.device(), td.precision(), td.strictFp32(), td.autotune(),
                td.workspaceLimit(), td.overwriteGradients(), plans), t);
        assertEquals(2048L << 20, t.workspaceLimit());
        assertEquals(TrainingBackends.Kind.AUTO, c.training().backend());
    }

    @Test
    void twoModelsOnTwoDevicesInTheirOwnMemoryModes() throws Exception {
        ArgusConfig c = read(j -> {
            JsonObject second = model(j, 0).copy().put("id", "second");
            model(j, 0).put("backend", "cuda").put("cuda", new JsonObject().put("device", 0).put("memory", "unified"));
            second.put("backend", "cuda").put("cuda", new JsonObject().put("device", 1).put("memory", "device")
                    .put("graphs", false).put("autotune", 2));
            j.getJsonArray("models").add(second);
        }, Map.of());
        ModelConfig a = c.models().get(0), b = c.models().get(1);
        assertEquals(new CudaOptions(0, MemoryMode.UNIFIED, CudaOptions.Fusion.ALL, true, true, 4,
                c.cacheDir().resolve("plans")), a.cuda());
        assertEquals(new CudaOptions(1, MemoryMode.DEVICE, CudaOptions.Fusion.ALL, false, true, 2,
                c.cacheDir().resolve("plans")), b.cuda());
        // what InferenceWorker and a hot swap open the detector with
        Detector.Options opened = b.detectorOptions();
        assertEquals(Detector.Backend.CUDA, opened.backend());
        assertEquals(b.cuda(), opened.cuda());
        assertEquals(b.maxBatch(), opened.maxBatch());
        assertEquals(b.threshold(), opened.params().threshold());
    }

    @Test
    void oneModelOnSeveralGpus() throws Exception {
        ModelConfig listed = read(j -> model(j, 0).put("cuda", new JsonObject().put("devices", new JsonArray().add(1)
                .add(0))), Map.of()).models().get(0);
        assertEquals(CudaDevices.of(1, 0), listed.cudaDevices());
        assertEquals(1, listed.cuda().device(), "the options' device is the first listed");
        assertTrue(listed.cudaDevices().several());
        ModelConfig all = read(j -> model(j, 0).put("cuda", new JsonObject().put("devices", "all")), Map.of())
                .models().get(0);
        assertEquals(CudaDevices.ALL, all.cudaDevices());
        assertEquals(0, all.cuda().device());
        assertTrue(all.cudaDevices().several());
        org.junit.jupiter.api.Assertions.assertArrayEquals(new int[] {0, 1, 2}, all.cudaDevices().resolve(3));
        ModelConfig one = read(j -> model(j, 0).put("cuda", new JsonObject().put("device", 2)), Map.of()).models().get(0);
        assertEquals(CudaDevices.of(2), one.cudaDevices(), "device: N keeps working");
        assertEquals(false, one.cudaDevices().several());
        ModelConfig none = read(j -> {}, Map.of()).models().get(0);
        assertEquals(CudaDevices.of(0), none.cudaDevices());
        ArgusConfig env = read(j -> {}, Map.of("ARGUS_MODELS_0_CUDA_DEVICES", "2, 3"));
        assertEquals(CudaDevices.of(2, 3), env.models().get(0).cudaDevices());
        assertTrue(env.unusedEnv().isEmpty(), env.unusedEnv().toString());
        assertEquals(CudaDevices.ALL, read(j -> {}, Map.of("ARGUS_MODELS_0_CUDA_DEVICES", "ALL")).models().get(0)
                .cudaDevices());
    }

    @Test
    void badDevicesNameTheKeyWhatWasExpectedAndWhatWasFound() {
        assertEquals("models[0].cuda.devices: give device (one GPU) or devices (several), not both; found device 1 and "
                + "devices [0, 1]", error(j -> model(j, 0).put("cuda", new JsonObject().put("device", 1)
                .put("devices", new JsonArray().add(0).add(1)))).getMessage());
        assertEquals("models[0].cuda.devices: device 0 listed twice in [0, 0]", error(j -> model(j, 0).put("cuda",
                new JsonObject().put("devices", new JsonArray().add(0).add(0)))).getMessage());
        assertEquals("models[0].cuda.devices[1]: expected a device index in 0..63, found \"gpu1\"", error(j -> model(j, 0)
                .put("cuda", new JsonObject().put("devices", new JsonArray().add(0).add("gpu1")))).getMessage());
        assertEquals("models[0].cuda.devices[0]: expected a device index in 0..63 or all, found \"64\"",
                error(j -> model(j, 0).put("cuda", new JsonObject().put("devices", 64))).getMessage());
        assertEquals("models[0].cuda.devices: expected device indexes in 0..63 or all, found an empty list",
                error(j -> model(j, 0).put("cuda", new JsonObject().put("devices", new JsonArray()))).getMessage());
        assertEquals("models[0].cuda.devices: expected a list (- items) or a value, found a section",
                error(j -> model(j, 0).put("cuda", new JsonObject().put("devices", new JsonObject().put("a", 1))))
                        .getMessage());
    }

    @Test
    void aConfigFileWithBadDevicesNamesTheFile() throws Exception {
        Path file = tmp.resolve("gpus.yaml");
        JsonObject json = TestConfig.base();
        model(json, 0).put("cuda", new JsonObject().put("devices", new JsonArray().add(0).add(-1)));
        java.nio.file.Files.writeString(file, json.encodePrettily());   // JSON is YAML
        Exception e = assertThrows(Exception.class, () -> ConfigLoader.loadBlocking(file, Map.of(), 20));
        assertEquals(file + ": models[0].cuda.devices[1]: expected a device index in 0..63, found \"-1\"",
                e.getMessage());
    }

    @Test
    void trainingSectionSetsDevicePrecisionAndWorkspace() throws Exception {
        ArgusConfig c = read(j -> j.put("training", new JsonObject().put("backend", "cuda").put("cuda", new JsonObject()
                .put("device", 1).put("precision", "tf32").put("workspaceMiB", 512).put("autotune", false)
                .put("planCache", "off"))), Map.of());
        CudaTrainingOptions t = c.training().cuda();
        assertEquals(1, t.device());
        assertEquals(Precision.FP32, t.precision());
        assertEquals("tf32", t.modeName());
        assertEquals(null, t.planCache());
        assertEquals(512L << 20, t.workspaceLimit());
        assertEquals(false, t.autotune());
        assertEquals(TrainingBackends.Kind.CUDA, c.training().backend());
        assertEquals("fp32", read(j -> j.put("training", new JsonObject().put("cuda",
                new JsonObject().put("precision", "FP32"))), Map.of()).training().cuda().modeName());
    }

    @Test
    void environmentOverridesTheCudaKeys() throws Exception {
        ArgusConfig c = read(j -> j.getJsonArray("models").add(model(j, 0).copy().put("id", "second")), Map.of(
                "ARGUS_MODELS_0_CUDA_DEVICE", "1",
                "ARGUS_MODELS_1_CUDA_DEVICE", "2",
                "ARGUS_MODELS_1_CUDA_MEMORY", "unified",
                "ARGUS_TRAINING_CUDA_DEVICE", "3",
                "ARGUS_TRAINING_CUDA_PRECISION", "fp32",
                "ARGUS_TRAINING_CUDA_WORKSPACE_MI_B", "256"));
        assertEquals(1, c.models().get(0).cuda().device());
        assertEquals(2, c.models().get(1).cuda().device());
        assertEquals(MemoryMode.UNIFIED, c.models().get(1).cuda().memory());
        assertEquals(3, c.training().cuda().device());
        assertEquals("fp32", c.training().cuda().modeName());
        assertEquals(256L << 20, c.training().cuda().workspaceLimit());
        assertTrue(c.unusedEnv().isEmpty(), c.unusedEnv().toString());
        assertEquals("ARGUS_TRAINING_CUDA_WORKSPACE_MI_B", ConfigNode.envName("training.cuda.workspaceMiB"));
    }

    @Test
    void badValuesAndUnknownKeysNameTheKey() {
        ConfigException device = error(j -> model(j, 0).put("cuda", new JsonObject().put("device", -1)));
        assertEquals("models[0].cuda.device", device.key());
        assertTrue(device.getMessage().contains("expected an integer in 0..63, found -1"), device.getMessage());
        ConfigException memory = error(j -> model(j, 0).put("cuda", new JsonObject().put("memory", "shared")));
        assertEquals("models[0].cuda.memory: expected one of auto, device, unified, found \"shared\"", memory.getMessage());
        assertEquals("models[0].cuda.autotune", error(j -> model(j, 0).put("cuda", new JsonObject().put("autotune", 0))).key());
        ConfigException typo = error(j -> model(j, 0).put("cuda", new JsonObject().put("devcie", 1)));
        assertEquals("models[0].cuda.devcie", typo.key());
        assertTrue(typo.getMessage().contains("unknown key"), typo.getMessage());
        ConfigException workspace = error(j -> model(j, 0).put("cuda", new JsonObject().put("workspaceMiB", 64)));
        assertEquals("models[0].cuda.workspaceMiB", workspace.key(), "inference has no workspace limit to configure");
        assertEquals("models[0].cuda", error(j -> model(j, 0).put("cuda", new JsonArray())).key());

        ConfigException precision = error(j -> j.put("training", new JsonObject().put("cuda",
                new JsonObject().put("precision", "fp16"))));
        assertEquals("training.cuda.precision: expected one of mixed, fp32, tf32, found \"fp16\"", precision.getMessage());
        assertEquals("training.cuda.workspaceMiB", error(j -> j.put("training", new JsonObject().put("cuda",
                new JsonObject().put("workspaceMiB", -1)))).key());
        assertEquals("training.cuda.stream", error(j -> j.put("training", new JsonObject().put("cuda",
                new JsonObject().put("stream", "low")))).key());
        assertEquals("training.backend", error(j -> j.put("training", new JsonObject().put("backend", "tpu"))).key());
    }

    @Test
    void fp8PrecisionComesWithCalibrationFramesThatExist() throws Exception {
        Path frames = java.nio.file.Files.createDirectories(tmp.resolve("frames"));
        ModelConfig fp8 = read(j -> model(j, 0).put("cuda", new JsonObject().put("precision", "FP8")
                .put("calibration", frames.toString())), Map.of()).models().get(0);
        assertEquals(io.argus.detector.cuda.CudaPrecision.FP8, fp8.cuda().precision());
        assertEquals(frames, fp8.cuda().calibration());
        assertEquals(io.argus.detector.cuda.CudaPrecision.AUTO, read(j -> model(j, 0).put("cuda", new JsonObject()
                .put("calibration", frames.toString())), Map.of("ARGUS_MODELS_0_CUDA_PRECISION", "auto")).models().get(0)
                .cuda().precision());
        assertEquals(io.argus.detector.cuda.CudaPrecision.FP16, read(j -> {}, Map.of()).models().get(0).cuda()
                .precision(), "fp16 by default");
        assertEquals("models[0].cuda.calibration: precision fp8 needs sample frames to measure activation ranges on: a "
                + "folder of images or a list file (e.g. a dataset's train.txt)", error(j -> model(j, 0).put("cuda",
                new JsonObject().put("precision", "fp8"))).getMessage());
        assertEquals("models[0].cuda.precision: expected one of fp16, fp8, auto, found \"int8\"", error(j -> model(j, 0)
                .put("cuda", new JsonObject().put("precision", "int8"))).getMessage());
        ConfigException missing = error(j -> model(j, 0).put("cuda", new JsonObject().put("precision", "auto")
                .put("calibration", tmp.resolve("nowhere").toString())));
        assertEquals("models[0].cuda.calibration", missing.key());
        assertTrue(missing.getMessage().contains("no such folder or list file"), missing.getMessage());
    }
}
