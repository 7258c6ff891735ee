package io.argus.pipeline.camera;

import io.argus.detector.backends.Detector;
import io.argus.gpu.CudaRuntime;
import io.argus.pipeline.camera.CameraStats.State;
import io.argus.pipeline.config.ArgusConfig.CameraSettings;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.config.CameraUrl;
import io.argus.pipeline.config.ModelConfig;
import io.argus.pipeline.frames.FrameFate;
import io.argus.pipeline.frames.FramePool;
import io.argus.pipeline.frames.VideoFrame;
import io.argus.pipeline.video.DecoderChoice;
import io.argus.pipeline.video.DecoderMode;
import io.argus.pipeline.video.NvdecPlacement;
import io.argus.pipeline.video.NvdecRefusal;
import io.argus.recording.PacketSink;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.bytedeco.ffmpeg.global.avutil;

/**
 * Reads one camera on its own thread: connect, decode (on the CPU or on NVDEC: {@link FrameDecoder}), hand each
 * frame on, and on failure or stall close and reconnect with backoff, forever.
 *
 * <p>Why a hung camera cannot block the others: nothing shared is held while connecting (each decoder opens its input
 * with FFmpeg's own thread-safe calls). FFmpeg's socket timeout ({@code timeout}, microseconds) ends
 * most hangs; the watchdog ({@link #watchdog(long)}, driven by the camera verticle's timer) ends the rest: it
 * abandons the stuck thread (which exits when FFmpeg finally returns) and starts a fresh one.
 */
final class CameraReader {
    /** Motion mode on a GPU-decoded camera: the least time between two pictures downloaded to look for motion. */
    static final long GPU_MOTION_INTERVAL_MS = 200;
    /** Threads of one camera allowed to be alive at once (the current one plus abandoned ones still in FFmpeg). */
    private static final int MAX_THREADS = 4;
    private static final long WATCHDOG_GRACE_NANOS = 2_000_000_000L;

    private final CameraConfig camera;
    private final ModelConfig model;
    private final CameraUrl source;
    private final CameraSettings settings;
    private final FramePool pool;
    private final CameraStats stats;
    private final Consumer<VideoFrame> sink;
    private final PacketSink packets;
    private final Logger log;

    private final Object lock = new Object();
    private final AtomicInteger liveThreads = new AtomicInteger();
    private final AtomicLong frameNumber = new AtomicLong();
    private volatile boolean stopped;
    private volatile boolean paused;
    private volatile int generation;
    private volatile long attemptStartNanos;
    /** The connection's decoder (the watchdog asks whether it is waiting its turn) and when such a wait last ended. */
    private volatile FrameDecoder activeDecoder;
    private volatile Thread reader;
    private volatile long stallClockFrom;
    /** A file analysed whole waits for the pipeline to take its last frame: not a stall of the camera. */
    private volatile boolean waitingPipeline;
    /** A picture came since this connection opened: until then the wait is bounded by firstFrameTimeoutMs. */
    private volatile boolean pictured;
    private volatile boolean respawnPending;
    private volatile boolean decoderDecided;
    private volatile int nvdecDevice = -1;   // the model's GPU when NVDEC decodes; -1: the CPU decoder
    private volatile int decodingOn = -1;    // the GPU this connection's NVDEC decodes on (NvdecPlacement's choice)
    private final NvdecPlacement placement;

    CameraReader(CameraConfig camera, ModelConfig model, CameraUrl source, CameraSettings settings, FramePool pool,
                 CameraStats stats, Consumer<VideoFrame> sink) {
        this(camera, model, source, settings, pool, stats, sink, PacketSink.NONE);
    }

    /** {@code packets}: where each connection's video packets go before decoding (the recorder). */
    CameraReader(CameraConfig camera, ModelConfig model, CameraUrl source, CameraSettings settings, FramePool pool,
                 CameraStats stats, Consumer<VideoFrame> sink, PacketSink packets) {
        this.packets = packets;
        this.camera = camera;
        this.model = model;
        this.source = source;
        this.settings = settings;
        this.pool = pool;
        this.stats = stats;
        this.sink = sink;
        this.log = System.getLogger("argus.camera." + camera.id());
        this.placement = NvdecPlacement.of(model.id());
    }

    void start() { spawn(generation, false); }

    void stop() {
        stopped = true;
        stats.state = State.STOPPED;
        wake();
    }

    void pause() {
        paused = true;
        wake();
    }

    void resume() {
        paused = false;
        wake();
    }

