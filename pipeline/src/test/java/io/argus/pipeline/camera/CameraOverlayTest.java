package io.argus.pipeline.camera;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.config.ConfigException;
import io.argus.testkit.Budget;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The precedence of runtime changes over the config file ({@link CameraOverlay}): a change holds while the file's
 * camera of that id is what it was when the change was made, and the file's newer word wins once the user edits it.
 * An overlay file that cannot be read stops the start with its path (it is never silently overwritten). Budget: 5 s.
 */
@Budget(seconds = 5)
class CameraOverlayTest {
    @TempDir
    Path dir;

    CameraConfig camera(String id, String url) {
        return CameraConfig.fromJson(new JsonObject().put("id", id).put("url", url), List.of("tiny"), dir);
    }

    List<String> ids(CameraOverlay.Effective e) {
        return e.cameras().stream().map(CameraConfig::id).toList();
    }

    CameraOverlay.Effective effective(CameraOverlay o, List<CameraConfig> inFile) {
        return o.effective(inFile, body -> CameraConfig.fromJson(body, List.of("tiny"), dir));
    }

    @Test
    void removedAddedAndPausedCamerasHoldAcrossAReadOfTheFile() throws Exception {
        CameraConfig yard = camera("yard", "rtsp://10.0.0.1/yard");
        CameraConfig gate = camera("gate", "rtsp://10.0.0.1/gate");
        CameraOverlay o = new CameraOverlay();
        o.removed("yard", yard);
        o.added(camera("porch", "rtsp://user:secret@10.0.0.2/porch"), null);
        o.added(camera("gate", "rtsp://10.0.0.9/other"), gate);   // re-defined at run time
        o.paused("porch", true);
        Path file = CameraOverlay.file(dir);
        o.write(file);

        CameraOverlay.Effective e = effective(CameraOverlay.read(file), List.of(yard, gate));
        assertEquals(List.of("porch", "gate"), ids(e));
        assertEquals("rtsp://10.0.0.9/other", e.cameras().get(1).source().address(), "the runtime definition wins");
        assertEquals(Set.of("porch"), e.paused());
        assertFalse(e.changed());
        assertTrue(Files.readString(file).contains("secret") && !Files.readString(file).contains("rtsp://10.0.0.1/yard"),
                "an added camera's definition is kept whole; of the file's cameras only a digest");
    }

    @Test
    void anEditOfTheConfigFileSupersedesTheRuntimeChangesOfThatCamera() {
        CameraConfig yard = camera("yard", "rtsp://10.0.0.1/yard");
        CameraConfig gate = camera("gate", "rtsp://10.0.0.1/gate");
        CameraOverlay o = new CameraOverlay();
        o.removed("yard", yard);
        o.added(camera("gate", "rtsp://10.0.0.9/other"), gate);
        o.added(camera("porch", "rtsp://10.0.0.2/porch"), null);
        // the user edits yard and gate in the file, and adds a porch of their own
        CameraOverlay.Effective e = effective(o, List.of(camera("yard", "rtsp://10.0.0.1/yard2"),
                camera("gate", "rtsp://10.0.0.1/gate2"), camera("porch", "rtsp://10.0.0.3/porch")));
        assertEquals(List.of("yard", "gate", "porch"), ids(e));
        assertEquals("rtsp://10.0.0.3/porch", e.cameras().get(2).source().address());
        assertTrue(e.changed(), "the superseded changes leave the overlay");
        assertEquals(3, e.notes().size(), e.notes().toString());
        assertEquals(List.of("yard", "gate", "porch"), ids(effective(o, e.cameras())), "and stay gone");
    }

    @Test
    void anAddedCameraThatNoLongerReadsIsNotRunButKept() {
        CameraOverlay o = new CameraOverlay();
        o.added(camera("porch", "rtsp://10.0.0.2/porch"), null);
        CameraOverlay.Effective e = o.effective(List.of(), body -> CameraConfig.fromJson(body, List.of("other"), dir));
        assertEquals(List.of(), ids(e));
        assertTrue(e.notes().getFirst().contains("porch") && e.notes().getFirst().contains("unknown model"), e.notes().toString());
        assertEquals(1, o.toJson().getJsonArray("added").size());
    }

    @Test
    void anOverlayFileThatCannotBeReadStopsTheStartNamingIt() throws Exception {
        Path file = CameraOverlay.file(dir);
        Files.createDirectories(file.getParent());
        Files.writeString(file, "{\"version\": 1, \"added\": [{\"camera\": {\"url\": \"rtsp://x/y\"}}]}");
        ConfigException e = assertThrows(ConfigException.class, () -> CameraOverlay.read(file));
        assertTrue(e.getMessage().startsWith(file + ": not a camera overlay: added[0].camera"), e.getMessage());
        Files.writeString(file, "{not json");
        assertTrue(assertThrows(ConfigException.class, () -> CameraOverlay.read(file)).getMessage().contains(file.toString()));
    }

    @Test
    void aChangeThatCannotBeWrittenLeavesTheOverlayAsItWas() throws Exception {
        Path file = CameraOverlay.file(dir);
        CameraOverlay o = new CameraOverlay();
        o.change(x -> x.added(camera("porch", "rtsp://10.0.0.2/porch"), null), file);
        String kept = Files.readString(file);
        Files.delete(file);
        Files.createDirectories(file.resolve("in-the-way"));   // a directory where the file goes: the rename fails
        assertThrows(RuntimeException.class, () -> o.change(x -> x.added(camera("shed", "rtsp://10.0.0.3/shed"), null), file));
        Files.delete(file.resolve("in-the-way"));
        Files.delete(file);
        o.change(x -> x.paused("porch", true), file);
        assertEquals(List.of("porch"), ids(effective(CameraOverlay.read(file), List.of())), "the refused camera is not written later");
        assertTrue(kept.contains("porch"));
    }
}
