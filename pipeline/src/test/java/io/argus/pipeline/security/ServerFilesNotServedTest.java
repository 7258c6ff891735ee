package io.argus.pipeline.security;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.testkit.Budget;
import io.argus.testkit.Waits;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * No route reads a server path: {@code POST /api/models/:id/versions} with an absolute path, a name that climbs out
 * of {@code training.importDir} or a link that leads out of it is refused (400), the reply does not repeat the file's
 * bytes (as text or as the integers of a weights header), nothing is recorded and no file is left, and the weights
 * route has nothing to serve for it (404). What does work: weights uploaded as the body (hashed, kept 0600 in a 0700
 * directory, as the dataset's directories are, served back byte for byte) and a file named in the import directory (adopted, then rolled back).
 * Budget: 30 s (one app with the 64x64 tiny model; three swaps).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Budget(seconds = 30)
class ServerFilesNotServedTest {
    static final String SECRET_TEXT = "db_password=hunter2-correct-horse\n";

    @TempDir
    static Path root;

    TrainingApi api;
    Path importDir;
    Path secret;
    Path versionsDir;

    @BeforeAll
    void start() throws Exception {
        importDir = Files.createDirectories(root.resolve("import"));
        Path outside = Files.createDirectories(root.resolve("outside"));
        secret = outside.resolve("secret.weights");
        Files.writeString(secret, SECRET_TEXT);
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        Files.createSymbolicLink(importDir.resolve("link.weights"), secret);
        Files.copy(secret, importDir.resolve("copy.weights")); // in the directory, but not weights
        Path data = root.resolve("data");
        versionsDir = data.resolve(TrainingApi.MODEL).resolve("versions");
        api = new TrainingApi(data, json -> json.getJsonObject("training").put("importDir", importDir.toString()));
    }

    @AfterAll
    void stop() throws Exception {
        if (api != null) api.close();
    }

    @Test
    void pathsAndNamesLeadingOutOfTheImportDirAreRefusedWithoutTheirBytesAndRecordNothing() throws Exception {
        int versionsBefore = api.versions().getJsonArray("versions").size();
        Set<String> filesBefore = files(versionsDir);
        String[][] attempts = {
                {secret.toString(), "an absolute path"},
                {"../outside/secret.weights", "a name that climbs out"},
                {"link.weights", "a link out of the directory"},
                {"copy.weights", "a file in it that is not weights"},
        };
        for (String[] a : attempts) {
            RunningApp.Response r = api.json(HttpMethod.POST, "/api/models/tiny/versions", new JsonObject().put("file", a[0]));
            System.out.println(a[1] + " -> " + r.status() + " " + r.body());
            assertNoSecretIn(r.body(), a[1]);
            assertEquals(400, r.status(), a[1] + ": " + r.body());
            assertTrue(r.json().getString("error").startsWith("file: "), "the error names the field: " + r.body());
        }
        assertEquals(versionsBefore, api.versions().getJsonArray("versions").size(), "nothing recorded: " + api.versions().encodePrettily());
        assertEquals(filesBefore, files(versionsDir), "no file left in the registry");
        String secretVersion = TrainingApi.version(Files.readAllBytes(secret));
        RunningApp.Response served = api.get("/api/models/tiny/versions/" + secretVersion + "/weights");
        assertEquals(404, served.status(), "no weights for the refused file's version: " + served.body());
        assertNoSecretIn(served.body(), "GET weights");
    }

    @Test
    void uploadedWeightsAreHashedKeptOwnerOnlyAndServedBackWhileWrongOnesRecordNothing() throws Exception {
        int versionsBefore = api.versions().getJsonArray("versions").size();
        Set<String> filesBefore = files(versionsDir);
        byte[] tooShort = Files.readAllBytes(secret);
        RunningApp.Response r = api.weights("/api/models/tiny/versions", tooShort);
        assertEquals(400, r.status(), r.body());
        assertTrue(r.body().contains("expected ") && r.body().contains("found " + tooShort.length + " bytes"), r.body());
        // the right size, but a text file's header: refused by the header's fields, not by echoing them
        byte[] good = TrainingApi.weights(7, root);
        byte[] text = good.clone();
        byte[] secretBytes = SECRET_TEXT.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(secretBytes, 0, text, 0, secretBytes.length);
        r = api.weights("/api/models/tiny/versions", text);
        assertEquals(400, r.status(), r.body());
        assertTrue(r.body().contains("header field 'major'"), r.body());
        assertNoSecretIn(r.body(), "upload with a text header");
        assertEquals(versionsBefore, api.versions().getJsonArray("versions").size(), "refused uploads record nothing");
        Waits.waitFor(() -> files(versionsDir).equals(filesBefore), 5_000, "no staged upload left in " + versionsDir
                + " (before " + filesBefore + ")");

        r = api.weights("/api/models/tiny/versions", good);
        assertEquals(200, r.status(), r.body());
        String version = TrainingApi.version(good);
        assertEquals(version, r.json().getString("version"), "the version is the upload's SHA-256");
        assertEquals(version, api.versions().getString("active"));
        Path kept = Path.of(r.json().getString("file"));
        assertEquals(versionsDir, kept.getParent());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(kept)), "kept weights are the owner's");
        Path modelDir = versionsDir.getParent();
        for (Path d : new Path[] {versionsDir, modelDir, modelDir.resolve("dataset"), modelDir.resolve("dataset/images")}) {
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(d)), d + " is the owner's");
        }
        RunningApp.Response back = api.get("/api/models/tiny/versions/" + version + "/weights");
        assertEquals(200, back.status());
        assertArrayEquals(good, back.raw().getBytes(), "the kept version is served back as uploaded");
    }

    @Test
    void aFileNamedInTheImportDirIsAdoptedAndRolledBack() throws Exception {
        byte[] better = TrainingApi.weights(11, root);
        Files.write(importDir.resolve("better.weights"), better);
        String before = api.versions().getString("active");
        RunningApp.Response r = api.json(HttpMethod.POST, "/api/models/tiny/versions", new JsonObject().put("file", "better.weights"));
        assertEquals(200, r.status(), r.body());
        assertEquals(TrainingApi.version(better), r.json().getString("version"));
        assertEquals("promoted by an operator", r.json().getString("state"));
        assertEquals(TrainingApi.version(better), api.versions().getString("active"));
        RunningApp.Response back = api.json(HttpMethod.POST, "/api/models/tiny/rollback", new JsonObject());
        assertEquals(200, back.status(), back.body());
        assertEquals(before, api.versions().getString("active"));
    }

    /** Neither the secret's text nor its first bytes read as the integers of a weights header. */
    static void assertNoSecretIn(String reply, String what) {
        byte[] b = SECRET_TEXT.getBytes(StandardCharsets.US_ASCII);
        assertFalse(reply.contains("hunter2") || reply.contains("db_password"), what + " repeats the file: " + reply);
        for (ByteOrder order : new ByteOrder[] {ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN}) {
            ByteBuffer buf = ByteBuffer.wrap(b).order(order);
            for (int i = 0; i < 3; i++) {
                String n = Integer.toString(buf.getInt());
                assertFalse(reply.contains(n), what + " repeats the file's bytes as the integer " + n + ": " + reply);
            }
        }
    }

    static Set<String> files(Path dir) throws Exception {
        if (!Files.isDirectory(dir)) return Set.of();
        try (Stream<Path> s = Files.list(dir)) {
            Set<String> names = new TreeSet<>();
            s.forEach(p -> {
                if (!p.getFileName().toString().equals("registry.json")) names.add(p.getFileName().toString());
            });
            return names;
        }
    }
}
