package io.argus.pipeline.faults;

import static io.argus.testkit.Waits.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.pipeline.faults.ImpairmentRelay.Impairment;
import io.argus.pipeline.testing.NetworkNamespaces;
import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.testing.WsClient;
import io.argus.testkit.Budget;
import io.argus.testkit.Pace;
import io.argus.testkit.Tiers;
import io.argus.testkit.Waits;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Network faults for cameras. One Argus (in this JVM, root namespace) with two healthy cameras (TCP and UDP)
 * fed by a real RTSP server (GStreamer, {@code fault_rtsp_server.py}) in network namespace 2, and per test the faulted
 * camera(s), whose own RTSP server runs in namespace 1, reached over that namespace's veth pair
 * ({@link NetworkNamespaces}; root only, skipped elsewhere with the reason). All streams are 320x240 at 10 fps.
 *
 * <p>Every test measures, from the detection messages of a WebSocket client ({@code includeEmpty}: one message per
 * frame that went through the detector): for the faulted camera, the time from the fault's removal to its first new
 * frame ("recover") and to a second holding 80% of its frame rate ("steady"), and the frames lost (its frame rate
 * before the fault times the time from the fault to a second after recovery, less the frames it delivered); for the
 * healthy cameras, frames per second (the lowest of the two) and p99 of capture-to-publish latency (the highest) over
 * 6 s before the fault and over the fault. It asserts recovery within {@link #RECOVER_BOUND_MS}
 * ({@link #LONG_OUTAGE_BOUND_MS} after the 60 s link-down), the healthy cameras' rate within {@link #FPS_TOLERANCE}
 * of before, their p99 at most twice before plus 250 ms, and no camera thread left once the faulted cameras are
 * removed. Argus runs with the product's camera defaults (timeouts 5 s, backoff 0.5 s doubling to 30 s). One {@code FAULT ...} line per test (and all again at the end) carries the
 * figures; docs/reliability.md has them in its table.
 *
 * <p>Kernel netem is not available on the development machine's kernel (no {@code sch_netem}): delay and jitter come
 * from {@link ImpairmentRelay} in this JVM, packet loss from nftables in the kernel ({@link KernelLoss}) or, without
 * nftables, from the relay.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag(Tiers.SYSTEM)
@Tag(Tiers.ALONE)
@Budget(seconds = 400)
class CameraNetworkFaultsTest {
    static final int FPS = FaultMedia.FPS;
    static final double FPS_TOLERANCE = 0.10;
    /**
     * Recovery bound of a fault (from its removal to the camera's first new frame) with the product's camera defaults,
     * which these tests run with (config/argus.yaml: connectTimeoutMs 5000, stallTimeoutMs 5000, reconnect 500 ms
     * doubling to 30 s): a connect timeout, a few short backoffs and a second of probing. A long outage lets the
     * backoff reach its 30 s cap: {@link #LONG_OUTAGE_BOUND_MS}.
     */
    static final long RECOVER_BOUND_MS = 15_000;
    static final long LONG_OUTAGE_BOUND_MS = 40_000;
    /**
     * The healthy cameras' p99 during a fault may be at most twice that before plus 250 ms. The slack is the shared
     * 2-core machine's: with 2 x 10 fps a p99 over 10 s is its two worst frames, and one scheduling hiccup of another
     * process (load average 7 while these ran beside other people's builds) put 300 ms there with no fault in
     * Argus; what the bound is for is a latency that grows with the fault (seconds), which it catches.
     */
    static final double P99_FACTOR = 2;
    static final double P99_SLACK_MS = 250;
    static final int PORT = 8554; // each namespace has its own ports
    static final String[] HEALTHY = {"ok-tcp", "ok-udp"};
    static final String[] FAULTED = {"kr-tcp-6", "kr-udp-6", "kr-tcp-20", "kr-udp-20", "ld5-tcp", "ld5-udp", "ld60-tcp", "ld60-udp", "imp-tcp", "imp-udp",
            "silent", "res", "flip", "ro-udp"};

    record Msg(String camera, double captureTime, double totalMs, int width) {}

    record Healthy(double fps, double p50, double p99) {}

    NetworkNamespaces net;
    NamespacedServer healthyServer;
    RunningApp app;
    WsClient ws;
    Path video;
    final List<Msg> msgs = new CopyOnWriteArrayList<>();
    final List<String> summary = new CopyOnWriteArrayList<>();
    volatile boolean collecting = true;
    Thread collector;

    @BeforeAll
    void setUp() throws Exception {
        String why = NetworkNamespaces.unavailable();
        assumeTrue(why == null, why);
        why = NamespacedServer.rtspUnavailable();
        assumeTrue(why == null, why);
        video = TestMedia.h264(320, 240, FPS, 600);
        net = NetworkNamespaces.create(2);
        try {
            healthyServer = NamespacedServer.rtsp(net, 2, PORT, video);
            JsonObject json = TestConfig.base();
            // the product's camera defaults, not the tests' quick ones (connect 1.5 s, stall 2.5 s, backoff <= 1 s):
            // the figures are what a deployment sees, and a 1.5 s connect cannot complete behind 200 ms of delay
            // with 10% loss (four RTSP round trips, TCP retransmissions, a second of probing)
            json.remove("camera");
            json.getJsonArray("cameras").add(camera("ok-tcp", url(2), "tcp")).add(camera("ok-udp", url(2), "udp"));
            app = new RunningApp(TestConfig.read(json));
            List<String> all = new ArrayList<>(List.of(HEALTHY));
            all.addAll(List.of(FAULTED));
            ws = app.ws("/ws?cameras=" + String.join(",", all) + "&includeEmpty=true");
            collector = new Thread(this::collect, "fault-collector");
            collector.setDaemon(true);
            collector.start();
            for (String c : HEALTHY) awaitFrameAfter(c, 0, 60_000);
            Pace.holdMillis(3000, "past the first connections' warm-up");
        } catch (Throwable t) {
            tearDown();
            throw t;
        }
    }

    @AfterAll
    void tearDown() throws Exception {
        collecting = false;
        try {
            if (ws != null) ws.close();
            if (app != null) app.close();
        } finally {
            try {
                if (healthyServer != null) healthyServer.kill();
            } finally {
                if (net != null) net.close();
            }
        }
        if (!summary.isEmpty()) System.out.println("FAULT SUMMARY\n" + String.join("\n", summary));
    }

    private void collect() {
        while (collecting) {
            try {
                JsonObject m = ws.messages.poll(200, TimeUnit.MILLISECONDS);
                if (m == null || !"detections".equals(m.getString("type"))) continue;
                msgs.add(new Msg(m.getString("cameraId"), m.getDouble("captureTime"),
                        m.getJsonObject("latency").getDouble("totalMs"), m.getInteger("width")));
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // not a detection message of the known shape: ignore
            }
        }
    }

    // ---- the faults -------------------------------------------------------------------------------------------

    /**
     * Six kills here (12 recoveries, TCP and UDP) bound the recovery; the 20-kill run, whose recovery distribution
     * docs/reliability.md quotes, is {@code scripts/long-faults.sh}'s: 14 more kills took about a minute of the
     * system tier for no case of their own.
     */
    @Test
    @Order(1)
    void killAndRestartTheServer6Times() throws Exception { killAndRestart("kill-restart-x6", 6); }

    @Test
    @Order(1)
    @Tag(Tiers.LONG)
    void killAndRestartTheServer20Times() throws Exception { killAndRestart("kill-restart-x20", 20); }

    private void killAndRestart(String name, int kills) throws Exception {
        Fault f = new Fault(name, List.of("kr-tcp-" + kills, "kr-udp-" + kills));
        NamespacedServer server = NamespacedServer.rtsp(net, 1, PORT, video);
        try {
            f.start(server, url(1), "tcp", "udp");
            for (int cycle = 0; cycle < kills; cycle++) {
                double killed = now();
                f.faultStart(killed);
                server.kill(); // SIGKILL mid-stream: TCP sees a reset, UDP just silence
                Pace.holdMillis(500, "the server dead for half a second");
                server = NamespacedServer.rtsp(net, 1, PORT, video);
                f.recover(now(), 1000);
            }
            f.during(f.firstFault, now());
        } finally {
            server.kill();
        }
        f.finish("");
    }

    @Test
    @Order(2)
    void linkDownFor5Seconds() throws Exception { linkDown("link-down-5s", 5_000, "ld5-tcp", "ld5-udp"); }

    @Test
    @Order(3)
    @Tag(Tiers.LONG)
    void linkDownFor60Seconds() throws Exception { linkDown("link-down-60s", 60_000, "ld60-tcp", "ld60-udp"); }

    private void linkDown(String name, long downMs, String tcp, String udp) throws Exception {
        Fault f = new Fault(name, List.of(tcp, udp));
        if (downMs > 30_000) f.bound = LONG_OUTAGE_BOUND_MS;
        try (NamespacedServer server = NamespacedServer.rtsp(net, 1, PORT, video)) {
            f.start(server, url(1), "tcp", "udp");
            double start = now();
            f.faultStart(start);
            net.linkDown(1);
            try {
                Pace.holdMillis(downMs, "the link down");
            } finally {
                net.linkUp(1);
            }
            double up = now();
            f.recover(up, 3000);
            f.during(start, up);
        }
        f.finish("");
    }

    @Test
    @Order(4)
    @Tag(Tiers.LONG)
    void lossDelayAndJitterForAMinute() throws Exception {
        Fault f = new Fault("loss10-delay200-jitter50-60s", List.of("imp-tcp", "imp-udp"));
        String lossBy;
        long dropped = -1;
        try (NamespacedServer server = NamespacedServer.rtsp(net, 1, PORT, video);
             ImpairmentRelay tcp = new ImpairmentRelay(net.address(1), PORT);
             ImpairmentRelay udp = new ImpairmentRelay(net.address(1), PORT)) {
            f.startWith(server, List.of("rtsp://127.0.0.1:" + tcp.port() + "/test", "rtsp://127.0.0.1:" + udp.port() + "/test"),
                    "tcp", "udp");
            String noNft = KernelLoss.unavailable(net, 1);
            lossBy = noNft == null ? "kernel-nftables" : "relay";
            double relayLoss = noNft == null ? 0 : 0.10;
            if (noNft != null) System.out.println("no kernel packet loss (" + noNft + "): the relay drops instead");
            Impairment i = new Impairment(200, 50, relayLoss);
            double start = now();
            f.faultStart(start);
            KernelLoss loss = noNft == null ? KernelLoss.apply(net, 1, 10) : null;
            try {
                tcp.impair(i);
                udp.impair(i);
                Pace.holdMillis(60_000, "a minute of loss, delay and jitter");
            } finally {
                tcp.impair(Impairment.NONE);
                udp.impair(Impairment.NONE);
                if (loss != null) {
                    dropped = loss.dropped();
                    loss.close();
                }
            }
            double end = now();
            // the impaired camera's frames during the minute: what still came through
            for (String c : f.cameras) {
                f.extra.append(String.format(Locale.ROOT, " %s_fps_during=%.1f", c, count(c, start, end) / ((end - start) / 1000)));
            }
            f.recover(end, 3000);
            f.during(start, end);
        }
        f.finish(" loss_by=" + lossBy + (dropped >= 0 ? " kernel_dropped_packets=" + dropped : ""));
    }

    @Test
    @Order(5)
    void aServerThatAcceptsAndNeverAnswers() throws Exception {
        Fault f = new Fault("accepts-never-answers", List.of("silent"));
        NamespacedServer server = NamespacedServer.silent(net, 1, PORT);
        try {
            f.baseline();
            double start = now();
            f.faultStart(start);
            add("silent", url(1), "tcp");
            Pace.holdMillis(8_000, "8 s of a server that never answers: past the connect timeout");
            JsonObject during = app.camera("silent");
            f.extra.append(" state_during=").append(during.getString("state")).append(" reconnects_during=")
                    .append(during.getLong("reconnects")).append(" last_error=\"").append(during.getString("lastError", "")).append('"');
            server.kill();
            server = NamespacedServer.rtsp(net, 1, PORT, video);
            double fixed = now();
            f.nominal.put("silent", (double) FPS);
            f.recover(fixed, 3000);
            f.during(start, fixed);
        } finally {
            server.kill();
        }
        f.finish("");
    }

    @Test
    @Order(6)
    void aStreamThatChangesResolutionMidway() throws Exception {
        Path file = FaultMedia.resolutionChange(8, 30);
        Fault f = new Fault("resolution-change-320x240-to-640x360", List.of("res"));
        try (NamespacedServer server = NamespacedServer.rtsp(net, 1, PORT, file)) {
            f.baseline();
            add("res", url(1), "tcp");
            f.nominal.put("res", (double) FPS);
            double first = awaitFrameAfter("res", 0, 30_000);
            assertTrue(!Double.isNaN(first), "the camera never streamed the first part");
            double big = awaitMatch(m -> m.camera().equals("res") && m.width() == 640, 40_000);
            assertTrue(!Double.isNaN(big), "no 640-wide frame came: " + app.camera("res").encode());
            // the switch went on air 8 s after its session started playing (a reconnect starts a new session)
            double switchAt = server.plays.stream().mapToDouble(p -> p.epochMs() + 8_000).filter(t -> t <= big).max()
                    .orElseThrow();
            f.faultStart(switchAt);
            f.recovered(switchAt, big, 3000);
            f.during(switchAt - 1000, big + 3000);
            JsonObject cam = app.camera("res");
            f.extra.append(" size_after=")
                    .append(cam.getInteger("width")).append('x').append(cam.getInteger("height"));
        }
        f.finish("");
    }

    @Test
    @Order(7)
    void bitFlippedH264() throws Exception {
        Path file = FaultMedia.bitFlipped(5, 10, 30);
        Fault f = new Fault("bitflip-h264-10s", List.of("flip"));
        try (NamespacedServer server = NamespacedServer.rtsp(net, 1, PORT, file, FaultMedia.clean(45))) {
            f.baseline();
            add("flip", url(1), "tcp");
            f.nominal.put("flip", (double) FPS);
            assertTrue(!Double.isNaN(awaitFrameAfter("flip", 0, 30_000)), "the camera never streamed");
            waitFor(() -> !server.plays.isEmpty(), 5000, "the server's PLAY line");
            double play = server.plays.get(0).epochMs();
            double start = play + 5_000;
            f.faultStart(start);
            sleepUntil(play + 15_000);
            // a reconnect during the damage gets the clean file: then that is where the fault ended
            double end = server.plays.size() > 1 ? Math.min(play + 15_000, server.plays.get(1).epochMs()) : play + 15_000;
            f.extra.append(String.format(Locale.ROOT, " fps_during_damage=%.1f", count("flip", start, end) / ((end - start) / 1000)));
            f.recover(end, 3000);
            f.during(start, end);
        }
        f.finish("");
    }

    /**
     * Reordering alone, for the UDP camera: 200 +-50 ms per datagram (independently, so packets reorder), no loss, for
     * 15 s (150 frames: a camera that drops each late packet keeps a fraction of them). FFmpeg must wait for a packet that comes after a later one ({@code CameraUrl.RTP_REORDER_DELAY_US});
     * before Argus set it for the CPU decoder, JavaCV left the demuxer's wait at -1 and FFmpeg dropped each such packet
     * as "received too late": the camera kept a fraction of its frames (docs/reliability.md, UDP behind jitter).
     */
    @Test
    @Order(8)
    void reorderingAloneFor15Seconds() throws Exception {
        Fault f = new Fault("reorder-delay200-jitter50-15s", List.of("ro-udp"));
        double fps;
        try (NamespacedServer server = NamespacedServer.rtsp(net, 1, PORT, video);
             ImpairmentRelay udp = new ImpairmentRelay(net.address(1), PORT)) {
            f.startWith(server, List.of("rtsp://127.0.0.1:" + udp.port() + "/test"), "udp");
            double start = now();
            f.faultStart(start);
            try {
                udp.impair(new Impairment(200, 50, 0));
                Pace.holdMillis(15_000, "15 s of reordering");
            } finally {
                udp.impair(Impairment.NONE);
            }
            double end = now();
            fps = count("ro-udp", start, end) / ((end - start) / 1000);
            f.extra.append(String.format(Locale.ROOT, " ro-udp_fps_during=%.1f relay_datagrams_in=%d out=%d", fps,
                    udp.udpReceived.get(), udp.udpSent.get()));
            f.recover(end, 3000);
            f.during(start, end);
        }
        f.finish("");
        double nominal = f.nominal.get("ro-udp");
        assertTrue(fps >= 0.8 * nominal, String.format(Locale.ROOT,
                "the UDP camera kept %.1f fps of %.1f behind reordering (no loss)", fps, nominal));
    }

    // ---- measuring ---------------------------------------------------------------------------------------------

    /** One fault's run: its cameras, the healthy cameras' windows, recoveries, frames lost. */
    final class Fault {
        final String name;
        final List<String> cameras;
        final java.util.Map<String, Double> nominal = new java.util.HashMap<>();
        final List<Double> recoverMs = new ArrayList<>();
        final List<Double> steadyMs = new ArrayList<>();
        final StringBuilder extra = new StringBuilder();
        long bound = RECOVER_BOUND_MS;
        long reconnects;
        long stalls;
        double firstFault = Double.NaN;
        double lastFault;
        int tries;
        double expected;
        long received;
        Healthy before;
        Healthy during;
        long fdsBefore = fds();

        Fault(String name, List<String> cameras) {
            this.name = name;
            this.cameras = cameras;
        }

        /** Adds the cameras (to the namespace's server, one transport each), waits for frames, takes the baseline. */
        void start(NamespacedServer server, String url, String... transports) throws Exception {
            List<String> urls = new ArrayList<>();
            for (int i = 0; i < cameras.size(); i++) urls.add(url);
            startWith(server, urls, transports);
        }

        void startWith(NamespacedServer server, List<String> urls, String... transports) throws Exception {
            for (int i = 0; i < cameras.size(); i++) add(cameras.get(i), urls.get(i), transports[i]);
            for (String c : cameras) {
                assertTrue(!Double.isNaN(awaitFrameAfter(c, 0, 30_000)), c + " never streamed: " + app.camera(c).encode()
                        + "; server said " + server.output);
            }
            Pace.holdMillis(1000, "a second past the first frames, out of the baseline");
            baseline();
        }

        /** 6 s of every camera as it was: the healthy cameras' rate and p99, the faulted cameras' own rate. */
        void baseline() throws InterruptedException {
            double t0 = now();
            Pace.holdMillis(6_000, "the baseline's window");
            double t1 = now();
            // the last frames of the window reach the client: a later frame of each camera that streamed in it
            List<String> streamed = new ArrayList<>(List.of(HEALTHY));
            for (String c : cameras) if (count(c, t0, t1) > 0) streamed.add(c);
            Waits.until(() -> streamed.stream().allMatch(c -> count(c, t1, Double.MAX_VALUE) > 0), 2_000, 20);
            before = healthy(t0, t1);
            for (String c : cameras) nominal.put(c, count(c, t0, t1) / ((t1 - t0) / 1000));
        }

        void faultStart(double t) {
            if (Double.isNaN(firstFault)) firstFault = t;
            lastFault = t;
        }

        /** The fault was removed at {@code removed}: waits for each camera's next frame, then {@code tailMs} more. */
        void recover(double removed, long tailMs) throws Exception {
            double last = removed;
            double[] at = new double[cameras.size()];
            for (int i = 0; i < cameras.size(); i++) {
                at[i] = awaitFrameAfter(cameras.get(i), removed, bound + 20_000);
                if (!Double.isNaN(at[i])) last = Math.max(last, at[i]);
            }
            Pace.holdMillis(Math.max(0, (long) (last + tailMs - now())) + 300,
                    "the recovery's tail window, and its last frames reaching the client");
            for (int i = 0; i < cameras.size(); i++) record(cameras.get(i), removed, at[i], last + tailMs);
        }

        /** For a fault whose first good frame was found otherwise (the resolution switch). */
        void recovered(double removed, double at, long tailMs) throws Exception {
            sleepUntil(at + tailMs + 300);
            record(cameras.get(0), removed, at, at + tailMs);
        }

        private void record(String camera, double removed, double at, double until) {
            tries++;
            if (Double.isNaN(at)) {
                recoverMs.add(Double.NaN);
                return;
            }
            recoverMs.add(at - removed);
            steadyMs.add(steady(camera, removed, nominal.getOrDefault(camera, (double) FPS)) - removed);
            double fps = nominal.getOrDefault(camera, (double) FPS);
            expected += fps * (until - lastFault) / 1000;
            received += count(camera, lastFault, until);
        }

        void during(double from, double to) throws Exception {
            if (to - from < 3000) to = from + 3000; // a short window says little
            sleepUntil(to + 500);
            during = healthy(from, to);
            // the cameras' counters now, while their server still runs (its end would add a reconnect of its own)
            for (String c : cameras) {
                JsonObject cam = app.camera(c);
                reconnects += cam.getLong("reconnects", 0L);
                stalls += cam.getLong("stalls", 0L);
            }
        }

        /** Removes the cameras, checks that their threads end, prints the line and asserts. */
        void finish(String more) throws Exception {
            for (String c : cameras) assertEquals(200, app.call(HttpMethod.DELETE, "/api/cameras/" + c, null).status());
            Waits.until(() -> cameraThreads() == 0, 15_000, 100);
            long leftThreads = cameraThreads();
            long fdDelta = fds() - fdsBefore;
            double[] r = recoverMs.stream().filter(x -> !Double.isNaN(x)).mapToDouble(Double::doubleValue).sorted().toArray();
            double[] s = steadyMs.stream().filter(x -> !Double.isNaN(x)).mapToDouble(Double::doubleValue).sorted().toArray();
            long lost = Math.max(0, Math.round(expected - received));
            String line = String.format(Locale.ROOT, "FAULT %s tries=%d recovered=%d recover_ms_p50=%.0f max=%.0f "
                            + "steady_ms_p50=%.0f max=%.0f frames_lost=%d of_expected=%.0f healthy_fps_before=%.2f during=%.2f "
                            + "healthy_p50_ms_before=%.1f during=%.1f healthy_p99_ms_before=%.1f during=%.1f reconnects=%d stalls=%d camera_threads_left=%d fd_delta=%d%s%s",
                    name, tries, r.length, pct(r, 0.5), pct(r, 1), pct(s, 0.5), pct(s, 1), lost, expected,
                    before.fps(), during.fps(), before.p50(), during.p50(), before.p99(), during.p99(), reconnects, stalls, leftThreads, fdDelta, extra, more);
            System.out.println(line);
            summary.add(line);
            assertEquals(tries, r.length, "every try recovered: " + line);
            assertTrue(r[r.length - 1] <= bound, "recovered within " + bound + " ms: " + line);
            assertTrue(during.fps() >= before.fps() * (1 - FPS_TOLERANCE), "healthy cameras' fps held: " + line);
            assertTrue(during.p99() <= P99_FACTOR * before.p99() + P99_SLACK_MS, "healthy cameras' p99 bounded: " + line);
            assertEquals(0, leftThreads, "no camera thread left: " + line);
        }

        private long cameraThreads() {
            return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                    .filter(t -> cameras.stream().anyMatch(c -> t.getName().startsWith("argus-camera-" + c + "-"))).count();
        }
    }

    /** The healthy cameras over [from, to): the lowest frame rate and the highest p50 and p99 latency. */
    Healthy healthy(double from, double to) {
        double fps = Double.MAX_VALUE, p50 = 0, p99 = 0;
        for (String c : HEALTHY) {
            double[] lat = msgs.stream().filter(m -> m.camera().equals(c) && m.captureTime() >= from && m.captureTime() < to)
                    .mapToDouble(Msg::totalMs).sorted().toArray();
            fps = Math.min(fps, lat.length / ((to - from) / 1000));
            p50 = Math.max(p50, pct(lat, 0.5));
            p99 = Math.max(p99, pct(lat, 0.99));
        }
        return new Healthy(fps, p50, p99);
    }

    /** When, after {@code from}, the camera first held 80% of {@code fps} for a second. */
    double steady(String camera, double from, double fps) {
        double[] t = msgs.stream().filter(m -> m.camera().equals(camera) && m.captureTime() > from)
                .mapToDouble(Msg::captureTime).sorted().toArray();
        int need = (int) Math.ceil(0.8 * fps);
        for (int i = 0, j = 0; i < t.length; i++) {
            while (j < t.length && t[j] < t[i] + 1000) j++;
            if (j - i >= need && j < t.length) return t[i];
        }
        return Double.NaN;
    }

    long count(String camera, double from, double to) {
        return msgs.stream().filter(m -> m.camera().equals(camera) && m.captureTime() >= from && m.captureTime() < to).count();
    }

    /** The capture time of the camera's first frame captured after {@code after}, or NaN after {@code timeoutMs}. */
    double awaitFrameAfter(String camera, double after, long timeoutMs) throws InterruptedException {
        return awaitMatch(m -> m.camera().equals(camera) && m.captureTime() > after, timeoutMs);
    }

    double awaitMatch(java.util.function.Predicate<Msg> p, long timeoutMs) throws InterruptedException {
        double[] best = {Double.NaN};
        Waits.until(() -> !Double.isNaN(best[0] = msgs.stream().filter(p).mapToDouble(Msg::captureTime).min().orElse(Double.NaN)),
                timeoutMs, 20);
        return best[0];
    }

    void add(String id, String url, String transport) throws Exception {
        var r = app.call(HttpMethod.POST, "/api/cameras", camera(id, url, transport).encode());
        assertEquals(201, r.status(), r.body());
    }

    static JsonObject camera(String id, String url, String transport) {
        return TestConfig.camera(id, url).put("transport", transport);
    }

    String url(int ns) { return "rtsp://" + net.address(ns) + ":" + PORT + "/test"; }

    static double now() { return System.currentTimeMillis(); }

    static void sleepUntil(double epochMs) throws InterruptedException {
        Pace.holdMillis((long) (epochMs - now()), "until a window's end");
    }

    static double pct(double[] sorted, double q) {
        if (sorted.length == 0) return Double.NaN;
        return sorted[Math.clamp((long) Math.ceil(q * sorted.length) - 1, 0, sorted.length - 1)];
    }

    static long fds() {
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        } catch (IOException e) {
            return -1;
        }
    }

}
