package io.argus.pipeline.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.testkit.Budget;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import org.junit.jupiter.api.Test;

/** What a command prints for a failure: the message that names the problem, for a file what is wrong with it. */
@Budget(seconds = 5)
class ArgusCliMessageTest {
    @Test
    void aMissingFileIsSaidToBeMissing() {
        assertEquals("no such file: /nonexistent.cfg",
                ArgusCli.messageOf(new UncheckedIOException(new NoSuchFileException("/nonexistent.cfg"))));
        assertEquals("no such file: a.weights", ArgusCli.messageOf(new NoSuchFileException("a.weights")));
        assertEquals("permission denied: /root/x.cfg",
                ArgusCli.messageOf(new UncheckedIOException(new AccessDeniedException("/root/x.cfg"))));
    }

    @Test
    void aMessageWithItsOwnContextIsKept() {
        assertEquals("cannot read names n.txt: no such file", ArgusCli.messageOf(new UncheckedIOException(
                "cannot read names n.txt: n.txt", new NoSuchFileException("n.txt"))));
        assertEquals("disk full", ArgusCli.messageOf(new UncheckedIOException(new java.io.IOException("disk full"))));
        assertEquals("a.cfg: is a directory", ArgusCli.messageOf(new java.nio.file.FileSystemException("a.cfg", null,
                "is a directory")));
        assertEquals("line 3: bad value", ArgusCli.messageOf(new IllegalArgumentException("line 3: bad value")));
    }
}
