package io.argus.pipeline.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.pipeline.app.ArgusApp;
import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.ConfigException;
import io.argus.pipeline.config.TokenStrength;
import io.argus.pipeline.http.AccessToken;
import io.argus.pipeline.http.TokenFile;
import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.testkit.Budget;
import io.argus.testkit.Waits;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The token file is the token only when its owner alone could have written it. A token file of mode 0666 holding
 * {@code abc} was accepted without a word, and when another local user rewrote it the server switched to their token
 * within a second. Now a file that the group or others may read or change, that another user owns, that is a link, or
 * that holds less than a real token, is refused at start with the reason, the file, the mode found and the fix
 * ({@code chmod 600}, {@code argus token rotate}); a running server keeps its token when the file changes that way,
 * says why once, and takes the new token as soon as the file is fixed. A configured {@code http.token} needs
 * {@link TokenStrength#MIN_LENGTH} characters. Budget: 20 s.
 */
@Budget(seconds = 20)
class TokenFilePermissionsTest {
    @TempDir
    Path root;

    static ArgusConfig.Http everywhere() { return new ArgusConfig.Http("0.0.0.0", 8080, null, 0); }

    static JsonObject config(Path cache) throws Exception {
        JsonObject json = TestConfig.light().put("cacheDir", cache.toString());
        json.getJsonObject("http").put("host", "0.0.0.0");
        return json;
    }

    static Path tokenFile(Path cache, String content, String mode) throws IOException {
        Files.createDirectories(cache);
        Path file = TokenFile.in(cache);
        Files.writeString(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
        return file;
    }

    static String refusal(Path cache) {
        return assertThrows(IOException.class, () -> AccessToken.resolve(everywhere(), cache)).getMessage();
    }

    @Test
    void aWorldWritableTokenFileIsRefusedAtStartWithTheReasonAndTheFix() throws Exception {
        Path cache = root.resolve("start");
        Path file = tokenFile(cache, "abc\n", "rw-rw-rw-");
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> ArgusApp.start(TestConfig.read(config(cache))).get(120, TimeUnit.SECONDS).closeAndWait());
        String why = e.getCause().getMessage();
        assertTrue(why.contains("http: the access token file is refused: " + file + ": mode 0666 lets the group or others"
                + " read or change the token; expected 0600 (rw-------). Run `chmod 600 " + file + "`"), why);
        assertTrue(why.contains("argus token rotate"), why);
    }

    @Test
    void readableByOthersOwnedByAnotherUserALinkOrTooShortAreRefused() throws Exception {
        String good = TokenFile.generate();
        Path cache = root.resolve("variants");
        Path file = tokenFile(cache, good + "\n", "rw-r--r--");
        assertTrue(refusal(cache).contains(file + ": mode 0644 lets the group or others read or change the token"), refusal(cache));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        assertEquals(good, AccessToken.resolve(everywhere(), cache).token(), "the same file, owner-only: the token");

        Files.writeString(file, "abc\n");
        assertTrue(refusal(cache).contains(file + ": expected a token of at least 16 characters, found 3 (a generated one has 43);"
                + " run `argus token rotate`"), refusal(cache));
        assertFalse(refusal(cache).contains("abc"), "a token is never repeated in a message");

        Files.delete(file);
        Path elsewhere = tokenFile(root.resolve("elsewhere"), good + "\n", "rw-------");
        Files.createSymbolicLink(file, elsewhere);
        assertTrue(refusal(cache).contains(file + ": a symbolic link; expected the token file itself"), refusal(cache));

        Files.delete(file);
        tokenFile(cache, good + "\n", "rw-------");
        assumeTrue(isRoot(), "changing a file's owner needs root");
        Files.setAttribute(file, "unix:uid", 65534);
        assertTrue(refusal(cache).contains(file + ": owned by uid 65534, not by the user Argus runs as (uid 0)"), refusal(cache));
    }

    @Test
    void aConfiguredTokenNeedsSixteenVisibleCharacters() throws Exception {
        JsonObject json = config(root.resolve("configured"));
        json.getJsonObject("http").put("token", "s3cret");
        ConfigException e = assertThrows(ConfigException.class, () -> TestConfig.read(json));
        assertEquals("http.token", e.key());
        assertTrue(e.getMessage().startsWith("http.token: expected a token of at least 16 characters, found 6"), e.getMessage());
        assertFalse(e.getMessage().contains("s3cret"), "a token is never repeated in a message");
        json.getJsonObject("http").put("token", "sixteen chars ok");
        assertTrue(assertThrows(ConfigException.class, () -> TestConfig.read(json)).getMessage()
                .contains("expected visible ASCII characters only (no spaces), found U+0020 at position 7"));
        json.getJsonObject("http").put("token", "sixteen-chars-ok");
        assertEquals("sixteen-chars-ok", TestConfig.read(json).http().token());
    }

    @Test
    void aRunningServerDoesNotSwitchToAFileOthersCouldHaveWritten() throws Exception {
        Path cache = root.resolve("running");
        Queue<String> logs = new ConcurrentLinkedQueue<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if ("argus.http".equals(r.getLoggerName())) {
                    logs.add(r.getLevel() + " " + java.text.MessageFormat.format(r.getMessage(),
                            r.getParameters() == null ? new Object[0] : r.getParameters()));
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        // argus.http at INFO whatever an earlier test of this JVM set (a strong reference: JUL holds loggers weakly)
        Logger http = Logger.getLogger("argus.http");
        java.util.logging.Level level = http.getLevel();
        http.setLevel(java.util.logging.Level.INFO);
        Logger.getLogger("").addHandler(capture);
        try (RunningApp app = new RunningApp(TestConfig.read(config(cache)))) {
            String first = app.token();
            Path file = TokenFile.in(cache);
            assertEquals(200, app.call(HttpMethod.GET, "/api/cameras", null, first).status());

            // another user's token, in a file anyone may write (what another local user could do to a 0666 file)
            String theirs = TokenFile.generate();
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
            Files.writeString(file, theirs + "\n");
            Waits.waitFor(() -> logs.stream().anyMatch(w -> w.startsWith("WARNING the access token file " + file + " is not used")
                    && w.contains("mode 0666")), 10_000, "the watcher's refusal of the 0666 file");
            assertEquals(401, app.call(HttpMethod.GET, "/api/cameras", null, theirs).status(), "their token is not taken");
            assertEquals(200, app.call(HttpMethod.GET, "/api/cameras", null, first).status(), "the server's token stays");
            assertFalse(logs.stream().anyMatch(w -> w.startsWith("INFO access token changed")), "no switch: " + logs);

            // fixed by its owner: taken without a restart (waited for in the log: each wrong token counts against
            // this address, FailedAttempts)
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
            Waits.waitFor(() -> logs.stream().anyMatch(w -> w.equals("INFO access token changed: now the one in " + file)),
                    10_000, "the token of the fixed file taken");
            assertEquals(200, app.call(HttpMethod.GET, "/api/cameras", null, theirs).status());
            assertEquals(401, app.call(HttpMethod.GET, "/api/cameras", null, first).status());
            assertTrue(logs.stream().noneMatch(w -> w.contains(theirs) || w.contains(first)), "a token is never logged: " + logs);
        } finally {
            Logger.getLogger("").removeHandler(capture);
            http.setLevel(level);
        }
    }

    static boolean isRoot() throws IOException {
        Path probe = Files.createTempFile("argus-uid", ".probe");
        try {
            return ((Integer) Files.getAttribute(probe, "unix:uid")) == 0;
        } finally {
            Files.delete(probe);
        }
    }
}
