package io.argus.pipeline.e2e;

import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Waits;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Headless Chromium (Debian's) driven over the DevTools protocol, as {@link DashboardTest} does it. */
final class Browser implements AutoCloseable {
    final DashboardTest.Cdp cdp;
    private final Process chrome;
    private final Path profile;

    private Browser(DashboardTest.Cdp cdp, Process chrome, Path profile) {
        this.cdp = cdp;
        this.chrome = chrome;
        this.profile = profile;
    }

    static boolean available() { return Files.isExecutable(DashboardTest.CHROMIUM); }

    /** Starts Chromium and opens {@code url}. */
    static Browser open(Vertx client, String url) throws Exception {
        Path profile = Files.createTempDirectory("argus-chromium");
        Process chrome = new ProcessBuilder(DashboardTest.CHROMIUM.toString(), "--headless", "--no-sandbox",
                "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile,
                "--remote-debugging-port=0", "--remote-allow-origins=*", "--window-size=1280,1000", "about:blank")
                .redirectErrorStream(true).start();
        try {
            DashboardTest.Cdp cdp = DashboardTest.Cdp.connect(client, DashboardTest.devToolsPort(chrome));
            cdp.call("Page.enable", new JsonObject());
            cdp.call("Page.navigate", new JsonObject().put("url", url));
            return new Browser(cdp, chrome, profile);
        } catch (Exception | AssertionError e) {
            chrome.destroyForcibly();
            throw e;
        }
    }

    /** Evaluates {@code expression} until it gives a non-empty string; fails after {@code seconds}. */
    String waitFor(String expression, int seconds, String what) throws Exception {
        String[] v = {null};
        Waits.waitFor(() -> (v[0] = cdp.eval(expression).getString("value")) != null && !v[0].isEmpty(),
                TimeUnit.SECONDS.toMillis(seconds), 250, what);
        return v[0];
    }

    /** As {@link #waitFor(String, int, String)}, the value of {@code state} (an expression) in the failure's message. */
    String waitFor(String expression, int seconds, String what, String state) throws Exception {
        try {
            return waitFor(expression, seconds, what);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; page state: " + cdp.eval(state).getString("value"), e);
        }
    }

    void screenshot(String name) throws Exception {
        JsonObject shot = cdp.call("Page.captureScreenshot", new JsonObject().put("format", "png"));
        Files.write(TestMedia.dir().resolve(name), Base64.getDecoder().decode(shot.getString("data")));
    }

    @Override
    public void close() throws Exception {
        try {
            cdp.close();
        } finally {
            // Chromium's helper processes outlive its main one for a moment and keep writing into the profile:
            // stop them all first and wait for them to end, and let the walk miss a file that vanished under it.
            List<ProcessHandle> helpers = chrome.descendants().toList();
            helpers.forEach(ProcessHandle::destroyForcibly);
            chrome.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            Waits.waitFor(() -> helpers.stream().noneMatch(ProcessHandle::isAlive), 10_000, "Chromium's helpers to end");
            for (int attempt = 0; attempt < 3 && Files.exists(profile); attempt++) {
                try (Stream<Path> files = Files.walk(profile)) {
                    files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                } catch (java.io.UncheckedIOException | java.io.IOException e) {
                    // a file vanished under the walk: walk again
                }
            }
        }
    }
}
