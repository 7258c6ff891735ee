package io.argus.detector.io;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A file AtomicFile writes is readable as a plain write's would be (not 0600 as its temporary file), and keeps its own. */
class AtomicFilePermissionsTest {
    @TempDir
    Path dir;

    @Test
    void newFilesAreWorldReadableAndReplacedFilesKeepTheirPermissions() throws Exception {
        Path f = dir.resolve("a.weights");
        AtomicFile.writeString(f, "one");
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        AtomicFile.writeString(f, "two");
        assertEquals("two", Files.readString(f));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
    }
}
