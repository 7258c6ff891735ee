package io.argus.recording;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * How the recording's SQLite files are opened: checked first ({@code PRAGMA quick_check}), then in write-ahead-log
 * mode (a kill -9 leaves every committed row whole), the schema made if missing. A file that fails the check or cannot
 * be opened is set aside ({@code <name>.broken-<ms>}, with its -wal and -shm) and a new one made: what it held is
 * either rebuilt from the segment files (the index) or let go (the detection log).
 */
final class SqliteFile {
    /** An open database and why the file there before was set aside (null when it opened as it was). */
    record Opened(Connection db, String setAsideBecause) {}

    private SqliteFile() {}

    static Opened open(Path file, String what, String... schema) throws IOException {
        try {
            return new Opened(connect(file, schema), null);
        } catch (SQLException e) {
            for (String suffix : new String[] {"", "-wal", "-shm"}) {
                Path p = file.resolveSibling(file.getFileName() + suffix);
                if (Files.exists(p)) {
                    Files.move(p, file.resolveSibling(file.getFileName() + suffix + ".broken-" + System.currentTimeMillis()),
                            StandardCopyOption.REPLACE_EXISTING);
                }
            }
            try {
                return new Opened(connect(file, schema), e.getMessage());
            } catch (SQLException again) {
                throw new IOException("cannot create the " + what + " " + file + ": " + again.getMessage(), again);
            }
        }
    }

    private static Connection connect(Path file, String... schema) throws SQLException {
        Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        try (Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("PRAGMA quick_check")) {
                String verdict = r.next() ? r.getString(1) : "no answer";
                if (!"ok".equals(verdict)) throw new SQLException("quick_check: " + verdict);
            }
            s.execute("PRAGMA journal_mode=WAL");
            s.execute("PRAGMA synchronous=NORMAL");
            for (String statement : schema) s.execute(statement);
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /** Work on the database inside a transaction. */
    @FunctionalInterface
    interface Work {
        void run() throws SQLException;
    }

    /** Runs {@code work} in one transaction, rolled back if it fails (then an IllegalStateException naming {@code what}). */
    static void transaction(Connection db, String what, Work work) {
        try {
            db.setAutoCommit(false);
            work.run();
            db.commit();
        } catch (SQLException e) {
            try {
                db.rollback();
            } catch (SQLException ignored) {
                // the connection is gone: the next call says so
            }
            throw new IllegalStateException(what + ": " + e.getMessage(), e);
        } finally {
            try {
                db.setAutoCommit(true);
            } catch (SQLException ignored) {
                // as above
            }
        }
    }

    /** The distinct values of column {@code camera} in {@code table} (a name of ours, never a caller's). */
    static java.util.List<String> cameras(Connection db, String table, String what) {
        try (Statement s = db.createStatement(); ResultSet r = s.executeQuery("SELECT DISTINCT camera FROM " + table)) {
            java.util.List<String> out = new java.util.ArrayList<>();
            while (r.next()) out.add(r.getString(1));
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException(what + ": " + e.getMessage(), e);
        }
    }

    /** Closes {@code db}; a failure to close leaves nothing more to do with it. */
    static void close(Connection db) {
        try {
            db.close();
        } catch (SQLException e) {
            // closing: nothing more to do with it
        }
    }
}
