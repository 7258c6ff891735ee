package io.argus.recording;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * What the detector saw in each recorded frame, kept beside the recording so that playback can draw the boxes of the
 * time it shows: one row per frame (camera, wall-clock time, frame size, the boxes as compact JSON). In its own SQLite
 * file ({@code <dir>/detections.sqlite}, write-ahead log): its rows come 25 times a second per camera and are written a
 * second's worth per transaction; the segment index stays small and quick to mend. It is not the truth the segments
 * are: a database that cannot be read is set aside and started again empty (the boxes of the past are lost, the
 * recording is not). Rows older than a camera's oldest segment go with retention.
 */
public final class DetectionLog implements AutoCloseable {
    static final String FILE = "detections.sqlite";

    /** One frame's detections: its boxes as the JSON list the caller wrote. */
    public record Frame(long timeMs, int width, int height, String boxes) {}

    private final Connection db;
    private final String setAside;

    private DetectionLog(Connection db, String setAside) {
        this.db = db;
        this.setAside = setAside;
    }

    /** Opens (or creates) the log in {@code dir}. */
    public static DetectionLog open(Path dir) throws IOException {
        Files.createDirectories(dir);
        SqliteFile.Opened o = SqliteFile.open(dir.resolve(FILE), "detection log",
                "CREATE TABLE IF NOT EXISTS frames (camera TEXT NOT NULL, t_ms INTEGER NOT NULL, width INTEGER NOT NULL, "
                        + "height INTEGER NOT NULL, boxes TEXT NOT NULL)",
                "CREATE INDEX IF NOT EXISTS frames_by_camera ON frames(camera, t_ms)");
        return new DetectionLog(o.db(), o.setAsideBecause());
    }

    /** Why the log was started again empty when it was opened, or null. */
    public String setAside() { return setAside; }

    /** Writes {@code frames} of {@code camera} in one transaction. */
    public synchronized void append(String camera, List<Frame> frames) {
        if (frames.isEmpty()) return;
        SqliteFile.transaction(db, "detection log: writing " + frames.size() + " frame(s) of " + camera, () -> {
            try (PreparedStatement p = db.prepareStatement("INSERT INTO frames(camera, t_ms, width, height, boxes) VALUES (?, ?, ?, ?, ?)")) {
                for (Frame f : frames) {
                    p.setString(1, camera);
                    p.setLong(2, f.timeMs());
                    p.setInt(3, f.width());
                    p.setInt(4, f.height());
                    p.setString(5, f.boxes());
                    p.addBatch();
                }
                p.executeBatch();
            }
        });
    }

    /** {@code camera}'s frames in [fromMs, toMs), oldest first, at most {@code limit}. */
    public synchronized List<Frame> between(String camera, long fromMs, long toMs, int limit) {
        try (PreparedStatement p = db.prepareStatement(
                "SELECT t_ms, width, height, boxes FROM frames WHERE camera = ? AND t_ms >= ? AND t_ms < ? ORDER BY t_ms LIMIT ?")) {
            p.setString(1, camera);
            p.setLong(2, fromMs);
            p.setLong(3, toMs);
            p.setInt(4, limit);
            List<Frame> out = new ArrayList<>();
            try (ResultSet r = p.executeQuery()) {
                while (r.next()) out.add(new Frame(r.getLong(1), r.getInt(2), r.getInt(3), r.getString(4)));
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException("detection log: reading " + camera + ": " + e.getMessage(), e);
        }
    }

    /** Deletes {@code camera}'s frames before {@code ms} (null camera: every camera's); returns how many. */
    public synchronized int deleteBefore(String camera, long ms) {
        String sql = camera == null ? "DELETE FROM frames WHERE t_ms < ?" : "DELETE FROM frames WHERE camera = ? AND t_ms < ?";
        try (PreparedStatement p = db.prepareStatement(sql)) {
            int i = 1;
            if (camera != null) p.setString(i++, camera);
            p.setLong(i, ms);
            return p.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("detection log: deleting before " + ms + ": " + e.getMessage(), e);
        }
    }

    /** The cameras with frames in the log. */
    public synchronized List<String> cameras() {
        return SqliteFile.cameras(db, "frames", "detection log");
    }

    @Override
    public synchronized void close() {
        SqliteFile.close(db);
    }
}
