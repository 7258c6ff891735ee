package io.argus.recording;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The segments of one storage directory, in SQLite ({@code index.sqlite} beside the cameras' directories): what the
 * timeline, clips, exports and retention ask. SQLite's write-ahead log keeps each change whole or absent through a
 * kill -9, and the files stay the truth: {@link #open} compares the index with them, reads back the segment that was
 * being written when the process died (and any file the index does not know), forgets rows whose file is gone, and
 * rebuilds the whole index from the files when the database cannot be read.
 *
 * <p>Thread-safe (one connection, one call at a time); calls block on the disk: callers keep them off event loops.
 */
public final class SegmentIndex implements AutoCloseable {
    static final String FILE = "index.sqlite";
    /**
     * A file killed before its first fragment holds the MP4's first box at most (tens of bytes); an unreadable file
     * larger than this may hold pictures.
     */
    static final long NOTHING_BUT_A_HEADER = 4096;

    /** What {@link #open} found: files read back, rows added or dropped, empty files removed, a database rebuilt. */
    public record Recovery(int filesRead, int rowsAdded, int rowsCompleted, int rowsDropped, int emptyFilesDeleted,
                           List<String> unreadable, String rebuiltBecause) {
        public boolean clean() { return filesRead == 0 && rowsDropped == 0 && unreadable.isEmpty() && rebuiltBecause == null; }
    }

    private final StorageLayout layout;
    private final Connection db;
    private final Recovery recovery;

    private SegmentIndex(StorageLayout layout, Connection db, String rebuiltBecause) throws IOException {
        this.layout = layout;
        this.db = db;
        this.recovery = reconcile(rebuiltBecause);
    }

    /** Opens (or creates) the index of {@code layout}'s directory and brings it in line with the files. */
    public static SegmentIndex open(StorageLayout layout) throws IOException {
        Files.createDirectories(layout.root());
        SqliteFile.Opened o = SqliteFile.open(layout.root().resolve(FILE), "recording index",
                "CREATE TABLE IF NOT EXISTS segments (name TEXT PRIMARY KEY, camera TEXT NOT NULL, "
                        + "start_ms INTEGER NOT NULL, end_ms INTEGER NOT NULL, bytes INTEGER NOT NULL, packets INTEGER NOT NULL)",
                "CREATE INDEX IF NOT EXISTS segments_by_camera ON segments(camera, start_ms)",
                "CREATE INDEX IF NOT EXISTS segments_by_start ON segments(start_ms)");
        return new SegmentIndex(layout, o.db(), o.setAsideBecause());
    }

    /** What opening found and mended. */
    public Recovery recovery() { return recovery; }

    public StorageLayout layout() { return layout; }

    /** A segment's file was created (its row says it is being written). */
    public synchronized void opened(Segment s) {
        upsert(new Segment(s.camera(), s.name(), s.startMs(), -1, s.bytes(), s.packets()));
    }

    /** A segment's file was completed. */
    public synchronized void closed(Segment s) { upsert(s); }

    /** A segment's file was deleted. */
    public synchronized void removed(String name) {
        try (PreparedStatement p = db.prepareStatement("DELETE FROM segments WHERE name = ?")) {
            p.setString(1, name);
            p.executeUpdate();
        } catch (SQLException e) {
            throw failed("forgetting " + name, e);
        }
    }

    /** {@code camera}'s segments overlapping [fromMs, toMs), by start time (the one being written with end -1). */
    public synchronized List<Segment> segments(String camera, long fromMs, long toMs) {
        return segments(camera, fromMs, toMs, Integer.MAX_VALUE);
    }

    /** The first {@code limit} of {@code camera}'s segments overlapping [fromMs, toMs), by start time. */
    public synchronized List<Segment> segments(String camera, long fromMs, long toMs, int limit) {
        return query("SELECT * FROM segments WHERE camera = ? AND start_ms < ? AND (end_ms < 0 OR end_ms > ?) ORDER BY start_ms LIMIT ?",
                p -> {
                    p.setString(1, camera);
                    p.setLong(2, toMs);
                    p.setLong(3, fromMs);
                    p.setInt(4, limit);
                });
    }

    /** Complete segments, oldest first, of every camera ({@code camera} null) or of one. */
    public synchronized List<Segment> oldestFirst(String camera, int limit) {
        return camera == null
                ? query("SELECT * FROM segments WHERE end_ms >= 0 ORDER BY start_ms LIMIT ?", p -> p.setInt(1, limit))
                : query("SELECT * FROM segments WHERE end_ms >= 0 AND camera = ? ORDER BY start_ms LIMIT ?", p -> {
                    p.setString(1, camera);
                    p.setInt(2, limit);
                });
    }

    /** {@code camera}'s complete segments that ended before {@code cutoffMs}, oldest first. */
    public synchronized List<Segment> endedBefore(String camera, long cutoffMs, int limit) {
        return query("SELECT * FROM segments WHERE camera = ? AND end_ms >= 0 AND end_ms < ? ORDER BY start_ms LIMIT ?", p -> {
            p.setString(1, camera);
            p.setLong(2, cutoffMs);
            p.setInt(3, limit);
        });
    }

    /** A stretch of time recorded without a break: segments that meet within a tolerance (end -1: still being written). */
    public record Span(long startMs, long endMs) {}

    /**
     * {@code camera}'s recorded time overlapping [fromMs, toMs): its segments joined where one starts within
     * {@code gapMs} of the end of the one before, oldest first, at most {@code limit} spans. Read row by row, so a week
     * of 10 s segments costs a scan, not a list of them.
     */
    public synchronized List<Span> spans(String camera, long fromMs, long toMs, long gapMs, int limit) {
        List<Span> out = new java.util.ArrayList<>();
        try (PreparedStatement p = db.prepareStatement("SELECT start_ms, end_ms FROM segments WHERE camera = ? AND start_ms < ? "
                + "AND (end_ms < 0 OR end_ms > ?) ORDER BY start_ms")) {
            p.setString(1, camera);
            p.setLong(2, toMs);
            p.setLong(3, fromMs);
            long start = 0;
            long end = 0;
            boolean any = false;
            try (ResultSet r = p.executeQuery()) {
                while (r.next()) {
                    long s = r.getLong(1);
                    long e = r.getLong(2);
                    if (any && end >= 0 && s - end <= gapMs) {
                        end = e < 0 ? -1 : Math.max(end, e);
                        continue;
                    }
                    if (any) {
                        out.add(new Span(start, end));
                        if (out.size() >= limit) return out;
                    }
                    start = s;
                    end = e;
                    any = true;
                }
            }
            if (any) out.add(new Span(start, end));
            return out;
        } catch (SQLException e) {
            throw failed("reading the spans of " + camera, e);
        }
    }

    /** Bytes recorded per camera. */
    public synchronized Map<String, Long> bytesByCamera() {
        Map<String, Long> out = new HashMap<>();
        try (Statement s = db.createStatement(); ResultSet r = s.executeQuery("SELECT camera, SUM(bytes) FROM segments GROUP BY camera")) {
            while (r.next()) out.put(r.getString(1), r.getLong(2));
        } catch (SQLException e) {
            throw failed("summing bytes", e);
        }
        return out;
    }

    private interface Binder {
        void bind(PreparedStatement p) throws SQLException;
    }

    private List<Segment> query(String sql, Binder binder) {
        try (PreparedStatement p = db.prepareStatement(sql)) {
            binder.bind(p);
            List<Segment> out = new ArrayList<>();
            try (ResultSet r = p.executeQuery()) {
                while (r.next()) out.add(row(r));
            }
            return out;
        } catch (SQLException e) {
            throw failed("reading the index", e);
        }
    }

    private static Segment row(ResultSet r) throws SQLException {
        return new Segment(r.getString("camera"), r.getString("name"), r.getLong("start_ms"), r.getLong("end_ms"),
                r.getLong("bytes"), r.getLong("packets"));
    }

    private void upsert(Segment s) {
        try (PreparedStatement p = db.prepareStatement("INSERT INTO segments(name, camera, start_ms, end_ms, bytes, packets) "
                + "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET end_ms = excluded.end_ms, "
                + "bytes = excluded.bytes, packets = excluded.packets")) {
            p.setString(1, s.name());
            p.setString(2, s.camera());
            p.setLong(3, s.startMs());
            p.setLong(4, s.endMs());
            p.setLong(5, s.bytes());
            p.setLong(6, s.packets());
            p.executeUpdate();
        } catch (SQLException e) {
            throw failed("recording " + s.name(), e);
        }
    }

    /**
     * The files are the truth: a row whose file is gone is dropped; a file without a row, or whose row says it was
     * being written (the process died meanwhile), is read and its row written whole; a file that holds no packet (the
     * process died before its first fragment) is deleted.
     */
    private Recovery reconcile(String rebuiltBecause) throws IOException {
        Map<String, Segment> rows = new HashMap<>();
        for (Segment s : query("SELECT * FROM segments", p -> {})) rows.put(s.name(), s);
        int read = 0;
        int added = 0;
        int completed = 0;
        int dropped = 0;
        int emptied = 0;
        List<String> unreadable = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(layout.root(), 3)) {
            files = walk.filter(p -> p.getFileName().toString().endsWith(StorageLayout.SUFFIX) && Files.isRegularFile(p)).toList();
        }
        for (Path f : files) {
            String name = layout.nameOf(f);
            if (name == null) continue;   // not laid out as a segment: not ours to index or delete
            Segment row = rows.remove(name);
            if (row != null && row.complete()) continue;
            read++;
            SegmentProbe.Contents c;
            try {
                c = SegmentProbe.read(f);
            } catch (IOException e) {
                if (Files.size(f) > NOTHING_BUT_A_HEADER) {
                    // kept for a person to look at, out of the index (and of retention): never deleted unread
                    unreadable.add(name + ": " + e.getMessage());
                    if (row != null) removed(name);
                    continue;
                }
                c = new SegmentProbe.Contents(0, 0, 0, Files.size(f), false);
            }
            if (c.packets() == 0) {
                Files.deleteIfExists(f);
                if (row != null) removed(name);
                emptied++;
                continue;
            }
            long start = StorageLayout.startOf(name);
            upsert(new Segment(StorageLayout.cameraOf(name), name, start, start + c.durationMs(), c.bytes(), c.packets()));
            if (row == null) added++;
            else completed++;
        }
        for (String gone : rows.keySet()) {
            removed(gone);
            dropped++;
        }
        return new Recovery(read, added, completed, dropped, emptied, List.copyOf(unreadable), rebuiltBecause);
    }

    private static IllegalStateException failed(String what, SQLException e) {
        return new IllegalStateException("recording index: " + what + ": " + e.getMessage(), e);
    }

    @Override
    public synchronized void close() {
        try {
            db.close();
        } catch (SQLException e) {
            // closing: nothing left to keep
        }
    }
}
