package io.argus.pipeline.load;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU seconds from {@code /proc}: of a process (user + system, {@code /proc/<pid>/stat}) and of the whole machine
 * (busy and total jiffies, {@code /proc/stat}), so the summary can say who used the two cores: the app, the test's own
 * clients, wrk, and everyone else on the machine.
 */
final class CpuTime {
    private static final double TICKS = 100; // USER_HZ, 100 on every Linux we run on

    private CpuTime() {}

    /** User + system CPU seconds of process {@code pid}, -1 when it is gone. */
    static double process(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" "); // f[0] is field 3 (state)
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS;
        } catch (Exception e) {
            return -1;
        }
    }

    /** {busy, total} CPU seconds of the machine since boot, all cores. */
    static double[] machine() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).getFirst().trim().split("\\s+");
            long total = 0, idle = Long.parseLong(f[4]) + Long.parseLong(f[5]); // idle + iowait
            for (int i = 1; i < f.length; i++) total += Long.parseLong(f[i]);
            return new double[] {(total - idle) / TICKS, total / TICKS};
        } catch (Exception e) {
            return new double[] {-1, -1};
        }
    }
}
