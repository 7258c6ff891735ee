package io.argus.recording;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * What is deleted, and why: per camera, segments older than its days and its oldest beyond its byte budget; then, for
 * the directory, the oldest of any camera while the directory is over its budget or the disk's free space is under
 * what must stay free. Only complete segments go (never the one being written); the oldest always first. Each
 * deletion removes the file, then its row (a crash between the two leaves a row that the next open drops).
 */
public final class Retention {
    /** A camera's limits: 0 days keeps forever, 0 bytes sets no budget. */
    public record CameraRule(int retainDays, long maxBytes) {
        public CameraRule {
            if (retainDays < 0) throw new IllegalArgumentException("retainDays: expected 0 (forever) or more, found " + retainDays);
            if (maxBytes < 0) throw new IllegalArgumentException("maxBytes: expected 0 (no budget) or more, found " + maxBytes);
        }
    }

    /** The directory's limits (0: none) and each camera's. */
    public record Rules(long maxBytes, long keepFreeBytes, Map<String, CameraRule> cameras) {}

    /** A segment deleted and the rule that deleted it. */
    public record Deletion(Segment segment, String reason) {}

    private static final int PAGE = 200;

    private Retention() {}

    /**
     * Applies {@code rules} to {@code index}'s directory at {@code nowMs}, {@code freeBytes} telling the disk's free
     * space now; returns what it deleted, in order.
     */
    public static List<Deletion> enforce(SegmentIndex index, Rules rules, long nowMs, LongSupplier freeBytes) throws IOException {
        List<Deletion> out = new ArrayList<>();
        Map<String, Long> bytes = index.bytesByCamera();
        for (var e : rules.cameras().entrySet()) {
            String camera = e.getKey();
            CameraRule rule = e.getValue();
            if (rule.retainDays() > 0) {
                long cutoff = nowMs - rule.retainDays() * 86_400_000L;
                List<Segment> old;
                while (!(old = index.endedBefore(camera, cutoff, PAGE)).isEmpty()) {
                    for (Segment s : old) delete(index, s, "older than " + rule.retainDays() + " days", bytes, out);
                }
            }
            if (rule.maxBytes() > 0) {
                while (bytes.getOrDefault(camera, 0L) > rule.maxBytes()) {
                    List<Segment> oldest = index.oldestFirst(camera, PAGE);
                    if (oldest.isEmpty()) break;
                    for (Segment s : oldest) {
                        if (bytes.getOrDefault(camera, 0L) <= rule.maxBytes()) break;
                        delete(index, s, camera + " over its " + rule.maxBytes() + " bytes", bytes, out);
                    }
                }
            }
        }
        while (over(rules, bytes, freeBytes)) {
            List<Segment> oldest = index.oldestFirst(null, PAGE);
            if (oldest.isEmpty()) break;
            for (Segment s : oldest) {
                if (!over(rules, bytes, freeBytes)) break;
                String why = rules.maxBytes() > 0 && total(bytes) > rules.maxBytes()
                        ? "directory over its " + rules.maxBytes() + " bytes"
                        : "disk under " + rules.keepFreeBytes() + " free bytes";
                delete(index, s, why, bytes, out);
            }
        }
        return out;
    }

    private static boolean over(Rules rules, Map<String, Long> bytes, LongSupplier free) {
        return (rules.maxBytes() > 0 && total(bytes) > rules.maxBytes())
                || (rules.keepFreeBytes() > 0 && free.getAsLong() < rules.keepFreeBytes());
    }

    private static long total(Map<String, Long> bytes) {
        long t = 0;
        for (long b : bytes.values()) t += b;
        return t;
    }

    private static void delete(SegmentIndex index, Segment s, String why, Map<String, Long> bytes, List<Deletion> out)
            throws IOException {
        Files.deleteIfExists(index.layout().file(s.name()));
        index.removed(s.name());
        bytes.merge(s.camera(), -s.bytes(), Long::sum);
        out.add(new Deletion(s, why));
    }
}
