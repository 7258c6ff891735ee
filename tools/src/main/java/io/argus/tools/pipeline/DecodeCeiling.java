package io.argus.tools.pipeline;

import io.argus.pipeline.video.nvdec.NvdecDecoder;
import io.argus.pipeline.video.NvdecRefusal;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.bytedeco.ffmpeg.global.avutil;
import org.bytedeco.javacv.FFmpegFrameGrabber;
import org.bytedeco.javacv.Frame;

/**
 * {@code argus bench pipeline --no-detect}: how many frames per second the host decodes, nothing else. N streams of
 * the benchmark video, each on its own thread, decoded as fast as they go (not paced), looping at the end:
 * {@code nvdec} leaves each picture on the GPU as the NVDEC decoder hands it over (the surface goes back to FFmpeg's
 * pool at once), {@code cpu} decodes to host BGR as the CPU camera path does. The total is the physical ceiling a
 * pipeline result is stated against: at {@code fps} per camera, total / fps streams at the most.
 */
public final class DecodeCeiling {
    /** One count's figures: frames per second in all, per stream, and CPU time. */
    public record Result(String decoder, int streams, double framesPerSecond, double cpuPercentTotal, long failures,
                         String failure) {
        public double perStream() { return framesPerSecond / streams; }
    }

    private final Path video;
    private final String decoder;
    private final int device;
    private final PrintStream out;

    /** {@code decoder}: nvdec or cpu; {@code device}: the CUDA device NVDEC decodes on. */
    public DecodeCeiling(Path video, String decoder, int device, PrintStream out) {
        if (!decoder.equals("nvdec") && !decoder.equals("cpu")) {
            throw new IllegalArgumentException("--decoder: expected nvdec or cpu, found " + decoder);
        }
        this.video = video;
        this.decoder = decoder;
        this.device = device;
        this.out = out;
    }

    /**
     * The longest the measurement waits for every stream's first picture. NVDEC sessions are created a few at a time
     * ({@code NvdecDecoder}'s turns) and each creation took up to seconds with 150 streams decoding; at 128 and 192
     * streams some decoded nothing in a 10 s window after a fixed warm-up.
     */
    static final double START_LIMIT_SECONDS = 180;

    /**
     * Starts {@code streams} threads, waits until every one has decoded its first picture (at most {@link
     * #START_LIMIT_SECONDS}; how long they took is printed), decodes {@code warmup} seconds more, then measures
     * {@code seconds}; {@code paced}: each stream at most {@code fps} pictures a second, as a live camera delivers them
     * (the load of N cameras rather than the most the host decodes).
     */
    public Result run(int streams, double warmup, double seconds, int fps, boolean paced) throws InterruptedException {
        LongAdder frames = new LongAdder();
        LongAdder failures = new LongAdder();
        AtomicReference<String> failure = new AtomicReference<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        LongAdder[] perStream = new LongAdder[streams];
        // when each stream's first picture came (or it failed), 0 until then
        java.util.concurrent.atomic.AtomicLongArray started = new java.util.concurrent.atomic.AtomicLongArray(streams);
        java.util.concurrent.CountDownLatch allStarted = new java.util.concurrent.CountDownLatch(streams);
        long begin = System.nanoTime();
        for (int i = 0; i < streams; i++) {
            String name = "decode" + i;
            int index = i;
            LongAdder mine = perStream[i] = new LongAdder();
            Runnable first = () -> {
                if (started.compareAndSet(index, 0, System.nanoTime())) allStarted.countDown();
            };
            Thread t = Thread.ofPlatform().name(name).start(() -> {
                try {
                    Pacer pacer = paced ? new Pacer(fps) : null;
                    if (decoder.equals("nvdec")) nvdec(name, frames, mine, first, stop, pacer);
                    else cpu(frames, mine, first, stop, pacer);
                } catch (Exception e) {
                    failures.increment();
                    failure.compareAndSet(null, name + ": " + e.getMessage());
                } finally {
                    first.run();   // a stream that failed before its first picture: not waited for
                }
            });
            threads.add(t);
        }
        boolean all = allStarted.await((long) (START_LIMIT_SECONDS * 1000), java.util.concurrent.TimeUnit.MILLISECONDS);
        printStarts(started, begin, all);
        Thread.sleep((long) (warmup * 1000));
        long f0 = frames.sum();
        long[] s0 = java.util.Arrays.stream(perStream).mapToLong(LongAdder::sum).toArray();
        ThreadCpu threadCpu = new ThreadCpu();
        long[] steps = io.argus.pipeline.video.nvdec.DecodeSteps.snapshot();
        long c0 = PipelineBenchmark.processCpuNanos();
        long t0 = System.nanoTime();
        Thread.sleep((long) (seconds * 1000));
        long f1 = frames.sum();
        long[] s1 = java.util.Arrays.stream(perStream).mapToLong(LongAdder::sum).toArray();
        long c1 = PipelineBenchmark.processCpuNanos();
        long t1 = System.nanoTime();
        long[] stepsAfter = io.argus.pipeline.video.nvdec.DecodeSteps.snapshot();
        String osThreads = threadCpu.osSince((t1 - t0) / 1e9, 8);
        stop.set(true);
        for (Thread t : threads) t.join(30_000);
        double wall = (t1 - t0) / 1e9;
        Result r = new Result(decoder, streams, (f1 - f0) / wall, (c1 - c0) / 1e9 / wall * 100, failures.sum(), failure.get());
        out.printf(Locale.ROOT, "decode only, %s%s: %d streams: %.0f frames/s in all, %.1f per stream (%.2fx real time at "
                        + "%d fps) | %.0f streams' worth at %d fps | CPU %.1f%% of a core per stream (%.0f%% total)%s%n",
                decoder, paced ? " (paced at " + fps + " fps)" : "", streams, r.framesPerSecond(), r.perStream(), r.perStream() / fps, fps, r.framesPerSecond() / fps,
                fps, r.cpuPercentTotal() / streams, r.cpuPercentTotal(),
                r.failures() > 0 ? " | " + r.failures() + " streams failed, first: " + r.failure() : "");
        double[] each = new double[streams];
        for (int i = 0; i < streams; i++) each[i] = (s1[i] - s0[i]) / wall;
        java.util.Arrays.sort(each);
        out.printf(Locale.ROOT, "  per stream: min %.1f, 5th percentile %.1f, median %.1f, max %.1f frames/s%n", each[0],
                PipelineBenchmark.percentile(each, 0.05), PipelineBenchmark.percentile(each, 0.5), each[streams - 1]);
        out.printf(Locale.ROOT, "  CPU by OS thread (%% of a core): %s%n", osThreads);
        if (decoder.equals("nvdec")) {
            out.printf(Locale.ROOT, "  NVDEC decoder steps: %s%n",
                    io.argus.pipeline.video.nvdec.DecodeSteps.perPicture(steps, stepsAfter));
        }
        return r;
    }

