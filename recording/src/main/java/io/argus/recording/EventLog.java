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
 * The events of the recorded cameras, kept as long as their recordings: the node's event history in memory holds the
 * last few thousand events of every camera and forgets them at a restart, but a review timeline of last week must
 * still show what happened then. One row per event, its latest state (each update replaces the row), the event's
 * message as the API gives it. In its own SQLite file ({@code <dir>/events.sqlite}, write-ahead log); like the
 * detection log it is not the truth the segments are: a file that cannot be read is set aside and started again.
 * Rows of events that ended before a camera's oldest segment go with retention.
 */
public final class EventLog implements AutoCloseable {
    static final String FILE = "events.sqlite";
    /** An event's message larger than this is not kept (its zone lists would have to be huge): the log stays bounded. */
    public static final int MAX_EVENT_CHARS = 64 * 1024;

    /** One event: its id, camera, span (end -1 while open) and message (JSON). */
    public record Event(String id, String camera, long startMs, long endMs, String json) {}

    private final Connection db;
    private final String setAside;

    private EventLog(Connection db, String setAside) {
        this.db = db;
        this.setAside = setAside;
    }

    /** Opens (or creates) the log in {@code dir}. */
    public static EventLog open(Path dir) throws IOException {
        Files.createDirectories(dir);
        SqliteFile.Opened o = SqliteFile.open(dir.resolve(FILE), "event log",
                "CREATE TABLE IF NOT EXISTS events (id TEXT PRIMARY KEY, camera TEXT NOT NULL, start_ms INTEGER NOT NULL, "
                        + "end_ms INTEGER NOT NULL, json TEXT NOT NULL)",
                "CREATE INDEX IF NOT EXISTS events_by_camera ON events(camera, start_ms)");
        return new EventLog(o.db(), o.setAsideBecause());
    }

    /** Why the log was started again empty when it was opened, or null. */
    public String setAside() { return setAside; }

    /** Writes (or replaces, by id) {@code events} in one transaction; those over {@link #MAX_EVENT_CHARS} are left out. */
    public synchronized void put(List<Event> events) {
        if (events.isEmpty()) return;
        SqliteFile.transaction(db, "event log: writing " + events.size() + " event(s)", () -> {
            try (PreparedStatement p = db.prepareStatement(
                    "INSERT OR REPLACE INTO events(id, camera, start_ms, end_ms, json) VALUES (?, ?, ?, ?, ?)")) {
                for (Event e : events) {
                    if (e.json().length() > MAX_EVENT_CHARS) continue;
                    p.setString(1, e.id());
                    p.setString(2, e.camera());
                    p.setLong(3, e.startMs());
                    p.setLong(4, e.endMs());
                    p.setString(5, e.json());
                    p.addBatch();
                }
                p.executeBatch();
            }
        });
    }

    /**
     * {@code camera}'s events overlapping [fromMs, toMs) (an open one overlaps everything after its start), newest
     * first, at most {@code limit}.
     */
    public synchronized List<Event> between(String camera, long fromMs, long toMs, int limit) {
        try (PreparedStatement p = db.prepareStatement("SELECT id, camera, start_ms, end_ms, json FROM events WHERE camera = ? "
                + "AND start_ms < ? AND (end_ms < 0 OR end_ms >= ?) ORDER BY start_ms DESC LIMIT ?")) {
            p.setString(1, camera);
            p.setLong(2, toMs);
            p.setLong(3, fromMs);
            p.setInt(4, limit);
            List<Event> out = new ArrayList<>();
            try (ResultSet r = p.executeQuery()) {
                while (r.next()) out.add(new Event(r.getString(1), r.getString(2), r.getLong(3), r.getLong(4), r.getString(5)));
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException("event log: reading " + camera + ": " + e.getMessage(), e);
        }
    }

    /** The event {@code id}, or null when the log does not hold it. */
    public synchronized Event event(String id) {
        try (PreparedStatement p = db.prepareStatement("SELECT id, camera, start_ms, end_ms, json FROM events WHERE id = ?")) {
            p.setString(1, id);
            try (ResultSet r = p.executeQuery()) {
                return r.next() ? new Event(r.getString(1), r.getString(2), r.getLong(3), r.getLong(4), r.getString(5)) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("event log: reading event " + id + ": " + e.getMessage(), e);
        }
    }

    /** Deletes {@code camera}'s events that ended (or, open, started) before {@code ms}; returns how many. */
    public synchronized int deleteBefore(String camera, long ms) {
        try (PreparedStatement p = db.prepareStatement(
                "DELETE FROM events WHERE camera = ? AND ((end_ms >= 0 AND end_ms < ?) OR (end_ms < 0 AND start_ms < ?))")) {
            p.setString(1, camera);
            p.setLong(2, ms);
            p.setLong(3, ms);
            return p.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("event log: deleting before " + ms + ": " + e.getMessage(), e);
        }
    }

    /** The cameras with events in the log. */
    public synchronized List<String> cameras() {
        return SqliteFile.cameras(db, "events", "event log");
    }

    @Override
    public synchronized void close() {
        SqliteFile.close(db);
    }
}
