package io.argus.pipeline.camera;

import io.argus.detector.BgrImage;
import io.argus.pipeline.camera.CameraStats.State;
import io.argus.pipeline.config.ArgusConfig.CameraSettings;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.frames.FramePool;
import io.argus.pipeline.frames.VideoFrame;
import io.argus.pipeline.video.DecoderMode;
import io.argus.pipeline.video.nvdec.NvdecRefusal;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.bytedeco.ffmpeg.global.avutil;
import org.bytedeco.javacv.FFmpegFrameGrabber;
import org.bytedeco.javacv.Frame;

/**
 * Reads one camera on its own thread: connect, decode, hand each frame on, and on failure or stall close and
 * reconnect with backoff, forever.
 *
 * <p>Why a hung camera cannot block the others: JavaCV's {@code start()}/{@code release()} synchronise on one global
 * monitor, so a connect that never returns would stall every camera's (re)connect. We call
 * {@code startUnsafe()}/{@code releaseUnsafe()} instead (FFmpeg 8's open functions are thread-safe; each grabber is
 * used by one thread only), and hold nothing shared while connecting. FFmpeg's socket timeout ({@code timeout},
 * microseconds) ends most hangs; the watchdog ({@link #watchdog(long)}, driven by the camera verticle's timer) ends
 * the rest: it abandons the stuck thread (which exits when FFmpeg finally returns) and starts a fresh one.
 */
final class CameraReader {
    /** Threads of one camera allowed to be alive at once (the current one plus abandoned ones still in FFmpeg). */
    private static final int MAX_THREADS = 4;
    private static final long WATCHDOG_GRACE_NANOS = 2_000_000_000L;

    private final CameraConfig camera;
    private final CameraUrl source;
    private final CameraSettings settings;
    private final FramePool pool;
    private final CameraStats stats;
    private final Consumer<VideoFrame> sink;
    private final Logger log;

    private final Object lock = new Object();
    private final AtomicInteger liveThreads = new AtomicInteger();
    private final AtomicLong frameNumber = new AtomicLong();
    private volatile boolean stopped;
    private volatile boolean paused;
    private volatile int generation;
    private volatile long attemptStartNanos;
    private volatile boolean respawnPending;

    CameraReader(CameraConfig camera, CameraUrl source, CameraSettings settings, FramePool pool, CameraStats stats,
                 Consumer<VideoFrame> sink) {
        this.camera = camera;
        this.source = source;
        this.settings = settings;
        this.pool = pool;
        this.stats = stats;
        this.sink = sink;
        this.log = System.getLogger("argus.camera." + camera.id());
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
        } else if (s == State.STREAMING && now - stats.lastFrameNanos > settings.stallTimeoutMs() * 1_000_000L) {
            abandon("no frame for " + settings.stallTimeoutMs() + " ms");
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
        log.log(Level.WARNING, "camera {0} ({1}): {2}; reconnecting", camera.id(), source.redacted(), why);
        if (liveThreads.get() < MAX_THREADS) spawn(g, true);
        else respawnPending = true;
    }

    private void spawn(int gen, boolean backoffFirst) {
        liveThreads.incrementAndGet();
        Thread t = new Thread(() -> run(gen, backoffFirst), "argus-camera-" + camera.id() + "-" + gen);
        t.setDaemon(true);
        t.start();
    }

    private boolean current(int gen) { return !stopped && gen == generation; }

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
     * {@code cameras[].decoder}: the NVDEC decoder (video/nvdec) decodes and converts on the GPU, but its frames do
     * not reach the live batcher yet, so {@code nvdec} refuses the camera with that reason (rather than pretending),
     * and {@code auto} takes the CPU decoder and counts the fallback.
     */
    private boolean decoderChosen() {
        NvdecRefusal why = new NvdecRefusal(camera.id(), NvdecRefusal.Reason.NOT_WIRED,
                "NVDEC frames are not wired into the live batcher yet; use decoder: cpu or auto");
        if (camera.decoder() == DecoderMode.NVDEC) {
            stats.lastError = why.getMessage();
            stats.state = State.STOPPED;
            log.log(Level.ERROR, why.getMessage());
            return false;
        }
        if (camera.decoder() == DecoderMode.AUTO && stats.decoderNote == null) {
            stats.nvdecFallbacks.increment();
            stats.decoderNote = "cpu decoder: " + why.reason().name().toLowerCase(java.util.Locale.ROOT);
        }
        return true;
    }

