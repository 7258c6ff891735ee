package io.argus.pipeline.e2e;

import static io.argus.testkit.Waits.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.testing.WsClient;
import io.argus.testkit.Budget;
import io.argus.testkit.Tiers;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The dashboard in a real browser: headless Chromium (Debian's), driven over the DevTools protocol from this test.
 * The page loads, a tile appears for the test camera, and boxes are drawn over its snapshot.
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 20)
class DashboardTest {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    @Test
    void pageLoadsAndBoxesAppearForTheTestVideo() throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM), "needs Debian's chromium");
        String video = TestMedia.h264(640, 360, 25, 8).toString();
        JsonObject json = TestConfig.base();
        int closedPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        json.getJsonArray("cameras").add(TestConfig.camera("cam", video))
                .add(TestConfig.camera("down", "rtsp://127.0.0.1:" + closedPort + "/live"));   // a camera that fails
        Path profile = Files.createTempDirectory("argus-chromium");
        Process chrome = null;
        try (RunningApp app = new RunningApp(TestConfig.read(json))) {
            chrome = new ProcessBuilder(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--user-data-dir=" + profile, "--remote-debugging-port=0", "--remote-allow-origins=*",
                    "--window-size=1280,900", "about:blank").redirectErrorStream(true).start();
            int devtoolsPort = devToolsPort(chrome);
            try (Cdp cdp = Cdp.connect(app, devtoolsPort)) {
                cdp.call("Page.enable", new JsonObject());
                cdp.call("Page.navigate", new JsonObject().put("url", "http://127.0.0.1:" + app.port() + "/"));
                String boxes = "document.querySelectorAll('.tile[data-camera=\"cam\"] svg rect.box').length";
                waitFor(() -> cdp.eval(boxes).getInteger("value", 0) > 0, 90_000, 250, "boxes drawn on the dashboard");
                assertEquals("Argus", cdp.eval("document.title").getString("value"));
                assertTrue(cdp.eval("document.querySelector('.tile[data-camera=\"cam\"] img').naturalWidth").getInteger("value") > 0,
                        "the snapshot image loaded");
                assertEquals("live", cdp.eval("document.getElementById('connection').textContent").getString("value"));
                String[] legend = {""};
                waitFor(() -> (legend[0] = cdp.eval("document.getElementById('legend').textContent").getString("value"))
                        .contains("ms"), 10_000, 250, () -> "the latency chart's legend: " + legend[0]);
                assertTrue(legend[0].contains("cam"), "the latency chart lists the camera: " + legend[0]);
                assertTrue(cdp.eval("document.querySelector('.tile[data-camera=\"cam\"] .fps').textContent").getString("value")
                        .endsWith("fps"));
                // a failing camera's tile says why and when it tries again, in place of a picture
                String problem = "(() => { const p = document.querySelector('.tile[data-camera=\"down\"] .problem');"
                        + " return p && !p.hidden && p.querySelector('.retry').textContent.startsWith('next try in')"
                        + " ? p.innerText : ''; })()";
                String[] shown = {""};
                waitFor(() -> !(shown[0] = cdp.eval(problem).getString("value", "")).isEmpty(), 15_000, 250,
                        "the failing camera's reason and next retry on its tile");
                assertTrue(shown[0].contains("Camera not streaming") && shown[0].contains("Connection refused"), shown[0]);
                JsonObject shot = cdp.call("Page.captureScreenshot", new JsonObject().put("format", "png"));
                Files.write(TestMedia.dir().resolve("dashboard.png"), Base64.getDecoder().decode(shot.getString("data")));
                JsonObject box = new JsonObject(cdp.eval("JSON.stringify(document.querySelector("
                        + "'.tile[data-camera=\"down\"]').getBoundingClientRect())").getString("value"));
                JsonObject tile = cdp.call("Page.captureScreenshot", new JsonObject().put("format", "png").put("clip",
                        new JsonObject().put("x", box.getDouble("x")).put("y", box.getDouble("y"))
                                .put("width", box.getDouble("width")).put("height", box.getDouble("height")).put("scale", 1)));
                Files.write(TestMedia.dir().resolve("failing-tile.png"), Base64.getDecoder().decode(tile.getString("data")));
            }
        } finally {
            if (chrome != null) chrome.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** Reads Chromium's "DevTools listening on ws://127.0.0.1:PORT/..." line. */
    static int devToolsPort(Process chrome) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(chrome.getInputStream()));
        Pattern p = Pattern.compile("DevTools listening on ws://[^:]+:(\\d+)/");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String line;
        while (System.nanoTime() < end && (line = out.readLine()) != null) {
            Matcher m = p.matcher(line);
            if (m.find()) {
                io.argus.testkit.ProcessOutput.discard(out, "chromium-output");
                return Integer.parseInt(m.group(1));
            }
        }
        throw new AssertionError("Chromium did not report its DevTools port");
    }

    /** A minimal DevTools-protocol client over a Vert.x WebSocket. */
    static final class Cdp implements AutoCloseable {
        private final WsClient ws;
        private int nextId = 1;

        private Cdp(WsClient ws) { this.ws = ws; }

        static Cdp connect(RunningApp app, int port) throws Exception {
            return connect(app.client, port);
        }

        static Cdp connect(io.vertx.core.Vertx client, int port) throws Exception {
            HttpResponse<String> list = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list")).build(),
                    HttpResponse.BodyHandlers.ofString());
            String target = null;
            for (Object o : new JsonArray(list.body())) {
                JsonObject t = (JsonObject) o;
                if ("page".equals(t.getString("type"))) target = t.getString("webSocketDebuggerUrl");
            }
            if (target == null) throw new AssertionError("no page target in " + list.body());
            URI uri = URI.create(target);
            return new Cdp(WsClient.connect(client, uri.getPort(), uri.getPath(), null, 0));
        }

        JsonObject call(String method, JsonObject params) throws InterruptedException {
            int id = nextId++;
            ws.send(new JsonObject().put("id", id).put("method", method).put("params", params));
            JsonObject reply = ws.await(m -> Integer.valueOf(id).equals(m.getInteger("id")), Duration.ofSeconds(30), method + " reply");
            if (reply.containsKey("error")) throw new AssertionError(method + ": " + reply.getJsonObject("error").encode());
            return reply.getJsonObject("result");
        }

        /** Runtime.evaluate, by value: {"type": ..., "value": ...}. */
        JsonObject eval(String expression) throws InterruptedException {
            return call("Runtime.evaluate", new JsonObject().put("expression", expression).put("returnByValue", true))
                    .getJsonObject("result");
        }

        @Override
        public void close() { ws.close(); }
    }
}
