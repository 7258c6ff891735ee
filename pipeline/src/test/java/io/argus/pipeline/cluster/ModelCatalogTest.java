package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.ClusterSecret;
import io.argus.pipeline.config.ModelConfig;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A model id means the same content on every node; a node whose files differ refuses that model, saying both. */
@Budget(seconds = 5)
class ModelCatalogTest {
    private static ModelConfig model(JsonObject change) throws Exception {
        JsonObject j = TestConfig.base();
        j.getJsonArray("models").getJsonObject(0).mergeIn(change);
        ArgusConfig c = TestConfig.read(j);
        return c.models().get(0);
    }

    /** A local map {@code name}, sealed as the cluster's {@code format} map is. */
    static SealedMap<String> sealed(Vertx vertx, String name, String format) throws Exception {
        var raw = vertx.sharedData().<Object, Object>getLocalAsyncMap(name).toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        return new SealedMap<>(name, raw, new ClusterKeys(new ClusterSecret(io.argus.pipeline.testing.TestCluster.SECRET, "test")).sealer(),
                ClusterValues.texts(format), new InvalidValues(null, List.of()));
    }

    @Test
    void aNodeWithOtherWeightsForTheSameIdRefusesThatModel() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            ModelCatalog catalog = new ModelCatalog(sealed(vertx, ModelCatalog.MAP, ModelCatalog.MAP));
            ModelConfig seed1 = model(new JsonObject());
            Map<String, String> first = catalog.register(List.of(seed1), "node-a").toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertTrue(first.isEmpty(), "the first node registers: " + first);
            Map<String, String> same = catalog.register(List.of(model(new JsonObject())), "node-b").toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertTrue(same.isEmpty(), "the same files on another node: served: " + same);

            Map<String, String> other = catalog.register(List.of(model(new JsonObject().put("seed", 2))), "node-c")
                    .toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertEquals(List.of("tiny"), List.copyOf(other.keySet()));
            String reason = other.get("tiny");
            assertTrue(reason.contains("node-a") && reason.contains("random-seed-1") && reason.contains("random-seed-2"), reason);

            // a weights file: its content hash, whatever its path
            Path w1 = TestMedia.dir().resolve("catalog-a.weights");
            Path w2 = TestMedia.dir().resolve("catalog-b.weights");
            Files.write(w1, new byte[]{1, 2, 3});
            Files.write(w2, new byte[]{1, 2, 3});
            ModelCatalog c2 = new ModelCatalog(sealed(vertx, "test.models2", ModelCatalog.MAP));
            assertEquals(ModelCatalog.content(model(new JsonObject().put("weights", w1.toString()))),
                    ModelCatalog.content(model(new JsonObject().put("weights", w2.toString()))), "same bytes, same model");
            Files.write(w2, new byte[]{1, 2, 4});
            c2.register(List.of(model(new JsonObject().put("weights", w1.toString()))), "node-a").toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertEquals(1, c2.register(List.of(model(new JsonObject().put("weights", w2.toString()))), "node-b")
                    .toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS).size(), "one byte differs: refused");
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}
