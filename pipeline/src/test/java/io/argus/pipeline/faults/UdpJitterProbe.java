package io.argus.pipeline.faults;

import io.argus.pipeline.config.CameraUrl;
import io.argus.pipeline.faults.ImpairmentRelay.Impairment;
import io.argus.pipeline.testing.NetworkNamespaces;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Pace;
import io.argus.testkit.Waits;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bytedeco.ffmpeg.avutil.LogCallback;
import org.bytedeco.ffmpeg.global.avutil;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacv.FFmpegFrameGrabber;
import org.bytedeco.javacv.Frame;

/**
 * An experiment, not a test (it measures and asserts nothing; {@code scripts/udp-jitter-probe.sh CASES} runs it, as root
 * for the network namespace): where the frames of a UDP camera behind {@link ImpairmentRelay}'s jitter go (docs/reliability.md, "UDP behind jitter"). Same server, stream,
 * relay and kernel loss as {@link CameraNetworkFaultsTest#lossDelayAndJitterForAMinute}, but the RTSP client is
 * either FFmpeg through JavaCV with Argus' own input options ({@link CameraUrl#inputOptions}, as
 * {@code CpuFrameDecoder} opens a camera; {@code javacv}) or Debian's ffmpeg CLI ({@code cli}), and FFmpeg's log
 * messages are counted.
 *
 * <p>CASES: comma-separated {@code ENGINE/dDELAYjJITTERlLOSS[/opt=value;opt=value]}, e.g.
 * {@code javacv/d200j50l10,cli/d200j50l10,javacv/d200j50l10/reorder_queue_size=0}; loss is by nftables (percent).
 * Options go to FFmpeg's format context ({@code v:NAME} to the video decoder), except {@code jcv:maxDelay=US}: JavaCV's
 * {@code setMaxDelay}, which JavaCV writes into {@code AVFormatContext.max_delay} after opening.
 * {@code --seconds N} (default 30) is the impaired window. Each case prints one {@code PROBE} line:
 * frames delivered per second during the window, how many frame timestamps are missing between the first and the
 * last frame of the window, the relay's datagram counts, the kernel's drops and the counted FFmpeg messages.
 */
final class UdpJitterProbe {
    static final int PORT = 8554;
    static final Pattern CASE = Pattern.compile("(javacv|cli)/d(\\d+)j(\\d+)l(\\d+)(?:/(.*))?");
    static final Map<String, AtomicLong> LOG = new ConcurrentHashMap<>();
    static final List<String> SAMPLES = new CopyOnWriteArrayList<>();
    static LogCallback callback;

    private UdpJitterProbe() {}

    record Shot(long wallMs, long ptsUs, boolean key) {}

