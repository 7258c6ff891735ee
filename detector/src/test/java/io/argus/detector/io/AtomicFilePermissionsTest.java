package io.argus.detector.io;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What AtomicFile writes is its owner's only: a new file rw-------, the directories it creates rwx------, and a file it
 * replaces keeps its owner's bits but loses the group's and others'. Budget: 1 s.
 */
@Budget(seconds = 5)
class AtomicFilePermissionsTest {
    @TempDir
    Path dir;

    static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void newFilesAndDirectoriesAreTheOwnersOnly() throws Exception {
        Path f = dir.resolve("new/sub/a.weights");
        AtomicFile.writeString(f, "one");
        assertEquals("rw-------", mode(f));
        assertEquals("rwx------", mode(dir.resolve("new/sub")));
        assertEquals("rwx------", mode(dir.resolve("new")));
    }

    @Test
    void aReplacedFileKeepsItsOwnerBitsButNeverTheGroupsOrOthers() throws Exception {
        Path f = dir.resolve("a.weights");
        AtomicFile.writeString(f, "one");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));   // an older version's file
        AtomicFile.writeString(f, "two");
        assertEquals("two", Files.readString(f));
        assertEquals("rw-------", mode(f));
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwxrwxrwx"));
        AtomicFile.writeString(f, "three");
        assertEquals("rwx------", mode(f), "an executable stays executable for its owner only");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("r--------"));
        AtomicFile.writeString(f, "four");
        assertEquals("rw-------", mode(f));
    }
}
