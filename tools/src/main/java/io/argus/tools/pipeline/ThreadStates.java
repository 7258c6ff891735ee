package io.argus.tools.pipeline;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Where a group of threads spends its wall time, sampled: every {@code periodMs} the innermost Java frame of each
 * thread whose name starts with a prefix (a native call such as {@code avcodec_send_packet}, a wait, a lock) is
 * counted. The shares are of samples, so of wall time: what a profiler would say on a host without one.
 */
final class ThreadStates implements AutoCloseable {
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final String prefix;
    private final Map<String, Long> counts = new HashMap<>();
    private long samples;
    private final Thread sampler;
    private volatile boolean stop;

    ThreadStates(String prefix, long periodMs) {
        this.prefix = prefix;
        this.sampler = Thread.ofPlatform().daemon().name("thread-states").start(() -> {
            while (!stop) {
                sample();
                try {
                    Thread.sleep(periodMs);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    private void sample() {
        for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds(), 2)) {
            if (t == null || !t.getThreadName().startsWith(prefix)) continue;
            StackTraceElement[] s = t.getStackTrace();
            String where = s.length == 0 ? "(no Java frame)" : s[0].getMethodName()
                    + (s.length > 1 ? " <- " + s[1].getClassName().substring(s[1].getClassName().lastIndexOf('.') + 1)
                    + "." + s[1].getMethodName() : "");
            synchronized (this) {
                counts.merge(t.getThreadState() + " " + where, 1L, Long::sum);
                samples++;
            }
        }
    }

    /** "42% RUNNABLE avcodec_send_packet <- NvdecDecoder.next, ..." of the {@code top} most frequent. */
    synchronized String summary(int top) {
        if (samples == 0) return "no samples";
        return counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top)
                .map(e -> String.format(Locale.ROOT, "%.0f%% %s", 100.0 * e.getValue() / samples, e.getKey()))
                .collect(Collectors.joining(", "));
    }

    @Override
    public void close() {
        stop = true;
        sampler.interrupt();
    }
}