    /** How long the streams took to their first picture: fewest, median, most seconds, and how many had none. */
    private void printStarts(java.util.concurrent.atomic.AtomicLongArray started, long begin, boolean all) {
        int n = started.length();
        double[] seconds = new double[n];
        int none = 0;
        for (int i = 0; i < n; i++) {
            long at = started.get(i);
            if (at == 0) none++;
            seconds[i] = at == 0 ? START_LIMIT_SECONDS : (at - begin) / 1e9;
        }
        java.util.Arrays.sort(seconds);
        out.printf(Locale.ROOT, "  first picture of each stream after %.2f s (fewest), %.2f s (median), %.2f s (most)%s%n",
                seconds[0], PipelineBenchmark.percentile(seconds, 0.5), seconds[n - 1],
                all ? "" : String.format(Locale.ROOT, "; %d of %d streams had none after %.0f s, measured anyway", none,
                        n, START_LIMIT_SECONDS));
    }

    /** Holds a stream to {@code fps} pictures a second from its start, as a live source would. */
    private static final class Pacer {
        private final long nanosPerPicture;
        private final long start = System.nanoTime();
        private long pictures;

        Pacer(int fps) { this.nanosPerPicture = 1_000_000_000L / fps; }

        void next() throws InterruptedException {
            long due = start + ++pictures * nanosPerPicture;
            long wait = due - System.nanoTime();
            if (wait > 0) Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
    }

    private void nvdec(String name, LongAdder frames, LongAdder mine, Runnable first, AtomicBoolean stop, Pacer pacer)
            throws Exception {
        try (NvdecDecoder d = NvdecDecoder.open(name, device, video.toString(), null)) {
            // the picture stays on the GPU: nothing is enqueued, the surface goes straight back to the pool
            while (!stop.get()) {
                if (pacer != null) pacer.next();
                NvdecDecoder.HeldPicture p = d.next();
                if (p != null) {
                    p.close();
                    frames.increment();
                    mine.increment();
                    first.run();
                } else if (!d.rewind()) {
                    throw new IllegalStateException("cannot rewind " + video);
                }
            }
        }
    }

    private void cpu(LongAdder frames, LongAdder mine, Runnable first, AtomicBoolean stop, Pacer pacer) throws Exception {
        try (FFmpegFrameGrabber g = new FFmpegFrameGrabber(video.toFile())) {
            g.setPixelFormat(avutil.AV_PIX_FMT_BGR24);
            g.setVideoOption("threads", "1");   // as a CPU camera decodes (camera.decoderThreads, default 1)
            g.start();
            while (!stop.get()) {
                if (pacer != null) pacer.next();
                Frame f = g.grabImage();
                if (f == null) g.setTimestamp(0);
                else {
                    frames.increment();
                    mine.increment();
                    first.run();
                }
            }
            g.stop();
        }
    }
}
