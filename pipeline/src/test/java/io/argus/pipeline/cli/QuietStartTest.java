package io.argus.pipeline.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.argus.testkit.CapturedLogs;
import io.argus.testkit.Waits;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A start on the default settings (backend auto for the model and for training, decoder auto) says each fact once and
 * nothing a user cannot act on: on a host without CUDA one line says so (no path into JavaCPP's cache), the model's
 * progress line is not cut in two, Micrometer does not warn about Vert.x's event-bus gauges, and a camera whose model
 * runs on the CPU counts no NVDEC fallback. Log records and what is written to standard error directly are both read.
 */
@Budget(seconds = 30)
class QuietStartTest {
    @TempDir
    Path dir;

    @Test
    void aStartSaysEachFactOnceAndNothingUnactionable() throws Exception {
        JsonObject json = TestConfig.demo();
        json.getJsonArray("models").getJsonObject(0).put("backend", "auto");
        json.getJsonArray("cameras").add(TestConfig.camera("door", TestMedia.shapes(5).toString()));
        json.put("training", new JsonObject().put("enabled", true).put("model", "demo").put("backend", "auto")
                .put("dataDir", dir.resolve("training").toString()));
        json.put("cacheDir", dir.resolve("cache").toString());

        ByteArrayOutputStream progressBytes = new ByteArrayOutputStream();
        ConsoleProgress progress = new ConsoleProgress(new PrintStream(progressBytes, true, StandardCharsets.UTF_8));
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        PrintStream err = System.err;
        System.setErr(new PrintStream(new Tee(err, errBytes), true, StandardCharsets.UTF_8));
        CapturedLogs logs = CapturedLogs.start();
        JsonObject camera;
        try (RunningApp app = new RunningApp(TestConfig.read(json), progress)) {
            progress.ready(app.app.contents());   // as argus run does once the start completed
            Waits.waitFor(() -> app.camera("door").getLong("framesDecoded", 0L) > 0, 30_000, "frames of the camera");
            camera = app.camera("door");
        } finally {
            logs.close();
            System.setErr(err);
        }
        String said = logs.text() + errBytes.toString(StandardCharsets.UTF_8);
        String progressLines = progressBytes.toString(StandardCharsets.UTF_8);
        System.out.println("progress:\n" + progressLines + "logs and standard error:\n" + said);

        assertTrue(count(said, "CUDA is not usable") <= 1, "CUDA's absence is said at most once:\n" + said);
        assertFalse(said.contains(".javacpp"), "no path into JavaCPP's cache:\n" + said);
        assertFalse(said.contains("already registered"), "no Micrometer double-registration warning:\n" + said);
        assertFalse(said.contains("snapshot of door failed"), "a stop drops the last snapshots quietly:\n" + said);
        assertEquals(1, count(progressLines, "loading model \"demo\""), "the model's line once:\n" + progressLines);
        assertEquals(1, count(progressLines, "ready in "), "ready said once:\n" + progressLines);
        assertEquals(0, count(said, "argus ready"), "and not by the log too, beside the progress:\n" + said);
        assertTrue(progressLines.contains("ready in ") && progressLines.contains("(1 model, 1 camera)"), progressLines);
        List<String> lines = progressLines.lines().toList();
        assertEquals(lines.size(), lines.stream().distinct().count(), "no progress line twice:\n" + progressLines);
        assertFalse(camera.containsKey("nvdecFallbacks"), "decoder auto chose, nothing fell back: " + camera.encode());
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) n++;
        return n;
    }

    /** Standard error as it was, and a copy. */
    private static final class Tee extends OutputStream {
        private final OutputStream a, b;

        Tee(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public synchronized void write(int c) throws java.io.IOException {
            a.write(c);
            b.write(c);
        }

        @Override
        public synchronized void write(byte[] bytes, int off, int len) throws java.io.IOException {
            a.write(bytes, off, len);
            b.write(bytes, off, len);
        }
    }
}
