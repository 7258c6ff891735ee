package io.argus.pipeline.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.base.RequestRefused;
import io.argus.pipeline.testing.RunningApp;
import io.argus.testkit.Budget;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Device files, named pipes and the kernel's trees are never read as weights or video: {@code /dev/zero} (endless),
 * {@code /proc/self/environ} (secrets), a FIFO (a read that never ends) and links to them are refused at once as
 * weights to adopt, by name through the API and by path through the registry's in-process {@code adopt} (how a
 * node adopts weights fetched from another), and the registry keeps answering: versions, an upload and a rollback
 * right after answer within seconds, not 409 behind a read that never ends. The same files are refused as cameras
 * (400 when added), and a missing file reads the same as a pipe: the API does not tell which paths exist.
 * Budget: 20 s (one app with the 64x64 tiny model; two swaps).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Budget(seconds = 20)
class DeviceFilesRefusedTest {
    /** Longest a refusal, or any request after one, may take: nothing here reads more than a file header. */
    static final long PROMPT_MS = 5_000;

    @TempDir
    static Path root;

    TrainingApi api;
    Path importDir;
    Path fifo;

    @BeforeAll
    void start() throws Exception {
        importDir = Files.createDirectories(root.resolve("import"));
        fifo = importDir.resolve("pipe.weights");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor());
        Files.createSymbolicLink(importDir.resolve("zero.weights"), Path.of("/dev/zero"));
        Files.createSymbolicLink(importDir.resolve("environ.weights"), Path.of("/proc/self/environ"));
        api = new TrainingApi(root.resolve("data"), json -> json.getJsonObject("training").put("importDir", importDir.toString()));
    }

    @AfterAll
    void stop() throws Exception {
        if (api != null) api.close();
    }

    @Test
    void devicesPipesAndProcAreRefusedAsWeightsAndTheRegistryKeepsAnswering() throws Exception {
        String home = System.getenv("HOME");
        for (String name : new String[] {"/dev/zero", "/proc/self/environ", "pipe.weights", "zero.weights", "environ.weights"}) {
            long t0 = System.nanoTime();
            RunningApp.Response r = api.json(HttpMethod.POST, "/api/models/tiny/versions", new JsonObject().put("file", name));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.println("POST versions {\"file\": \"" + name + "\"} -> " + r.status() + " in " + ms + " ms: " + r.body());
            assertEquals(400, r.status(), name + ": " + r.body());
            assertTrue(ms < PROMPT_MS, name + " took " + ms + " ms");
            assertFalse(home != null && r.body().contains("HOME=" + home), "the environment is not repeated: " + r.body());
        }
        // the registry's in-process adoption (weights another node promoted, fetched to a local file): a path
        for (Path p : new Path[] {Path.of("/dev/zero"), Path.of("/proc/self/environ"), fifo, importDir.resolve("zero.weights")}) {
            long t0 = System.nanoTime();
            ExecutionException e;
            try {
                api.app.app.registry().adopt(p, null, "node test").toCompletionStage()
                        .toCompletableFuture().get(PROMPT_MS, TimeUnit.MILLISECONDS);
                throw new AssertionError(p + " adopted");
            } catch (ExecutionException refused) {
                e = refused;
            } catch (TimeoutException stuck) {
                throw new AssertionError("adopting " + p + " did not end within " + PROMPT_MS + " ms", stuck);
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.println("adopt " + p + " -> " + e.getCause().getMessage() + " in " + ms + " ms");
            assertEquals(400, RequestRefused.statusOf(e.getCause()), String.valueOf(e.getCause()));
            assertTrue(e.getCause().getMessage().contains("/proc, /sys or /dev") || e.getCause().getMessage().contains("a named pipe"),
                    e.getCause().getMessage());
        }
        // what the registry does right after: answers, adopts an upload, rolls back
        long t0 = System.nanoTime();
        int versions = api.versions().getJsonArray("versions").size();
        assertTrue((System.nanoTime() - t0) / 1_000_000 < PROMPT_MS, "versions answered promptly");
        assertEquals(1, versions, "nothing recorded: " + api.versions().encodePrettily());
        RunningApp.Response up = api.weights("/api/models/tiny/versions", TrainingApi.weights(5, root));
        assertEquals(200, up.status(), up.body());
        t0 = System.nanoTime();
        RunningApp.Response back = api.json(HttpMethod.POST, "/api/models/tiny/rollback", new JsonObject());
        assertEquals(200, back.status(), back.body());
        assertTrue((System.nanoTime() - t0) / 1_000_000 < PROMPT_MS, "rollback answered promptly");
    }

    @Test
    void devicesPipesAndProcAreRefusedAsCameras() throws Exception {
        Path link = Files.createSymbolicLink(root.resolve("zero.mp4"), Path.of("/dev/zero"));
        String[][] cameras = {
                {"zero", "/dev/zero", "/proc, /sys or /dev"},
                {"urandom", "file:///dev/urandom", "/proc, /sys or /dev"},
                {"environ", "/proc/self/environ", "/proc, /sys or /dev"},
                {"sys", "/sys/kernel/notes", "/proc, /sys or /dev"},
                {"link", link.toString(), "leads into /proc, /sys or /dev"},
                {"pipe", fifo.toString(), "cannot open video file"},
                {"dir", root.toString(), "cannot open video file"},
        };
        for (String[] c : cameras) {
            RunningApp.Response r = api.json(HttpMethod.POST, "/api/cameras", new JsonObject().put("id", c[0]).put("url", c[1]));
            System.out.println("POST /api/cameras " + c[1] + " -> " + r.status() + ": " + r.body());
            assertEquals(400, r.status(), c[1] + ": " + r.body());
            assertTrue(r.body().contains(c[2]), c[1] + ": " + r.body());
        }
        // a pipe and a missing file read the same: an API client cannot tell which server paths exist
        Path missing = root.resolve("missing.weights");
        String pipe = api.json(HttpMethod.POST, "/api/cameras", new JsonObject().put("id", "p").put("url", fifo.toString()))
                .json().getString("error").replace(fifo.toString(), "<path>");
        String none = api.json(HttpMethod.POST, "/api/cameras", new JsonObject().put("id", "p").put("url", missing.toString()))
                .json().getString("error").replace(missing.toString(), "<path>");
        assertEquals(none, pipe);
        assertEquals(0, api.get("/api/cameras").array().size(), "no camera was added");
    }
}