    private boolean sleepBackoff(int gen, Backoff backoff) throws InterruptedException {
        long delay = backoff.next();
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

    private Outcome attempt(int gen) {
        FFmpegFrameGrabber g = newGrabber();
        long t0 = System.nanoTime();
        attemptStartNanos = t0;
        stats.state = State.CONNECTING;
        try {
            g.startUnsafe(true);
            if (!current(gen)) return Outcome.FAILED;
            stats.lastConnectMs = (System.nanoTime() - t0) / 1e6;
            stats.lastFrameNanos = System.nanoTime();
            stats.state = State.STREAMING;
            log.log(Level.INFO, "camera {0} ({1}): connected in {2} ms, {3}x{4}", camera.id(), source.redacted(),
                    Math.round(stats.lastConnectMs), g.getImageWidth(), g.getImageHeight());
            return stream(g, gen);
        } catch (Exception e) {
            if (current(gen)) {
                stats.lastError = source.scrub(readable(e.getMessage()));
                log.log(Level.WARNING, "camera {0} ({1}): {2}", camera.id(), source.redacted(), stats.lastError);
            }
            return Outcome.FAILED;
        } finally {
            try {
                g.releaseUnsafe();
            } catch (Exception e) {
                log.log(Level.DEBUG, "camera {0}: release failed: {1}", camera.id(), source.scrub(e.getMessage()));
            }
        }
    }

    /** JavaCV's message without its generic hints, with FFmpeg's text for the error code ("error -111" = refused). */
    static String readable(String message) {
        if (message == null) return "unknown error";
        String m = message.replace(" (Has setFormat() been called?)", "")
                .replace(" (For more details, make sure FFmpegLogCallback.set() has been called.)", "").strip();
        java.util.regex.Matcher code = java.util.regex.Pattern.compile("error (-\\d+)").matcher(m);
        if (code.find()) {
            byte[] buf = new byte[256];
            if (avutil.av_strerror(Integer.parseInt(code.group(1)), buf, buf.length) == 0) {
                int n = 0;
                while (n < buf.length && buf[n] != 0) n++;
                m = m + " [" + new String(buf, 0, n, java.nio.charset.StandardCharsets.UTF_8) + "]";
            }
        }
        return m;
    }

    private FFmpegFrameGrabber newGrabber() {
        FFmpegFrameGrabber g = new FFmpegFrameGrabber(source.input());
        if (source.format() != null) g.setFormat(source.format());
        g.setPixelFormat(avutil.AV_PIX_FMT_BGR24);
        g.setOption("protocol_whitelist", source.protocolWhitelist());
        String timeoutUs = Long.toString(settings.connectTimeoutMs() * 1000L);
        switch (source.kind()) {
            case RTSP -> {
                g.setOption("rtsp_transport", source.transport());
                g.setOption("timeout", timeoutUs);          // socket I/O timeout, microseconds
                g.setOption("analyzeduration", "1000000");  // start quickly: one second of probing at most
                g.setOption("fflags", "nobuffer");
                g.setOption("allowed_media_types", "video");
            }
            case FILE, SAMPLE -> g.setOption("format_whitelist", CameraUrl.FILE_FORMATS);
            case USB -> { }
        }
        if (settings.decoderThreads() > 0) g.setVideoOption("threads", Integer.toString(settings.decoderThreads()));
        return g;
    }

    private Outcome stream(FFmpegFrameGrabber g, int gen) throws Exception {
        boolean any = false;
        Pacer pacer = camera.realtime() && !source.live() ? new Pacer() : null;
        while (current(gen) && !paused) {
            long t0 = System.nanoTime();
            Frame f = g.grabImage();
            long t1 = System.nanoTime();
            if (!current(gen)) break;
            if (f == null) {
                if (source.live()) {
                    stats.lastError = "stream ended";
                    return any ? Outcome.GOT_FRAMES : Outcome.FAILED;
                }
                if (!camera.loop()) return Outcome.END_OF_FILE;
                if (!any) return Outcome.FAILED; // an empty file: do not spin
                try {
                    g.setTimestamp(0L);
                } catch (Exception e) {
                    return Outcome.RESTART;
                }
                continue;
            }
            if (f.image == null || f.image[0] == null) continue;
            stats.decoded.increment();
            stats.decodeNanos.addAndGet(t1 - t0);
            stats.lastFrameNanos = t1;
            if (pacer != null && !pacer.await(f.timestamp, gen)) break;
            emit(f, (t1 - t0) / 1e6);
            any = true;
        }
        return any ? Outcome.GOT_FRAMES : Outcome.FAILED;
    }

    private void emit(Frame f, double decodeMs) {
        int w = f.imageWidth;
        int h = f.imageHeight;
        int stride = f.imageStride;
        int bytes = stride * h;
        stats.width = w;
        stats.height = h;
        ByteBuffer buf = pool.acquire(bytes);
        if (buf == null) {
            stats.droppedPool.increment();
            return;
        }
        ByteBuffer src = (ByteBuffer) f.image[0];
        buf.put(0, src, 0, bytes);
        Instant now = Instant.now();
        double captureMs = now.getEpochSecond() * 1000.0 + now.getNano() / 1e6;
        VideoFrame frame = new VideoFrame(camera.id(), frameNumber.getAndIncrement(), f.timestamp / 1000.0, captureMs,
                System.nanoTime(), decodeMs, new BgrImage(w, h, stride, buf.slice(0, bytes)), pool, buf,
                stats::superseded);
        stats.emitted.increment();
        sink.accept(frame);
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
