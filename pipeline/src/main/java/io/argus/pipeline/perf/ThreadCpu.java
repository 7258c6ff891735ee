package io.argus.pipeline.perf;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Where the process's CPU goes, by thread group (thread names with their numbers folded: every camera reader is one
 * group, the Vert.x event loops another): CPU time per group between two snapshots. What is not in any Java thread
 * (the JVM's GC and compiler threads, native threads of drivers) is the process total minus the groups.
 */
final class ThreadCpu {
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final Map<Long, Long> start = new HashMap<>();
    private final Map<Long, String> names = new HashMap<>();

    ThreadCpu() {
        if (threads.isThreadCpuTimeSupported() && !threads.isThreadCpuTimeEnabled()) threads.setThreadCpuTimeEnabled(true);
        take(start);
    }

    private void take(Map<Long, Long> into) {
        long[] ids = threads.getAllThreadIds();
        ThreadInfo[] info = threads.getThreadInfo(ids);
        for (int i = 0; i < ids.length; i++) {
            long t = threads.getThreadCpuTime(ids[i]);
            if (t < 0 || info[i] == null) continue;
            into.put(ids[i], t);
            names.put(ids[i], info[i].getThreadName().replaceAll("\\d+", "#"));
        }
    }

    /** "group 123% (n), ..." of the largest groups since construction, as % of one core over {@code seconds}. */
    String since(double seconds, long processCpuNanos, int top) {
        Map<Long, Long> now = new HashMap<>();
        take(now);
        Map<String, Long> byGroup = new HashMap<>();
        Map<String, Integer> count = new HashMap<>();
        long sum = 0;
        for (Map.Entry<Long, Long> e : now.entrySet()) {
            long d = e.getValue() - start.getOrDefault(e.getKey(), 0L);
            String g = names.get(e.getKey());
            byGroup.merge(g, d, Long::sum);
            count.merge(g, 1, Integer::sum);
            sum += d;
        }
        String groups = byGroup.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top)
                .map(e -> String.format(Locale.ROOT, "%s x%d %.0f%%", e.getKey(), count.get(e.getKey()),
                        e.getValue() / 1e9 / seconds * 100))
                .collect(Collectors.joining(", "));
        return groups + String.format(Locale.ROOT, ", outside Java threads (GC, JIT, native) %.0f%%",
                Math.max(0, processCpuNanos - sum) / 1e9 / seconds * 100);
    }
}
