package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.base.RequestRefused;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.config.ClusterSecret;
import io.argus.pipeline.config.ConfigException;
import io.argus.pipeline.testing.TestCluster;
import io.argus.testkit.Budget;
import io.argus.testkit.Waits;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster's record of run-time camera changes ({@link ClusterChanges}, {@link CameraChange}) on one process's maps:
 * the nodes' files merge camera by camera into the newest record, whichever node starts first; a camera removed stays
 * removed (not seeded back from another node's config); a change the config file superseded is dropped; hostile
 * records, in a file or in the map, are refused; of removed cameras' records the newest few are kept, in the map and the
 * file. The whole-cluster restart itself: ClusterFailoverTest. About 3 s alone.
 */
@Budget(seconds = 10)
class ClusterChangesTest {
    static final String ZONES = "{\"zones\": [{\"id\": \"porch\", \"polygon\": [[0, 0], [80, 0], [80, 60]], \"classes\": [\"person\"]}]}";

    @TempDir
    Path dir;
    final Vertx vertx = Vertx.vertx();
    final InvalidValues invalid = new InvalidValues(null, List.of());
    final ClusterMaps maps = new ClusterMaps(vertx, new ClusterKeys(new ClusterSecret(TestCluster.SECRET, "test")), invalid).install();

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    CameraConfig camera(String id, String url) {
        return CameraConfig.fromJson(new JsonObject().put("id", id).put("url", url), List.of("tiny"), dir);
    }

    final CameraConfig cam1 = camera("cam1", "rtsp://10.0.0.1/one");
    final CameraConfig cam2 = camera("cam2", "rtsp://10.0.0.1/two");
    final List<CameraConfig> configured = List.of(cam1, cam2);

    /** An older file (a node killed early) and a newer one (a node that saw every change). */
    Map<String, CameraChange> older() {
        return Map.of("cam7", CameraChange.added(camera("cam7", "rtsp://u:secret@10.0.0.7/"), null, null, 100),
                "cam1", CameraChange.ofFile(cam1).withPaused(true, 101));
    }

    Map<String, CameraChange> newer() {
        return Map.of("cam7", CameraChange.removed("cam7", null, null, 200),
                "cam1", CameraChange.ofFile(cam1).withPaused(true, 101).withPaused(false, 201),
                "cam2", CameraChange.removed("cam2", cam2, null, 202),
                "cam8", CameraChange.added(camera("cam8", "rtsp://10.0.0.8/"), null, null, 203).withPaused(true, 204)
                        .withRules(new JsonObject(ZONES), 205));
    }

    @Test
    void theNewestRecordOfEachCameraWinsWhenTheStaleNodeStartsFirst() throws Exception {
        mergeAndCheck(List.of(older(), newer()));
    }

    @Test
    void theNewestRecordOfEachCameraWinsWhenTheNewestNodeStartsFirst() throws Exception {
        mergeAndCheck(List.of(newer(), older()));
    }

    private void mergeAndCheck(List<Map<String, CameraChange>> files) throws Exception {
        Nodes nodes = new Nodes();
        Set<String> unseeded = Set.of();
        for (int i = 0; i < files.size(); i++) {
            Path cache = dir.resolve("node" + i);
            ChangeMirror.write(ChangeMirror.file(cache), files.get(i));
            unseeded = await(nodes.restore(cache, configured));
        }
        assertEquals(Set.of("cam2"), unseeded, "cam2, removed at run time, is not seeded by the last node to start");
        Path fresh = dir.resolve("fresh");
        assertEquals(Set.of("cam2"), await(nodes.restore(fresh, configured)), "nor by a node without a file");

        Map<String, JsonObject> listed = await(nodes.catalog.entries());
        assertEquals(Set.of("cam8"), listed.keySet(), "cam7 removed, cam8 added (the config's cameras are seeded by the caller)");
        assertTrue(await(nodes.states.paused("cam8")));
        assertFalse(await(nodes.states.paused("cam1")), "cam1 resumed after its pause");
        SealedMap<JsonObject> rules = await(maps.objects(ClusterValues.SCENE_RULES_MAP));
        assertEquals(new JsonObject(ZONES), await(rules.get("cam8")));

        // every node's file ends up with the merged record: the first node's by the event bus
        Map<String, CameraChange> expected = new TreeMap<>(newer());
        for (String node : List.of("node0", "node1", "fresh")) {
            Path file = ChangeMirror.file(dir.resolve(node));
            Waits.waitFor(() -> ChangeMirror.read(file).equals(expected), 5_000, 20, () -> node + "'s file: " + read(file));
        }
        assertEquals(0, invalid.total(ClusterChanges.MAP));
    }

    @Test
    void aChangeTheConfigFileSupersededIsDroppedAndTheFileWins() throws Exception {
        CameraConfig cam1Before = camera("cam1", "rtsp://10.0.0.1/old");
        Path cache = dir.resolve("node");
        ChangeMirror.write(ChangeMirror.file(cache), Map.of(
                "cam1", CameraChange.removed("cam1", cam1Before, null, 100),   // removed when the file said otherwise
                "cam9", CameraChange.added(camera("cam9", "rtsp://10.0.0.9/"), null, null, 101)));   // the file has a cam9 now
        Nodes nodes = new Nodes();
        Set<String> unseeded = await(nodes.restore(cache, List.of(cam1, camera("cam9", "rtsp://10.0.0.9/file"))));
        assertEquals(Set.of(), unseeded, "the file's cam1 and cam9 are seeded");
        assertEquals(Set.of(), await(nodes.catalog.entries()).keySet(), "the run-time cam9 is not listed");
        assertEquals(Map.of(), ChangeMirror.read(ChangeMirror.file(cache)), "the dropped changes leave the node's file");
    }

    @Test
    void changesOverRestAreRecordedInOrderAndCopiedToTheFile() throws Exception {
        Nodes nodes = new Nodes();
        Path cache = dir.resolve("node");
        ClusterChanges changes = nodes.changes(cache, configured);
        await(changes.restore(nodes.catalog, nodes.states, nodes::noOwner));
        CameraConfig cam9 = camera("cam9", "rtsp://10.0.0.9/");
        await(nodes.catalog.add(cam9));
        await(changes.added(cam9));
        await(changes.paused("cam9", true));
        await(changes.paused("cam1", true));
        SealedMap<JsonObject> rules = await(maps.objects(ClusterValues.SCENE_RULES_MAP));
        await(rules.put("cam1", new JsonObject(ZONES)));
        await(changes.rulesChanged("cam1"));
        Map<String, CameraChange> file = ChangeMirror.read(ChangeMirror.file(cache));
        assertTrue(file.get("cam9").paused() && file.get("cam9").definition() != null);
        assertTrue(file.get("cam1").paused() && file.get("cam1").definition() == null);
        assertEquals(new JsonObject(ZONES), file.get("cam1").rules());
        long before = file.get("cam9").seq();
        await(changes.removed("cam9"));
        CameraChange removed = ChangeMirror.read(ChangeMirror.file(cache)).get("cam9");
        assertTrue(removed.removed() && !removed.paused() && removed.seq() > before, "removed, after its pause: " + removed);
        assertTrue(CameraChange.next(removed, removed.seq() - 60_000) > removed.seq(), "a clock set back orders nothing before");
    }

    /** Cameras added and removed over and over: the oldest records of removed ones leave the map and the file. */
    @Test
    void recordsOfRemovedCamerasAreKeptToTheNewestFewInTheMapAndTheFile() throws Exception {
        Nodes nodes = new Nodes();
        Path cache = dir.resolve("node");
        ClusterChanges changes = new ClusterChanges(vertx, "node", cache, configured,
                body -> CameraConfig.fromJson(body, List.of("tiny"), dir), 3);
        await(changes.restore(nodes.catalog, nodes.states, nodes::noOwner));
        for (int i = 1; i <= 6; i++) {
            CameraConfig c = camera("gone" + i, "rtsp://10.0.0.9/" + i);
            await(nodes.catalog.add(c));
            await(changes.added(c));
            await(nodes.catalog.remove(c.id()));
            await(changes.removed(c.id()));
        }
        SealedMap<JsonObject> record = await(maps.objects(ClusterChanges.MAP));
        assertEquals(Set.of("gone4", "gone5", "gone6"), await(record.entries()).keySet());
        assertEquals(Set.of("gone4", "gone5", "gone6"), ChangeMirror.read(ChangeMirror.file(cache)).keySet(),
                "the file forgets what the map forgot, without waiting for the next change");
        await(changes.paused("cam1", true));   // a camera of the config file's: a record, but never one pruned
        await(changes.removed("cam1"));
        assertEquals(Set.of("gone4", "gone5", "gone6", "cam1"), ChangeMirror.read(ChangeMirror.file(cache)).keySet());
    }

    @Test
    void hostileRecordsAreRefusedNamingTheField() throws Exception {
        JsonObject good = CameraChange.added(camera("cam9", "rtsp://10.0.0.9/"), null, null, 5).toJson();
        assertRefused("cam9", good.copy().put("seq", -1), "\"seq\" expected an integer > 0, found -1");
        assertRefused("cam9", good.copy().put("seq", "5"), "\"seq\" expected an integer > 0");
        assertRefused("cam9", good.copy().put("config", "../../etc/passwd"), "\"config\" expected null or a SHA-256 digest");
        assertRefused("other", good, "\"camera.id\" expected the key \"other\", found \"cam9\"");
        assertRefused("../x", good, "not a camera id");
        assertRefused("cam9", good.copy().put("removed", true), "\"camera\" expected nothing for a removed camera");
        assertRefused("cam9", good.copy().put("paused", "yes"), "\"paused\" expected true or false");
        assertRefused("cam9", good.copy().put("rules", new JsonObject().put("zones", new JsonArray().add("x"))), "zones");
        JsonObject noUrl = good.copy();
        noUrl.getJsonObject("camera").remove("url");
        assertRefused("cam9", noUrl, "\"camera.url\" expected a camera address, found nothing");

        // a bad file stops the start naming it and the field
        Path cache = dir.resolve("node");
        Path file = ChangeMirror.file(cache);
        Files.createDirectories(file.getParent());
        Files.writeString(file, new JsonObject().put("version", 1).put("cameras", new JsonObject().put("cam9", good.copy().put("seq", 0))).encode());
        Nodes nodes = new Nodes();
        Exception e = assertThrows(Exception.class, () -> await(nodes.restore(cache, configured)));
        assertTrue(e.getCause() instanceof ConfigException && e.getMessage().contains(file.toString()) && e.getMessage().contains("\"seq\""), e.getMessage());

        // a bad value in the map is counted, read as absent, and a file's valid record replaces it
        SealedMap<JsonObject> record = await(maps.objects(ClusterChanges.MAP));
        await(record.put("cam9", good.copy().put("paused", 3)));
        Path other = dir.resolve("other");
        ChangeMirror.write(ChangeMirror.file(other), Map.of("cam9", CameraChange.fromJson("cam9", good)));
        await(nodes.restore(other, configured));
        assertEquals(1, invalid.total(ClusterChanges.MAP));
        assertEquals(good, await(record.get("cam9")));
        assertNull(ChangeMirror.read(ChangeMirror.file(other)).get("cam9").rules());
    }

    private static void assertRefused(String key, JsonObject j, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CameraChange.fromJson(key, j));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertFalse(e.getMessage().contains("secret"), e.getMessage());
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (Exception e) {
            return e.toString();
        }
    }

    /** Nodes of one cluster: their maps are this process's. */
    final class Nodes {
        final CameraCatalog catalog;
        final CameraStates states;

        Nodes() throws Exception {
            catalog = new CameraCatalog(await(maps.texts(CameraCatalog.MAP)));
            states = new CameraStates(await(maps.texts(CameraStates.MAP)));
        }

        ClusterChanges changes(Path cache, List<CameraConfig> config) {
            return new ClusterChanges(vertx, cache.getFileName().toString(), cache, config, body -> CameraConfig.fromJson(body, List.of("tiny"), dir));
        }

        Future<Set<String>> restore(Path cache, List<CameraConfig> config) {
            return changes(cache, config).restore(catalog, states, this::noOwner);
        }

        /** No node runs the cameras yet (a whole cluster starting). */
        Future<?> noOwner(String camera, boolean pause) {
            return Future.failedFuture(RequestRefused.conflict("camera \"" + camera + "\" runs on no node at the moment"));
        }
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }
}
