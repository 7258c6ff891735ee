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
}
