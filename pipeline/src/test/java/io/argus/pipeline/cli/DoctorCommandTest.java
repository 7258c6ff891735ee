package io.argus.pipeline.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.TestConfig;
import io.argus.testkit.Budget;
import io.vertx.core.json.JsonObject;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code argus doctor} end to end, in process: a line per check, the CPU as /proc/cpuinfo names it, a taken port. */
@Budget(seconds = 5)
class DoctorCommandTest {
    @TempDir
    Path tmp;

    @Test
    void reportsEveryCheckWithoutStackTraces() throws Exception {
        DetectCommandTest.Result r = DetectCommandTest.argus("doctor", "--config", config(0).toString());
        String out = r.out();
        for (String topic : List.of("Java", "CPU", "GPU", "FFmpeg", "System packages", "Fonts", "Config", "HTTP port",
                "HTTP access", "Cache dir")) {
            assertTrue(out.lines().anyMatch(l -> l.matches("(OK|INFO|WARN|FAIL)\\s+" + topic + "\\b.*")
                    || topic.equals("GPU") && l.matches("(OK|INFO|WARN|FAIL)\\s+NVIDIA driver\\b.*")), topic + " missing:\n" + out);
        }
        String modelName = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                .findFirst().orElseThrow().split(":", 2)[1].strip();
        assertTrue(line(out, "CPU").contains(modelName), out);
        assertTrue(line(out, "FFmpeg").startsWith("OK"), "this machine has FFmpeg's system libraries:\n" + out);
        assertTrue(line(out, "HTTP port").startsWith("OK"), out);
        assertTrue(line(out, "Cache dir").contains(tmp.resolve("cache").toString()), out);
        if (!Files.exists(Path.of("/proc/driver/nvidia/version"))) {
            assertTrue(line(out, "GPU").matches("INFO\\s+GPU\\s+not found \\(CPU only\\).*"), out);
        }
        assertFalse((out + r.err()).contains("\tat ") || (out + r.err()).contains("Exception"), out + r.err());
        assertEquals(out.contains("\nFAIL ") ? 1 : 0, r.code(), out);
    }

    @Test
    void aTakenPortIsAFailWithTheWayOut() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            DetectCommandTest.Result r = DetectCommandTest.argus("doctor", "--config", config(taken.getLocalPort()).toString());
            String port = line(r.out(), "HTTP port");
            assertTrue(port.startsWith("FAIL") && port.contains("127.0.0.1:" + taken.getLocalPort() + " is in use"), r.out());
            assertTrue(r.out().contains("-> use another port: ARGUS_HTTP_PORT=" + (taken.getLocalPort() + 1) + " bin/argus run"), r.out());
            assertEquals(1, r.code());
        }
    }

    /** A test config on loopback with {@code port} and a cache directory in the temp dir (JSON is YAML). */
    private Path config(int port) throws Exception {
        JsonObject json = TestConfig.base().put("cacheDir", tmp.resolve("cache").toString());
        json.getJsonObject("http").put("port", port);
        Path file = tmp.resolve("argus.yaml");
        Files.writeString(file, json.encodePrettily());
        return file;
    }

    private static String line(String out, String topic) {
        return out.lines().filter(l -> l.matches("\\S+\\s+" + topic + "\\s.*")).findFirst().orElse("(no " + topic + " line)");
    }
}
