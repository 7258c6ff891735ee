package io.argus.pipeline.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.ConfigException;
import io.argus.pipeline.config.TrainingConfig;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.argus.trainer.train.MultiScale;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The training section: off unless asked, defaults, environment overrides, errors naming the key. */
@Budget(seconds = 5)
class TrainingConfigTest {
    @TempDir
    Path tmp;

    ArgusConfig read(JsonObject training, Map<String, String> env) throws Exception {
        JsonObject json = TestConfig.base();
        if (training != null) json.put("training", training);
        return ArgusConfig.read(tmp.resolve("x.yaml"), json, env);
    }

    @Test
    void offByDefaultWithDefaultsUnderTheCacheDirectory() throws Exception {
        TrainingConfig t = read(null, Map.of()).training();
        assertFalse(t.enabled());
        assertEquals("tiny", t.model());
        assertNull(t.schedule());
        assertEquals(100, t.iterations());
        assertEquals(0.5, t.cpuShare());
        assertEquals(4, t.collect().valEvery());
        assertNull(t.teacher());
        assertEquals(MultiScale.Mode.OFF, t.multiScale(), "a fine-tune trains at the serving size unless asked");
        assertEquals(MultiScale.Mode.CFG, read(new JsonObject().put("multiScale", "cfg"), Map.of()).training()
                .multiScale());
        TrainingConfig on = read(new JsonObject().put("enabled", true).put("schedule", "0 3 * * *"),
                Map.of("ARGUS_TRAINING_ITERATIONS", "7", "ARGUS_TRAINING_COLLECT_INTERVAL_MS", "1500")).training();
        assertEquals("0 3 * * *", on.schedule().expression());
        assertEquals(7, on.iterations());
        assertEquals(1500, on.collect().intervalMs());
        assertEquals(on.dataDir().resolve("tiny"), on.modelDir());
    }

    @Test
    void badValuesNameTheKey() {
        assertEquals("training.schedule: cron expression \"every hour\": expected 5 fields (minute hour day month weekday) or 6 (second first), found 2",
                assertThrows(ConfigException.class, () -> read(new JsonObject().put("schedule", "every hour"), Map.of())).getMessage());
        assertEquals("training.model: unknown model \"big\" (models: tiny)",
                assertThrows(ConfigException.class, () -> read(new JsonObject().put("model", "big"), Map.of())).getMessage());
        assertEquals("training.subdivisions: must divide batch (16), found 3",
                assertThrows(ConfigException.class, () -> read(new JsonObject().put("subdivisions", 3), Map.of())).getMessage());
        assertEquals("training.collect.candidateIntervalMs: must be <= intervalMs (100), found 500",
                assertThrows(ConfigException.class, () -> read(new JsonObject().put("collect", new JsonObject().put("intervalMs", 100)), Map.of())).getMessage());
        assertEquals("training.teacher.weights: missing: a teacher needs trained weights",
                assertThrows(ConfigException.class, () -> read(new JsonObject().put("teacher", new JsonObject()
                        .put("cfg", TestMedia.home().resolve("config/models/demo.cfg").toString())), Map.of())).getMessage());
        ConfigException typo = assertThrows(ConfigException.class, () -> read(new JsonObject().put("iteration", 5), Map.of()));
        assertEquals("training.iteration", typo.key());
    }
}