    boolean paused() { return paused; }

    private void wake() {
        synchronized (lock) {
            lock.notifyAll();
        }
    }

    int liveThreads() { return liveThreads.get(); }

    private boolean waitingDecoder() {
        FrameDecoder d = activeDecoder;
        return d != null && d.waiting();
    }

    /** Called periodically off the camera thread: abandons a connect or a stream that stopped making progress. */
    void watchdog(long now) {
        if (stopped) return;
        if (respawnPending && liveThreads.get() < MAX_THREADS) {
            respawnPending = false;
            spawn(generation, true);
            return;
        }
        State s = stats.state;
        long connectLimit = settings.connectTimeoutMs() * 1_000_000L + WATCHDOG_GRACE_NANOS;
        if (s == State.CONNECTING && now - attemptStartNanos > connectLimit) {
            abandon("connect did not return within " + (connectLimit / 1_000_000) + " ms");
        } else if (s == State.STREAMING && (waitingDecoder() || waitingPipeline)) {
            stallClockFrom = now;   // its turn for a shared decoder resource, or the detector's pace: not a stall
        } else if (s == State.STREAMING) {
            // The first picture waits for a keyframe, which many cameras send only every 4-10 s: a longer bound than
            // a stall of a camera that streamed (NoPicture says why each matters)
            boolean first = !pictured;
            long limitMs = first ? settings.firstFrameTimeoutMs() : settings.stallTimeoutMs();
            if (now - Math.max(stats.lastFrameNanos, stallClockFrom) > limitMs * 1_000_000L) {
                FrameDecoder d = activeDecoder;
                abandon(new NoPicture(first, limitMs, d != null && d.packetsSincePicture(),
                        "udp".equals(source.transport())).describe());
            }
        }
    }

    private void abandon(String why) {
        int g;
        synchronized (lock) {
            g = ++generation;
            lock.notifyAll();
        }
        stats.stalls.increment();
        stats.reconnects.increment();
        stats.lastError = why;
        stats.state = State.BACKOFF;
        log.log(Level.WARNING, "camera {0} ({1}): {2}; reconnecting (the reader was in {3})", camera.id(),
                source.redacted(), why, whereReaderIs());
        if (liveThreads.get() < MAX_THREADS) spawn(g, true);
        else respawnPending = true;
    }

    private void spawn(int gen, boolean backoffFirst) {
        // the connect clock starts now: the thread may take a while to reach its first attempt (loading FFmpeg's
        // libraries, choosing the decoder), and the watchdog, seeing CONNECTING, must not measure from time zero
        attemptStartNanos = System.nanoTime();
        liveThreads.incrementAndGet();
        Thread t = new Thread(() -> run(gen, backoffFirst), "argus-camera-" + camera.id() + "-" + gen);
        t.setDaemon(true);
        reader = t;
        t.start();
    }

    /** The abandoned reader's innermost frames (a native FFmpeg or CUDA call, a lock): what a hang is stuck in. */
    private String whereReaderIs() {
        Thread t = reader;
        if (t == null) return "nothing";
        StackTraceElement[] stack = t.getStackTrace();
        if (stack.length == 0) return "nothing (it ended)";
        return java.util.Arrays.stream(stack).limit(3)
                .map(e -> e.getClassName().substring(e.getClassName().lastIndexOf('.') + 1) + "." + e.getMethodName())
                .collect(java.util.stream.Collectors.joining(" <- "));
    }

    private boolean current(int gen) { return !stopped && gen == generation; }

    /**
     * The recorder as connection {@code gen} may use it: only while that connection is the camera's current one. A
     * reader abandoned by the watchdog returns from FFmpeg later; its last packet, or the end of its stream when it
     * closes, must not reach the recorder in the middle of the next connection's stream.
     */
    private PacketSink packetsWhileCurrent(int gen) {
        if (packets == PacketSink.NONE) return packets;
        return new PacketSink() {
            @Override
            public void streamStarted(org.bytedeco.ffmpeg.avcodec.AVCodecParameters parameters,
                                      org.bytedeco.ffmpeg.avutil.AVRational timeBase) {
                if (current(gen)) packets.streamStarted(parameters, timeBase);
            }

            @Override
            public void packet(org.bytedeco.ffmpeg.avcodec.AVPacket packet, long wallMs) {
                if (current(gen)) packets.packet(packet, wallMs);
            }

            @Override
            public void streamEnded() {
                if (current(gen)) packets.streamEnded();
            }
        };
    }

