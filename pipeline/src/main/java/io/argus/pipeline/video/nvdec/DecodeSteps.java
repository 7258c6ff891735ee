package io.argus.pipeline.video.nvdec;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where a camera thread's time goes inside {@link NvdecDecoder#next}, summed over every decoder of the process: wall
 * and CPU time (the calling thread's) of each FFmpeg call. Off unless a benchmark turns it on: it costs two clock
 * reads per call. It answers what a profiler would on a host without one: whether the CPU per frame is spent in
 * reading packets, in FFmpeg's NVDEC calls (decode, map, copy) or in waiting for the copy, and whether it is a wait
 * (wall &gt;&gt; CPU) or a spin (CPU close to wall).
 */
public final class DecodeSteps {
    /** The steps of one picture, in the order they happen. */
    public enum Step { READ, SEND, RECEIVE, COPY_WAIT }

    private static volatile boolean enabled;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final LongAdder[] WALL = adders();
    private static final LongAdder[] CPU = adders();
    private static final LongAdder[] CALLS = adders();
    private static final LongAdder PICTURES = new LongAdder();

    private DecodeSteps() {}

    private static LongAdder[] adders() {
        LongAdder[] a = new LongAdder[Step.values().length];
        for (int i = 0; i < a.length; i++) a[i] = new LongAdder();
        return a;
    }

    /** Turns the accounting on or off for every decoder of the process. */
    public static void enable(boolean on) {
        if (on && THREADS.isCurrentThreadCpuTimeSupported() && !THREADS.isThreadCpuTimeEnabled()) {
            THREADS.setThreadCpuTimeEnabled(true);
        }
        enabled = on;
    }

    static boolean enabled() { return enabled; }

    /** The start of a step: {wall, cpu} nanoseconds, or null when off. */
    static long[] start() {
        return enabled ? new long[] {System.nanoTime(), THREADS.getCurrentThreadCpuTime()} : null;
    }

    static void end(Step step, long[] start) {
        if (start == null) return;
        WALL[step.ordinal()].add(System.nanoTime() - start[0]);
        CPU[step.ordinal()].add(THREADS.getCurrentThreadCpuTime() - start[1]);
        CALLS[step.ordinal()].increment();
    }

    static void picture() {
        if (enabled) PICTURES.increment();
    }

    /** The running totals, to subtract a later snapshot from. */
    public static long[] snapshot() {
        int n = Step.values().length;
        long[] s = new long[3 * n + 1];
        for (int i = 0; i < n; i++) {
            s[i] = WALL[i].sum();
            s[n + i] = CPU[i].sum();
            s[2 * n + i] = CALLS[i].sum();
        }
        s[3 * n] = PICTURES.sum();
        return s;
    }

    /** "read 0.02/0.01 ms (1.1 calls), send ..." per picture between two snapshots: wall/CPU ms per picture. */
    public static String perPicture(long[] a, long[] b) {
        int n = Step.values().length;
        long pictures = b[3 * n] - a[3 * n];
        if (pictures <= 0) return "no pictures";
        StringBuilder s = new StringBuilder();
        for (Step step : Step.values()) {
            int i = step.ordinal();
            s.append(s.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT, "%s %.3f/%.3f ms (%.1f calls)",
                    step.name().toLowerCase(Locale.ROOT).replace('_', '-'), (b[i] - a[i]) / 1e6 / pictures,
                    (b[n + i] - a[n + i]) / 1e6 / pictures, (double) (b[2 * n + i] - a[2 * n + i]) / pictures));
        }
        return s + String.format(Locale.ROOT, " per picture, wall/CPU, over %d pictures", pictures);
    }
}
