package io.argus.pipeline.cli;

import static io.argus.testkit.Waits.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.testkit.Budget;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code argus token show|rotate} on a config of its own (JSON is YAML), with a server following the rotation.
 *
 * <p>Budget: 30 s (20.4 s in the fresh root on AMD family 25 model 17, 2 cores: a server started, and the rotation
 * polled every 1.5 s).
 */
@Budget(seconds = 30)
class TokenCommandTest {
    @TempDir
    Path tmp;

    /** A config file with {@code cacheDir} in the temporary directory; {@code http} merged into the test defaults. */
    Path config(JsonObject http) throws Exception {
        JsonObject json = TestConfig.base();
        json.getJsonObject("http").mergeIn(http);
        json.put("cacheDir", tmp.resolve("cache").toString());
        Path file = tmp.resolve("argus-" + http.hashCode() + ".yaml");
        Files.writeString(file, json.encodePrettily());
        return file;
    }

    static String tokenIn(String out) {
        Matcher m = Pattern.compile("(?m)^token: (\\S+)$").matcher(out);
        if (!m.find()) throw new AssertionError("no token in: " + out);
        return m.group(1);
    }

    @Test
    void showPrintsTheTokenAndItsLinkAndRotateReplacesItUnderARunningServer() throws Exception {
        Path config = config(new JsonObject().put("host", "0.0.0.0").put("port", 8089));
        DetectCommandTest.Result shown = DetectCommandTest.argus("token", "show", "--config", config.toString());
        assertEquals(0, shown.code(), shown.err());
        String token = tokenIn(shown.out());
        assertTrue(shown.out().contains("dashboard: http://localhost:8089/?token=" + token + "\n"), shown.out());
        Path file = tmp.resolve("cache/http-token");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals(token, tokenIn(DetectCommandTest.argus("token", "show", "-c", config.toString()).out()), "the same each time");

        JsonObject running = TestConfig.base();
        running.getJsonObject("http").put("host", "0.0.0.0");
        running.put("cacheDir", tmp.resolve("cache").toString());
        try (RunningApp app = new RunningApp(TestConfig.read(running))) {
            assertEquals(token, app.token(), "the server uses the token show printed");
            assertEquals(200, app.call(HttpMethod.GET, "/api/cameras", null, token).status());

            DetectCommandTest.Result rotated = DetectCommandTest.argus("token", "rotate", "--config", config.toString());
            assertEquals(0, rotated.code(), rotated.err());
            String next = tokenIn(rotated.out());
            assertNotEquals(token, next);
            assertTrue(rotated.out().contains("dashboard: http://localhost:8089/?token=" + next + "\n"), rotated.out());
            assertEquals(next + "\n", Files.readString(file));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            // every 401 counts as a failed attempt and the server stops answering an address after 10 a minute:
            // poll slowly enough to stay below that however long the server takes (it looks once a second)
            waitFor(() -> app.call(HttpMethod.GET, "/api/cameras", null, next).status() == 200, 12_000, 1_500,
                    "the running server to take the new token without a restart");
            assertEquals(401, app.call(HttpMethod.GET, "/api/cameras", null, token).status(), "and dropped the old one");
        }
        assertEquals(tokenIn(DetectCommandTest.argus("token", "show", "-c", config.toString()).out()),
                Files.readString(file).strip());
    }

    @Test
    void aConfiguredTokenIsShownButNotRotated() throws Exception {
        Path config = config(new JsonObject().put("host", "0.0.0.0").put("token", "from-the-config-file"));
        DetectCommandTest.Result shown = DetectCommandTest.argus("token", "show", "--config", config.toString());
        assertEquals(0, shown.code(), shown.err());
        assertEquals("from-the-config-file", tokenIn(shown.out()));
        DetectCommandTest.Result refused = DetectCommandTest.argus("token", "rotate", "--config", config.toString());
        assertEquals(2, refused.code(), refused.out());
        assertTrue(refused.err().contains("http.token in " + config) && refused.err().contains("edit the config"), refused.err());
        assertTrue(Files.notExists(tmp.resolve("cache/http-token")));
    }

    @Test
    void aLoopbackServerHasNoTokenToShow() throws Exception {
        Path config = config(new JsonObject().put("host", "127.0.0.1").put("port", 8090));
        DetectCommandTest.Result shown = DetectCommandTest.argus("token", "show", "--config", config.toString());
        assertEquals(0, shown.code(), shown.err());
        assertTrue(shown.out().contains("no token") && shown.out().contains("dashboard: http://127.0.0.1:8090/"), shown.out());
        assertTrue(Files.notExists(tmp.resolve("cache/http-token")));
    }
}