    /** {@code [--seconds N] CASES}: prints a PROBE line per case, then all of them; exit 2 when it cannot run here. */
    public static void main(String[] args) throws Exception {
        String cases = null;
        int seconds = 30;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--seconds") && i + 1 < args.length) seconds = Integer.parseInt(args[++i]);
            else if (cases == null && !args[i].startsWith("-")) cases = args[i];
            else cases = "";
        }
        if (cases == null || cases.isEmpty()) {
            System.err.println("usage: UdpJitterProbe [--seconds N] CASES   (CASES: " + CASE + ", comma-separated)");
            System.exit(2);
        }
        String why = NetworkNamespaces.unavailable();
        if (why == null) why = NamespacedServer.rtspUnavailable();
        if (why != null) {
            System.err.println("udp-jitter-probe: cannot run here: " + why);
            System.exit(2);
        }
        probe(cases, seconds);
        System.exit(0);   // FFmpeg's and Vert.x's threads would keep the JVM
    }

    static void probe(String cases, int seconds) throws Exception {
        Path video = TestMedia.h264(320, 240, FaultMedia.FPS, 600);
        List<String> lines = new ArrayList<>();
        try (NetworkNamespaces net = NetworkNamespaces.create(1);
             NamespacedServer server = NamespacedServer.rtsp(net, 1, PORT, video)) {
            for (String c : cases.split(",")) {
                Matcher m = CASE.matcher(c.strip());
                if (!m.matches()) throw new IllegalArgumentException("case " + c + " is not " + CASE);
                Map<String, String> extra = new TreeMap<>();
                if (m.group(5) != null) {
                    for (String kv : m.group(5).split(";")) {
                        String[] p = kv.split("=", 2);
                        extra.put(p[0], p[1]);
                    }
                }
                String line = run(net, m.group(1), new Impairment(Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)), 0),
                        Integer.parseInt(m.group(4)), extra, seconds, c.strip());
                System.out.println(line);
                lines.add(line);
            }
        }
        System.out.println("PROBE SUMMARY\n" + String.join("\n", lines));
    }

    private static String run(NetworkNamespaces net, String engine, Impairment imp, int lossPct, Map<String, String> extra,
                       int seconds, String name) throws Exception {
        LOG.clear();
        SAMPLES.clear();
        List<Shot> shots = new CopyOnWriteArrayList<>();
        try (ImpairmentRelay relay = new ImpairmentRelay(net.address(1), PORT)) {
            String url = "rtsp://127.0.0.1:" + relay.port() + "/test";
            Thread reader;
            Process cli = null;
            FFmpegFrameGrabber[] grabber = new FFmpegFrameGrabber[1];
            long[] ocMaxDelay = {Long.MIN_VALUE};
            if (engine.equals("javacv")) {
                installLog();
                FFmpegFrameGrabber g = new FFmpegFrameGrabber(url);
                grabber[0] = g;
                g.setFormat("rtsp");
                g.setPixelFormat(avutil.AV_PIX_FMT_BGR24);
                CameraUrl.parse(url, "udp", Path.of(".")).inputOptions(5000).forEach(g::setOption);
                extra.forEach((k, v) -> {
                    if (k.startsWith("v:")) g.setVideoOption(k.substring(2), v);
                    else if (k.equals("jcv:maxDelay")) g.setMaxDelay(Integer.parseInt(v)); // JavaCV's own field
                    else g.setOption(k, v);
                });
                g.startUnsafe(true);
                // what the RTSP demuxer waits for a missing packet while it reads (JavaCV sets it after the open)
                ocMaxDelay[0] = g.getFormatContext().max_delay();
                reader = new Thread(() -> {
                    try {
                        Frame f;
                        while ((f = g.grabImage()) != null) {
                            if (f.image == null || f.image[0] == null) continue;
                            shots.add(new Shot(System.currentTimeMillis(), f.timestamp, f.keyFrame));
                        }
                    } catch (Exception e) {
                        SAMPLES.add("reader ended: " + e);
                    }
                }, "probe-reader");
            } else {
                List<String> cmd = new ArrayList<>(List.of("ffmpeg", "-hide_banner", "-nostats", "-loglevel", "verbose",
                        "-rtsp_transport", "udp", "-analyzeduration", "1000000", "-fflags", "nobuffer"));
                extra.forEach((k, v) -> cmd.addAll(List.of("-" + k, v)));
                cmd.addAll(List.of("-i", url, "-an", "-vf", "showinfo", "-f", "null", "-"));
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
                cli = p;
                Pattern info = Pattern.compile("Parsed_showinfo.* n: *\\d+ pts: *(\\d+) .*pts_time:([0-9.]+).*iskey:(\\d)");
                reader = new Thread(() -> {
                    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
                        String l;
                        while ((l = r.readLine()) != null) {
                            Matcher im = info.matcher(l);
                            if (im.find()) {
                                shots.add(new Shot(System.currentTimeMillis(), Math.round(Double.parseDouble(im.group(2)) * 1e6),
                                        im.group(3).equals("1")));
                            } else if (!l.contains("Parsed_showinfo")) {
                                count(l.replaceFirst("^\\[[^]]*\\] ", ""));
                            }
                        }
                    } catch (Exception e) {
                        SAMPLES.add("reader ended: " + e);
                    }
                }, "probe-cli-reader");
            }
            reader.setDaemon(true);
            reader.start();
            try {
                if (!Waits.until(() -> !shots.isEmpty(), 30_000, 50)) return "PROBE " + name + " never streamed " + SAMPLES;
                Pace.holdMillis(3000, "three seconds of the stream before the impairment");
                long beforeFrom = System.currentTimeMillis() - 3000;
                double fpsBefore = inWindow(shots, beforeFrom, System.currentTimeMillis()).size() / 3.0;
                LOG.clear();
                long r0 = relay.udpReceived.get(), s0 = relay.udpSent.get();
                KernelLoss loss = lossPct > 0 ? KernelLoss.apply(net, 1, lossPct) : null;
                long from = System.currentTimeMillis();
                relay.impair(imp);
                long dropped = 0;
                try {
                    Pace.hold(java.time.Duration.ofSeconds(seconds), "the impaired window");
                } finally {
                    relay.impair(Impairment.NONE);
                    if (loss != null) {
                        dropped = loss.dropped();
                        loss.close();
                    }
                }
                long to = System.currentTimeMillis();
                Pace.holdMillis(1000, "what the relay held drains");
                List<Shot> w = inWindow(shots, from, to);
                long missing = 0, key = 0;
                for (int i = 1; i < w.size(); i++) {
                    long gap = Math.round((w.get(i).ptsUs() - w.get(i - 1).ptsUs()) / (1e6 / FaultMedia.FPS));
                    if (gap > 1) missing += gap - 1;
                }
                for (Shot s : w) if (s.key()) key++;
                StringBuilder msgs = new StringBuilder();
                new TreeMap<>(LOG).forEach((k, v) -> msgs.append(String.format(Locale.ROOT, " [%d] %s;", v.get(), k)));
                return String.format(Locale.ROOT, "PROBE %s%s fps_before=%.1f fps_during=%.1f frames=%d missing_pts_in_window=%d "
                                + "keyframes=%d relay_in=%d relay_out=%d relay_max_late_ms=%.1f kernel_dropped=%d msgs:%s",
                        name, ocMaxDelay[0] == Long.MIN_VALUE ? "" : " oc_max_delay_us=" + ocMaxDelay[0], fpsBefore, w.size() / ((to - from) / 1000.0), w.size(), missing, key,
                        relay.udpReceived.get() - r0, relay.udpSent.get() - s0, relay.udpMaxLateMicros.get() / 1000.0,
                        dropped, msgs);
            } finally {
                if (grabber[0] != null) {
                    try {
                        grabber[0].releaseUnsafe();
                    } catch (Exception ignored) {
                        // closed
                    }
                }
                if (cli != null) cli.destroyForcibly().waitFor();
                reader.join(5000);
            }
        }
    }

    private static List<Shot> inWindow(List<Shot> shots, long from, long to) {
        return shots.stream().filter(s -> s.wallMs() >= from && s.wallMs() < to).toList();
    }

    /** A message with its numbers replaced by N, counted. */
    static void count(String msg) {
        String k = msg.strip().replaceAll("0x[0-9a-f]+", "X");
        if (!k.contains("jitter buffer size")) k = k.replaceAll("-?\\d+", "N");
        if (k.isEmpty()) return;
        LOG.computeIfAbsent(k, x -> new AtomicLong()).incrementAndGet();
    }

    private static synchronized void installLog() {
        if (callback != null) return;
        callback = new LogCallback() {
            @Override
            public void call(int level, BytePointer msg) {
                if (level <= avutil.AV_LOG_VERBOSE) count(msg.getString());
            }
        };
        avutil.av_log_set_level(avutil.AV_LOG_VERBOSE);
        avutil.setLogCallback(callback);
    }
}
