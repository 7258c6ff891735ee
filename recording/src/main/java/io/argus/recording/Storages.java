package io.argus.recording;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * The node's storage directories, each a store of its own: its segments, its index (mended from its files at open)
 * and its budgets, so that a disk that fails or fills is one directory's problem, and an index never names a file on
 * another disk. A camera records into one of them; what was recorded is read from all of them (a camera moved to
 * another directory keeps its older segments where they are, until retention takes them). A directory that cannot be
 * opened is left out and says why ({@link #failures}); the others work. Thread-safe (each index is).
 */
public final class Storages implements AutoCloseable {
    /** A directory by name, as the configuration gives it. */
    public record Dir(String name, Path path) {}

    private final Map<String, SegmentIndex> opened;
    private final Map<String, String> failures;

    private Storages(Map<String, SegmentIndex> opened, Map<String, String> failures) {
        this.opened = opened;
        this.failures = failures;
    }

    /** Opens every directory's index (the first is the main one); a directory that fails is named in {@link #failures}. */
    public static Storages open(List<Dir> dirs) {
        Map<String, SegmentIndex> opened = new LinkedHashMap<>();
        Map<String, String> failures = new LinkedHashMap<>();
        for (Dir d : dirs) {
            try {
                opened.put(d.name(), SegmentIndex.open(new StorageLayout(d.path())));
            } catch (IOException | RuntimeException e) {
                failures.put(d.name(), "cannot open the recordings in " + d.path() + ": " + e.getMessage());
            }
        }
        return new Storages(opened, failures);
    }

    /** The directories opened, by name, in the order given. */
    public Map<String, SegmentIndex> indexes() { return opened; }

    /** The index of directory {@code name}, or null when it is not open (unknown or failed). */
    public SegmentIndex index(String name) { return opened.get(name); }

    /** Why each directory that is not open is not. */
    public Map<String, String> failures() { return failures; }

    /** The first {@code limit} of {@code camera}'s segments overlapping [fromMs, toMs) in every directory, by start. */
    public List<Segment> segments(String camera, long fromMs, long toMs, int limit) {
        List<Segment> all = new ArrayList<>();
        for (SegmentIndex i : opened.values()) all.addAll(i.segments(camera, fromMs, toMs, limit));
        all.sort(Comparator.comparingLong(Segment::startMs));
        return all.size() > limit ? List.copyOf(all.subList(0, limit)) : all;
    }

    /** {@code camera}'s segments overlapping [fromMs, toMs) in every directory, as parts to read, oldest first. */
    public List<ClipWriter.Part> partsOf(String camera, long fromMs, long toMs) {
        List<ClipWriter.Part> parts = new ArrayList<>();
        for (SegmentIndex i : opened.values()) parts.addAll(ClipWriter.partsOf(i, camera, fromMs, toMs));
        parts.sort(Comparator.comparingLong(ClipWriter.Part::startMs));
        return parts;
    }

    /**
     * The file of segment {@code name} in whichever directory holds it; a name that is not a segment's is refused
     * ({@link IllegalArgumentException}), one that no directory holds is not found ({@link NoSuchElementException}).
     */
    public Path file(String name) {
        for (SegmentIndex i : opened.values()) {
            Path f = i.layout().file(name);
            if (Files.isRegularFile(f)) return f;
        }
        throw new NoSuchElementException(opened.isEmpty() ? "no storage directory is open" : "no segment " + name);
    }

    /**
     * {@code camera}'s recorded time in [fromMs, toMs) in every directory, as {@link SegmentIndex#spans}, joined across
     * directories too, at most {@code limit} spans (the list holds one more when there are more).
     */
    public List<SegmentIndex.Span> spans(String camera, long fromMs, long toMs, long gapMs, int limit) {
        List<SegmentIndex.Span> all = new ArrayList<>();
        for (SegmentIndex i : opened.values()) all.addAll(i.spans(camera, fromMs, toMs, gapMs, limit + 1));
        all.sort(Comparator.comparingLong(SegmentIndex.Span::startMs));
        List<SegmentIndex.Span> joined = new ArrayList<>();
        for (SegmentIndex.Span s : all) {
            SegmentIndex.Span last = joined.isEmpty() ? null : joined.get(joined.size() - 1);
            if (last != null && (last.endMs() < 0 || s.startMs() - last.endMs() <= gapMs)) {
                long end = last.endMs() < 0 || s.endMs() < 0 ? -1 : Math.max(last.endMs(), s.endMs());
                joined.set(joined.size() - 1, new SegmentIndex.Span(last.startMs(), end));
            } else {
                if (joined.size() > limit) break;
                joined.add(s);
            }
        }
        return joined.size() > limit + 1 ? List.copyOf(joined.subList(0, limit + 1)) : joined;
    }

    /** Bytes stored per camera, all directories together. */
    public Map<String, Long> bytesByCamera() {
        Map<String, Long> sum = new HashMap<>();
        for (SegmentIndex i : opened.values()) i.bytesByCamera().forEach((c, b) -> sum.merge(c, b, Long::sum));
        return sum;
    }

    @Override
    public void close() {
        for (SegmentIndex i : opened.values()) i.close();
    }
}
