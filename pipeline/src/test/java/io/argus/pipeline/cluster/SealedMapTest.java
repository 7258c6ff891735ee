package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.config.ClusterSecret;
import io.argus.pipeline.testing.TestCluster;
import io.argus.testkit.Budget;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The cluster maps as Argus reads them ({@link SealedMap}, {@link ClusterValues}): values sealed for their map and key;
 * what does not open, parse or validate is ignored (never thrown), counted once per value and logged once; plain
 * compare-and-set works across fresh nonces. Over Vert.x's local maps: what a stranger can write into Hazelcast's is
 * any text at any key, which is what these do. Budget: 3 s.
 */
@Budget(seconds = 5)
class SealedMapTest {
    private final Vertx vertx = Vertx.vertx();
    private final ClusterKeys keys = new ClusterKeys(new ClusterSecret(TestCluster.SECRET, "test"));
    private final InvalidValues invalid = new InvalidValues(null, ClusterValues.MAPS);

    @AfterEach
    void close() throws Exception { vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS); }

    private static <T> T get(Future<T> f) throws Exception { return f.toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS); }

    private AsyncMap<Object, Object> raw(String map) throws Exception { return get(vertx.sharedData().getLocalAsyncMap(map)); }

    private SealedMap<String> texts(String map) throws Exception {
        return new SealedMap<>(map, raw(map), keys.sealer(), ClusterValues.texts(map), invalid);
    }

    @Test
    void valuesAreSealedForTheirMapAndKeyAndCompareAndSetWorksOnPlainValues() throws Exception {
        SealedMap<String> leases = texts(Lease.MAP);
        String first = Lease.first("node-a", 1000).text();
        get(leases.put("cam1", first));
        Object stored = get(raw(Lease.MAP).get("cam1"));
        assertTrue(stored.toString().startsWith("argus1:") && !stored.toString().contains("node-a"), "sealed: " + stored);
        assertEquals(first, get(leases.get("cam1")));

        // the same lease sealed twice differs (a fresh nonce), yet compare-and-set on plain values works
        String renewed = Lease.parse(first).renewed(2000).text();
        assertTrue(get(leases.replaceIfPresent("cam1", first, renewed)));
        assertFalse(get(leases.replaceIfPresent("cam1", first, renewed)), "the expected value is gone");
        SealedMap<String> elsewhere = texts(Lease.MAP); // another verticle's view, which never saw the sealed form
        assertTrue(get(elsewhere.replaceIfPresent("cam1", renewed, first)));
        assertEquals(first, get(leases.get("cam1")));

        // a sealed value moved to another key, or into another map, does not open there
        get(raw(Lease.MAP).put("cam2", stored));
        get(raw(TrainerSingleton.MAP).put("cam1", stored));
        assertNull(get(leases.get("cam2")));
        assertNull(get(texts(TrainerSingleton.MAP).get("cam1")));
        assertEquals(List.of("cam1"), List.copyOf(get(leases.keys())));
        assertTrue(invalid.total(Lease.MAP) >= 1 && invalid.total(TrainerSingleton.MAP) >= 1);

        // another cluster's key does not open it either
        SealedMap<String> stranger = new SealedMap<>(Lease.MAP, raw(Lease.MAP),
                new ClusterKeys(new ClusterSecret(TestCluster.SECRET + "-other", "other")).sealer(), ClusterValues.texts(Lease.MAP), invalid);
        assertNull(get(stranger.get("cam1")));
    }

    @Test
    void garbageInEveryMapIsIgnoredNeverThrownAndCountedOncePerValue() throws Exception {
        List<String> garbage = List.of("this is not json {", new JsonObject().putNull("heir").put("owner", "x").put("epoch", 1).encode());
        for (String map : ClusterValues.MAPS) {
            boolean objects = map.equals(ClusterValues.SCENE_RULES_MAP) || map.equals(ClusterValues.COUNTS_MAP) || map.equals(ClusterChanges.MAP);
            AsyncMap<String, ?> sealed = objects
                    ? new SealedMap<>(map, raw(map), keys.sealer(), ClusterValues.objects(map), invalid) : texts(map);
            for (String g : garbage) {
                long before = invalid.total(map);
                // unsealed, as a stranger writes it; and sealed with the right key but not valid, as a node of another
                // version could
                get(raw(map).put("bad", g));
                assertNull(get(sealed.get("bad")), map + ": " + g);
                assertTrue(get(sealed.entries()).isEmpty(), map);
                assertNull(get(sealed.get("bad")), map + ": read again");
                assertEquals(before + 1, invalid.total(map), map + ": counted once however often read");
                get(raw(map).put("bad", keys.sealer().seal(map, "bad", g)));
                assertNull(get(sealed.get("bad")), map + ": sealed " + g);
                assertEquals(before + 2, invalid.total(map), map);
            }
            // a key that is no name: ignored and counted, the valid values still answered
            get(raw(map).put("../../etc/passwd", "x"));
            get(raw(map).put(42, "x"));
            assertTrue(get(sealed.entries()).isEmpty(), map);
        }
        // the lease of {"heir": null}: the probe's case, refused by the lease's own reader too
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Lease.parse(new JsonObject().putNull("heir").put("owner", "").put("epoch", 1).put("expires", 0).put("handover", "").encode()));
        assertTrue(e.getMessage().contains("\"heir\" expected a text, found nothing"), e.getMessage());
    }

    @Test
    void validValuesOfEachMapAreAccepted() throws Exception {
        Map<String, String> valid = Map.of(
                CameraCatalog.MAP, new JsonObject().put("definition", new JsonObject().put("id", "k").put("url", "rtsp://a:b@h/s").put("model", "tiny"))
                        .put("public", new JsonObject().put("id", "k")).encode(),
                NodeDirectory.MAP, new JsonObject().put("id", "k").put("cluster", "10.0.0.5:5701").put("http", "[::1]:8080").put("weight", 1.0).encode(),
                CameraStates.MAP, new JsonObject().put("paused", true).encode(),
                ModelCatalog.MAP, new JsonObject().put("cfg", "a").put("weights", "b").put("names", "c").put("input", "64x64").put("node", "n").encode(),
                ModelVersionSync.LATEST, new JsonObject().put("model", "k").put("version", "sha256:0c7800879b44").put("node", "n").put("http", "h:1").encode(),
                Lease.MAP, Lease.first("n", 5).text(),
                TrainerSingleton.MAP, Lease.first("n", 5).text());
        for (Map.Entry<String, String> e : valid.entrySet()) {
            SealedMap<String> m = texts(e.getKey());
            get(m.put("k", e.getValue()));
            assertEquals(e.getValue(), get(m.get("k")), e.getKey());
        }
        SealedMap<JsonObject> counts = new SealedMap<>(ClusterValues.COUNTS_MAP, raw(ClusterValues.COUNTS_MAP), keys.sealer(),
                ClusterValues.objects(ClusterValues.COUNTS_MAP), invalid);
        JsonObject c = new JsonObject().put("cameraId", "k").put("zones", new io.vertx.core.json.JsonArray().add(new JsonObject()
                .put("zone", "z").put("className", "person").put("entered", 3)));
        get(counts.put("k", c));
        assertEquals(c, get(counts.get("k")));
        assertEquals(0, invalid.total(CameraCatalog.MAP) + invalid.total(NodeDirectory.MAP) + invalid.total(ClusterValues.COUNTS_MAP));
    }
}
