package io.argus.tools.pipeline;

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
    private final Map<String, Long> osStart = new HashMap<>();
    private final Map<String, String> osNames = new HashMap<>();

    ThreadCpu() {
        if (threads.isThreadCpuTimeSupported() && !threads.isThreadCpuTimeEnabled()) threads.setThreadCpuTimeEnabled(true);
        take(start);
        takeOs(osStart);
    }

    /**
     * Every thread of the process as the kernel sees it ({@code /proc/self/task/<tid>/stat}: its name, at most 15
     * characters, and user + system time in clock ticks): the JVM's GC and compiler threads and the drivers' native
     * threads too, which the Java view cannot name. Linux only; elsewhere nothing.
     */
    private void takeOs(Map<String, Long> into) {
        java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
        if (tasks == null) return;
        for (java.io.File task : tasks) {
            try {
                String stat = java.nio.file.Files.readString(task.toPath().resolve("stat"));
                int open = stat.indexOf('('), close = stat.lastIndexOf(')');
                String[] f = stat.substring(close + 2).split(" ");
                // after the name: state(0) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime(11) stime(12)
                into.put(task.getName(), Long.parseLong(f[11]) + Long.parseLong(f[12]));
                osNames.put(task.getName(), stat.substring(open + 1, close).replaceAll("\\d+", "#"));
            } catch (java.io.IOException | RuntimeException gone) {
                // the thread ended between the listing and the read
            }
        }
    }

    /** "name xN 123%, ..." of the largest groups of OS threads since construction (clock ticks of 10 ms). */
    String osSince(double seconds, int top) {
        Map<String, Long> now = new HashMap<>();
        takeOs(now);
        Map<String, Long> byGroup = new HashMap<>();
        Map<String, Integer> count = new HashMap<>();
        for (Map.Entry<String, Long> e : now.entrySet()) {
            String g = osNames.get(e.getKey());
            byGroup.merge(g, e.getValue() - osStart.getOrDefault(e.getKey(), 0L), Long::sum);
            count.merge(g, 1, Integer::sum);
        }
        return byGroup.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top)
                .map(e -> String.format(Locale.ROOT, "%s x%d %.0f%%", e.getKey(), count.get(e.getKey()),
                        e.getValue() / 100.0 / seconds * 100))
                .collect(Collectors.joining(", "));
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
