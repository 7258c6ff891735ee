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
    /**
     * The steps of one picture, in the order they happen; FIRST_SENDS are the packets before a decoder's first
     * picture, where FFmpeg creates the NVDEC session.
     */
    public enum Step { READ, FIRST_SENDS, SEND, RECEIVE, COPY_WAIT }

    private static volatile boolean enabled;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final LongAdder[] WALL = adders();
    private static final LongAdder[] CPU = adders();
    private static final LongAdder[] CALLS = adders();
    private static final LongAdder PICTURES = new LongAdder();
    /** The longest single call of each step since the last {@link #perPicture}, and calls over 100 ms and 1 s. */
    private static final java.util.concurrent.atomic.LongAccumulator[] LONGEST = new java.util.concurrent.atomic.LongAccumulator[Step.values().length];
    private static final LongAdder[] OVER_100MS = adders();
    private static final LongAdder[] OVER_1S = adders();

    static {
        for (int i = 0; i < LONGEST.length; i++) LONGEST[i] = new java.util.concurrent.atomic.LongAccumulator(Math::max, 0);
    }

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
        long wall = System.nanoTime() - start[0];
        WALL[step.ordinal()].add(wall);
        LONGEST[step.ordinal()].accumulate(wall);
        if (wall > 100_000_000L) OVER_100MS[step.ordinal()].increment();
        if (wall > 1_000_000_000L) OVER_1S[step.ordinal()].increment();
        CPU[step.ordinal()].add(THREADS.getCurrentThreadCpuTime() - start[1]);
        CALLS[step.ordinal()].increment();
    }

    static void picture() {
        if (enabled) PICTURES.increment();
    }

    /** The running totals, to subtract a later snapshot from. */
    public static long[] snapshot() {
        int n = Step.values().length;
        long[] s = new long[5 * n + 1];
        for (int i = 0; i < n; i++) {
            s[i] = WALL[i].sum();
            s[n + i] = CPU[i].sum();
            s[2 * n + i] = CALLS[i].sum();
            s[3 * n + i] = OVER_100MS[i].sum();
            s[4 * n + i] = OVER_1S[i].sum();
        }
        s[5 * n] = PICTURES.sum();
        return s;
    }

    /**
     * "read 0.02/0.01 ms (1.1 calls, longest 3 ms, 0 over 100 ms, 0 over 1 s), send ..." per picture between two
     * snapshots: wall/CPU ms per picture; the longest call is since the previous call of this method.
     */
    public static String perPicture(long[] a, long[] b) {
        int n = Step.values().length;
        long pictures = b[5 * n] - a[5 * n];
        if (pictures <= 0) return "no pictures";
        StringBuilder s = new StringBuilder();
        for (Step step : Step.values()) {
            int i = step.ordinal();
            s.append(s.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT,
                    "%s %.3f/%.3f ms (%.1f calls, longest %.0f ms, %d over 100 ms, %d over 1 s)",
                    step.name().toLowerCase(Locale.ROOT).replace('_', '-'), (b[i] - a[i]) / 1e6 / pictures,
                    (b[n + i] - a[n + i]) / 1e6 / pictures, (double) (b[2 * n + i] - a[2 * n + i]) / pictures,
                    LONGEST[i].getThenReset() / 1e6, b[3 * n + i] - a[3 * n + i], b[4 * n + i] - a[4 * n + i]));
        }
        return s + String.format(Locale.ROOT, " per picture, wall/CPU, over %d pictures", pictures);
    }
}