    private void run(int gen, boolean backoffFirst) {
        Backoff backoff = new Backoff(settings.reconnect(), ThreadLocalRandom.current());
        try {
            if (!decoderChosen()) return;
            if (backoffFirst && !sleepBackoff(gen, backoff)) return;
            while (current(gen)) {
                if (paused) {
                    stats.state = State.PAUSED;
                    synchronized (lock) {
                        while (paused && current(gen)) lock.wait();
                    }
                    continue;
                }
                Outcome o = attempt(gen);
                if (!current(gen)) return;
                if (o == Outcome.GOT_FRAMES) backoff.reset();
                if (paused) continue;
                if (o == Outcome.END_OF_FILE) {
                    stats.state = State.ENDED;
                    synchronized (lock) {
                        while (current(gen) && !paused) lock.wait();
                    }
                    continue;
                }
                if (o == Outcome.RESTART) continue;
                stats.reconnects.increment();
                if (!sleepBackoff(gen, backoff)) return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            stats.lastError = source.scrub(String.valueOf(e.getMessage()));
            log.log(Level.ERROR, "camera " + camera.id() + " reader failed: " + stats.lastError);
        } finally {
            liveThreads.decrementAndGet();
        }
    }

    /**
     * {@code cameras[].decoder}, decided once per reader ({@link DecoderChoice}): NVDEC when the camera's model runs
     * on CUDA (auto) or when asked (nvdec); an explicit nvdec the model cannot use (it runs on the CPU, or CUDA is not
     * usable), or a {@code decodeDevice} that is not one of the model's GPUs, stops the camera with the reason. Which
     * GPU decodes is asked at every connection ({@link NvdecPlacement}). Whether NVDEC takes the stream is known only
     * at open: see {@link #refused}.
     */
    private boolean decoderChosen() {
        if (decoderDecided) return true;
        try {
            boolean mayUseCuda = camera.decoder() != DecoderMode.CPU && model.backend() != Detector.Backend.CPU;
            String cudaProblem = mayUseCuda ? CudaRuntime.problem() : null;
            DecoderChoice c = DecoderChoice.of(camera.id(), camera.decoder(), model.backend(), model.cuda().device(),
                    cudaProblem);
            nvdecDevice = c.nvdec() ? c.device() : -1;
            if (!c.nvdec() && c.reason() != null) fallBack(c.reason().name(), c.detail());
            if (c.nvdec() && camera.decodeDevice() >= 0 && !model.cudaDevices().includes(camera.decodeDevice())) {
                throw new NvdecRefusal(camera.id(), NvdecRefusal.Reason.NOT_THE_MODELS_GPU, "decodeDevice "
                        + camera.decodeDevice() + " is not one of model " + model.id() + "'s GPUs (cuda devices "
                        + model.cudaDevices().describe() + ")");
            }
        } catch (NvdecRefusal e) {
            stats.lastError = e.getMessage();
            stats.state = State.STOPPED;
            log.log(Level.ERROR, e.getMessage());
            return false;
        }
        decoderDecided = true;
        return true;
    }

    /** decoder: auto takes the CPU decoder from now on, counted, with the reason shown in the camera's status. */
    private void fallBack(String reason, String detail) {
        nvdecDevice = -1;
        stats.nvdecFallbacks.increment();
        stats.decoderNote = "cpu decoder (" + reason.toLowerCase(java.util.Locale.ROOT) + "): " + source.scrub(detail);
    }

    /**
     * NVDEC refused the stream at open or at its first picture. An unreachable URL is an ordinary failed connect
     * (back off, retry with NVDEC). Otherwise: auto falls back to the CPU decoder at once; nvdec reports the reason
     * and retries after the backoff (a camera reconfigured at its end may become decodable).
     */
    private Outcome refused(NvdecRefusal e) {
        stats.lastError = source.scrub(e.getMessage());
        if (e.reason() == NvdecRefusal.Reason.OPEN_FAILED) return Outcome.FAILED;
        if (camera.decoder() == DecoderMode.AUTO) {
            fallBack(e.reason().name(), e.getMessage());
            log.log(Level.WARNING, "camera {0} ({1}): {2}; decoding on the CPU", camera.id(), source.redacted(),
                    stats.lastError);
            return Outcome.RESTART;
        }
        log.log(Level.ERROR, stats.lastError);
        return Outcome.FAILED;
    }

    private boolean sleepBackoff(int gen, Backoff backoff) throws InterruptedException {
        long delay = backoff.next();
        stats.nextRetryAtMillis = System.currentTimeMillis() + delay;
        stats.state = State.BACKOFF;
        long until = System.nanoTime() + delay * 1_000_000L;
        synchronized (lock) {
            long left;
            while (current(gen) && !paused && (left = until - System.nanoTime()) > 0) {
                lock.wait(Math.max(1, left / 1_000_000L));
            }
        }
        return current(gen);
    }

    enum Outcome { FAILED, GOT_FRAMES, END_OF_FILE, RESTART }

    /** One connection, on the GPU {@link NvdecPlacement} gives it for NVDEC (asked again at every connection). */
    private Outcome attempt(int gen) {
        int device = nvdecDevice >= 0 ? placement.take(camera.decodeDevice(), nvdecDevice) : -1;
        decodingOn = device;
        try {
            PacketSink ours = packetsWhileCurrent(gen);
            return attempt(gen, device >= 0 ? new NvdecFrameDecoder(camera.id(), source, settings, device, pool, ours)
                    : new CpuFrameDecoder(source, settings, pool, ours));
        } finally {
            decodingOn = -1;
            if (device >= 0) placement.release(device);
        }
    }

    private Outcome attempt(int gen, FrameDecoder d) {
        long t0 = System.nanoTime();
        attemptStartNanos = t0;
        stats.nextRetryAtMillis = 0;
        stats.state = State.CONNECTING;
        activeDecoder = d;
        try (d) {
            d.open();
            if (!current(gen)) return Outcome.FAILED;
            stats.lastConnectMs = (System.nanoTime() - t0) / 1e6;
            stats.lastFrameNanos = System.nanoTime();
            pictured = false;
            stats.state = State.STREAMING;
            stats.decoder = d.name();
            log.log(Level.INFO, "camera {0} ({1}): connected in {2} ms, {3}x{4}, {5} decoder{6}", camera.id(),
                    source.redacted(), Math.round(stats.lastConnectMs), d.width(), d.height(), d.name(),
                    decodingOn >= 0 ? " on GPU " + decodingOn : "");
            return stream(d, gen);
        } catch (NvdecRefusal e) {
            return current(gen) ? refused(e) : Outcome.FAILED;
        } catch (Exception e) {
            if (current(gen)) {
                // scrubbed first: a secret query value is cut to the end of the text, which would take the words with it
                stats.lastError = readable(source.scrub(e.getMessage()));
                log.log(Level.WARNING, "camera {0} ({1}): {2}", camera.id(), source.redacted(), stats.lastError);
            }
            return Outcome.FAILED;
        }
    }

    private static final java.util.regex.Pattern FFMPEG_CALL =
            java.util.regex.Pattern.compile("^(\\w+)\\(\\) error (-?\\d+): (.*)$", java.util.regex.Pattern.DOTALL);
    private static final java.util.regex.Pattern FFMPEG_CODE = java.util.regex.Pattern.compile("error (-\\d+)");

    /**
     * JavaCV's message in words: FFmpeg's text for the error code first ({@code av_strerror}: -111 is "Connection
     * refused", -1094995529 "Invalid data found when processing input"), the call and its number last, for a search;
     * JavaCV's generic hints dropped.
     */
    static String readable(String message) {
        if (message == null) return "unknown error";
        String m = message.replace(" (Has setFormat() been called?)", "")
                .replace(" (For more details, make sure FFmpegLogCallback.set() has been called.)", "").strip();
        java.util.regex.Matcher call = FFMPEG_CALL.matcher(m);
        if (call.matches()) {
            String words = ffmpegWords(Integer.parseInt(call.group(2)));
            String what = call.group(3).strip();
            if (what.endsWith(".")) what = what.substring(0, what.length() - 1);
            if (words == null) return m;
            return what + ": " + words + " (FFmpeg " + call.group(1) + "() error " + call.group(2) + ")";
        }
        java.util.regex.Matcher code = FFMPEG_CODE.matcher(m);
        if (code.find()) {
            String words = ffmpegWords(Integer.parseInt(code.group(1)));
            if (words != null) m = m + " [" + words + "]";
        }
        return m;
    }

    /** FFmpeg's words for an error code, or null when it has none. */
    static String ffmpegWords(int code) {
        if (code >= 0) return null;
        byte[] buf = new byte[256];
        if (avutil.av_strerror(code, buf, buf.length) != 0) return null;
        int n = 0;
        while (n < buf.length && buf[n] != 0) n++;
        return new String(buf, 0, n, java.nio.charset.StandardCharsets.UTF_8);
    }

    private Outcome stream(FrameDecoder d, int gen) throws Exception {
        boolean any = false;
        boolean sinceRewind = true;   // a picture came since the last rewind (else the file cannot be replayed)
        Pacer pacer = camera.realtime() && !source.live() ? new Pacer() : null;
        boolean wholeFile = !camera.realtime() && !source.live();
        HandOff previous = null;
        while (current(gen) && !paused) {
            int gpu = decodingOn;
            if (gpu >= 0 && !placement.serves(gpu)) {
                // the model's GPU was taken out: its pictures could no longer be detected; reconnect onto another
                stats.lastError = "GPU " + gpu + " no longer runs model " + model.id() + ": decoding moves to another";
                log.log(Level.WARNING, "camera {0}: {1}", camera.id(), stats.lastError);
                return Outcome.RESTART;
            }
            long t0 = System.nanoTime();
            boolean got = d.decode();
            long t1 = System.nanoTime();
            if (!current(gen)) break;
            if (!got) {
                if (source.live()) {
                    stats.lastError = "stream ended";
                    return any ? Outcome.GOT_FRAMES : Outcome.FAILED;
                }
                if (!camera.loop()) return Outcome.END_OF_FILE;
                if (!any) return Outcome.FAILED; // an empty file: do not spin
                if (!sinceRewind || !d.rewind()) {
                    // not seekable (a pipe whose writer went away): open it again, as a reconnect
                    stats.reconnects.increment();
                    stats.lastError = "end of a stream that cannot be replayed; reopening";
                    return Outcome.RESTART;
                }
                sinceRewind = false;
                continue;
            }
            sinceRewind = true;
            if (!pictured) firstPicture(t1);
            stats.decoded.increment();
            stats.decodeNanos.addAndGet(t1 - t0);
            stats.lastFrameNanos = t1;
            long pts = d.ptsMicros();
            if (pacer != null && !pacer.await(pts, gen)) break;
            if (wholeFile) {
                if (previous != null && !previous.awaitLeft(gen)) break;
                if (!awaitPoolRoom(gen)) break;
                previous = new HandOff();
            }
            if (!emit(d, pts, (t1 - t0) / 1e6, previous)) previous = null;   // let go: nothing to wait for
            any = true;
        }
        return any ? Outcome.GOT_FRAMES : Outcome.FAILED;
    }

    /** The connection's first picture: the camera streams again, so the last failure is no longer its state. */
    private void firstPicture(long nanos) {
        pictured = true;
        stats.lastFirstPictureMs = (nanos - attemptStartNanos) / 1e6;
        if (stats.lastError != null) {
            log.log(Level.INFO, "camera {0} ({1}): streaming again, first picture {2} ms after connecting (last error: "
                    + "{3})", camera.id(), source.redacted(), Math.round(stats.lastFirstPictureMs), stats.lastError);
        }
        stats.lastError = null;
    }

    /**
     * A file analysed whole: up to the stall timeout for a pixel buffer to come back when all of the camera's are in
     * flight (held by detection, the snapshot encoder or an event's picture), so that the frame is not let go for want
     * of one; after that it is let go and counted, as a live camera's. False when the reader was stopped or paused.
     */
    private boolean awaitPoolRoom(int gen) throws InterruptedException {
        long deadline = System.nanoTime() + settings.stallTimeoutMs() * 1_000_000L;
        waitingPipeline = true;
        try {
            while (current(gen) && !paused && System.nanoTime() < deadline && !pool.awaitRoom(50)) {
                // the pool's wait is short so that a stop or pause is seen here
            }
        } finally {
            waitingPipeline = false;
        }
        return current(gen) && !paused;
    }

    /**
     * The fate of a file's frame analysed whole: the reader sends the next frame only once the batcher took this one,
     * so a slow detector slows the file down instead of dropping its frames. Should the frame not be taken within the
     * stall timeout (no detector is running the camera's model), the reader goes on and the frame is superseded and
     * counted as a live camera's would be: a missing consumer cannot hang the camera.
     */
    private final class HandOff implements FrameFate {
        private boolean left;   // guarded by lock

        @Override
        public void superseded() {
            stats.superseded();
            leave();
        }

        @Override
        public void taken() { leave(); }

        private void leave() {
            synchronized (lock) {
                left = true;
                lock.notifyAll();
            }
        }

        /** Waits until the frame left the batcher's queue; false when the reader was stopped or paused meanwhile. */
        boolean awaitLeft(int gen) throws InterruptedException {
            long deadline = System.nanoTime() + settings.stallTimeoutMs() * 1_000_000L;
            waitingPipeline = true;
            try {
                synchronized (lock) {
                    long left;
                    while (!this.left && current(gen) && !paused && (left = deadline - System.nanoTime()) > 0) {
                        lock.wait(Math.max(1, left / 1_000_000L));
                    }
                }
            } finally {
                waitingPipeline = false;
            }
            return current(gen) && !paused;
        }
    }

    /** Hands the decoded picture on as a frame; false when it was let go (every pixel buffer in flight). */
    private boolean emit(FrameDecoder d, long ptsMicros, double decodeMs, FrameFate fate) {
        stats.width = d.width();
        stats.height = d.height();
        Instant now = Instant.now();
        double captureMs = now.getEpochSecond() * 1000.0 + now.getNano() / 1e6;
        VideoFrame frame = d.take(new FrameDecoder.FrameStamp(camera.id(), frameNumber.get(), ptsMicros / 1000.0,
                captureMs, System.nanoTime(), decodeMs, fate != null ? fate : stats::superseded));
        if (frame == null) {
            stats.droppedPool.increment();
            return false;
        }
        frameNumber.incrementAndGet();
        stats.emitted.increment();
        if (packets.wantsPictures()) showForMotion(frame, Math.round(captureMs));
        sink.accept(frame);
        return true;
    }

    /** When the last GPU picture was shown to the recorder (nanoTime); reader thread only. */
    private long lastGpuMotionNanos;

    /**
     * Motion mode: the recorder looks at the picture before detection has it. A host picture costs a grid of reads; a
     * picture on the GPU must come down first, so one in {@link #GPU_MOTION_INTERVAL_MS} is looked at.
     */
    private void showForMotion(VideoFrame frame, long wallMs) {
        if (frame.onGpu()) {
            long now = System.nanoTime();
            if (now - lastGpuMotionNanos < GPU_MOTION_INTERVAL_MS * 1_000_000L) return;
            lastGpuMotionNanos = now;
        }
        try {
            io.argus.detector.BgrImage image = frame.image();
            packets.picture(image.pixels(), image.width(), image.height(), image.stride(), wallMs);
        } catch (RuntimeException e) {
            // motion is the recording's business: a picture it cannot read must not stop detection
            log.log(Level.DEBUG, "camera {0}: motion not looked for in frame {1}: {2}", camera.id(), frame.number(), e.getMessage());
        }
    }

    /** Real-time pacing of a file: each frame leaves at its presentation time relative to the first. */
    private final class Pacer {
        private long baseNanos = -1;
        private long basePtsUs;
        private long lastPtsUs;
        private long lastDueNanos;
        private long frameIntervalUs = 33_333;

        /** Sleeps until frame {@code ptsUs} is due; false when the reader was stopped or paused meanwhile. */
        boolean await(long ptsUs, int gen) throws InterruptedException {
            long now = System.nanoTime();
            if (baseNanos < 0) {
                rebase(now, ptsUs);
            } else if (ptsUs <= lastPtsUs) {
                // the file looped (or timestamps jumped back): continue one frame interval after the last frame
                rebase(lastDueNanos + frameIntervalUs * 1000L, ptsUs);
            } else {
                frameIntervalUs = Math.clamp(ptsUs - lastPtsUs, 1_000L, 200_000L);
            }
            long due = baseNanos + (ptsUs - basePtsUs) * 1000L;
            if (now - due > 1_000_000_000L) { // more than a second late: do not burst to catch up
                // Logged: the camera's frames now fall at another phase against the other cameras', which changes
                // how they meet in batches and so the latency (a soak's p99 can step with it).
                log.log(Level.INFO, "camera {0}: {1} ms behind its file''s timing; pacing goes on from now",
                        new Object[] {camera.id(), (now - due) / 1_000_000L});
                rebase(now, ptsUs);
                due = now;
            }
            lastPtsUs = ptsUs;
            lastDueNanos = due;
            synchronized (lock) {
                long left;
                while (current(gen) && !paused && (left = due - System.nanoTime()) > 0) {
                    lock.wait(left / 1_000_000L, (int) (left % 1_000_000L));
                }
            }
            return current(gen) && !paused;
        }

        private void rebase(long nanos, long ptsUs) {
            baseNanos = nanos;
            basePtsUs = ptsUs;
        }
    }
}
