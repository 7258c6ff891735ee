package io.argus.pipeline.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.LoopbackHost;
import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** When there is a token, where it comes from, and its file: generated once, owner-only, reused. */
@Budget(seconds = 5)
class AccessTokenTest {
    @TempDir
    Path cache;

    static ArgusConfig.Http http(String host, String token) { return new ArgusConfig.Http(host, 8080, token, 0); }

    @Test
    void aNonLoopbackHostWithoutTokenGeneratesOneOnceInAnOwnerOnlyFile() throws Exception {
        AccessToken first = AccessToken.resolve(http("0.0.0.0", null), cache);
        assertEquals(AccessToken.Kind.FILE, first.kind());
        assertTrue(first.generatedNow());
        assertEquals(cache.resolve("http-token"), first.file());
        assertTrue(first.token().matches("[A-Za-z0-9_-]{43}"), "32 random bytes, URL-safe base64: " + first.token());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(first.file())));
        assertEquals(first.token() + "\n", Files.readString(first.file()));
        try (var files = Files.list(cache)) {
            assertEquals(List.of(first.file()), files.toList(), "no temporary file left behind");
        }

        AccessToken again = AccessToken.resolve(http("192.168.1.20", null), cache);
        assertEquals(first.token(), again.token(), "reused on the next start");
        assertFalse(again.generatedNow());
        assertNotEquals(first.token(), AccessToken.resolve(http("0.0.0.0", null), Files.createTempDirectory(cache, "other")).token(),
                "random, not derived from anything");
    }

    @Test
    void aConfiguredTokenWinsAndNeedsNoFile() throws Exception {
        AccessToken t = AccessToken.resolve(http("0.0.0.0", "s3cret-of-16-chars"), cache);
        assertEquals(AccessToken.Kind.CONFIGURED, t.kind());
        assertEquals("s3cret-of-16-chars", t.token());
        assertFalse(Files.exists(cache.resolve("http-token")));
        assertEquals("s3cret-of-16-chars", AccessToken.resolve(http("127.0.0.1", "s3cret-of-16-chars"), cache).token(), "on loopback too");
    }

    @Test
    void loopbackHostsStayOpen() throws Exception {
        for (String host : List.of("127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "::1", "[::1]", "0:0:0:0:0:0:0:1")) {
            AccessToken t = AccessToken.resolve(http(host, null), cache);
            assertTrue(t.open(), host);
            assertNull(t.token(), host);
        }
        assertFalse(Files.exists(cache.resolve("http-token")), "no token file for an open server");
        for (String host : List.of("0.0.0.0", "::", "192.168.1.20", "10.0.0.1", "argus.example.org", "fe80::1", "128.0.0.1")) {
            assertFalse(LoopbackHost.is(host), host);
        }
    }

    @Test
    void writingReplacesTheTokenInOneStepStillOwnerOnly() throws Exception {
        Path file = TokenFile.in(cache);
        TokenFile.write(file, "the-first-of-two-tokens");
        TokenFile.write(file, "the-second-of-two-tokens");
        assertEquals("the-second-of-two-tokens", TokenFile.read(file).orElseThrow());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        try (var files = Files.list(cache)) {
            assertEquals(1, files.count());
        }
    }

    @Test
    void theStartLinesShowTheTokenOnlyWhenItWasJustGenerated() throws Exception {
        Path file = cache.resolve("http-token");
        List<String> generated = DashboardAddress.of("0.0.0.0", 8080, new AccessToken(AccessToken.Kind.FILE, "abc", file, true)).startLines();
        assertTrue(generated.get(0).startsWith("argus: dashboard http://localhost:8080/?token=abc "), generated.toString());
        assertTrue(generated.get(1).contains(file.toString()), generated.toString());
        List<String> later = DashboardAddress.of("0.0.0.0", 8080, new AccessToken(AccessToken.Kind.FILE, "abc", file, false)).startLines();
        assertFalse(String.join("\n", later).contains("abc"), later.toString());
        assertEquals("argus: token in " + file + "; see: argus token show", later.get(1));
        List<String> configured = DashboardAddress.of("10.1.2.3", 80, new AccessToken(AccessToken.Kind.CONFIGURED, "abc", null, false)).startLines();
        assertFalse(String.join("\n", configured).contains("abc"), configured.toString());
        assertTrue(configured.get(0).startsWith("argus: dashboard http://10.1.2.3:80/ "), configured.toString());
        assertEquals("http://[fe80::1]:80/", DashboardAddress.of("fe80::1", 80, new AccessToken(AccessToken.Kind.OPEN, null, null, false)).url());
    }
}
