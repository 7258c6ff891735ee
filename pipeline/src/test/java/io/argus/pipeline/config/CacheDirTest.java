package io.argus.pipeline.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.backends.Detector;
import io.argus.pipeline.inference.LoadedModel;
import io.argus.pipeline.testing.TestConfig;
import io.argus.testkit.Budget;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every cache lives under cacheDir, so {@code ARGUS_CACHE_DIR} (or {@code cacheDir}) moves them all: the CPU tuning
 * choices (checked on disk: a detector opened with the model's options writes its file there), the cuDNN plans of
 * the models and of training, and the training data.
 */
@Budget(seconds = 20)
class CacheDirTest {
    @TempDir
    Path tmp;

    @Test
    void argusCacheDirMovesEveryCache() throws Exception {
        Path cache = tmp.resolve("elsewhere");
        ArgusConfig c = TestConfig.read(tmp, j -> {
            j.getJsonArray("models").getJsonObject(0).remove("cpu"); // the default place, not the tests' shared one
            j.put("training", new JsonObject().put("enabled", true).put("model", "tiny"));
        }, Map.of("ARGUS_CACHE_DIR", cache.toString()));
        assertEquals(cache, c.cacheDir());
        ModelConfig m = c.models().get(0);
        assertEquals(cache.resolve("cpu-tuning"), m.cpu().tuningDir());
        assertEquals(cache.resolve("plans"), m.cuda().planCache());
        assertEquals(cache.resolve("plans"), c.training().cuda().planCache());
        assertEquals(cache.resolve("training"), c.training().dataDir());

        ModelConfig onCpu = new ModelConfig(m.id(), m.cfg(), m.weights(), m.names(), m.width(), m.height(), m.seed(),
                m.version(), Detector.Backend.CPU, 1, m.maxWaitMs(), m.threshold(), m.nms(), m.maxDetections(),
                m.cuda(), m.cpu());
        LoadedModel model = LoadedModel.load(onCpu);
        try (Detector d = Detector.open(model.model(), onCpu.detectorOptions())) {
            d.detect(BgrImage.of(64, 48, new byte[64 * 48 * 3]));
        }
        try (Stream<Path> files = Files.list(cache.resolve("cpu-tuning"))) {
            List<Path> written = files.filter(f -> f.toString().endsWith(".properties")).toList();
            assertEquals(1, written.size(), "the tuning file of this CPU, under cacheDir: " + written);
        }
        assertTrue(m.cpu().tune(), "tuning is on by default");
    }
}
