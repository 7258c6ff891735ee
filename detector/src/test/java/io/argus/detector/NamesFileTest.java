package io.argus.detector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Darknet .names files: a name per non-empty line, trimmed, any line ending; not UTF-8 refused naming file and line. */
@Budget(seconds = 5)
class NamesFileTest {
    @TempDir
    Path dir;

    @Test
    void oneTrimmedNamePerNonEmptyLine() throws Exception {
        Path f = Files.writeString(dir.resolve("a.names"), " person \r\n\nbicycle\rcar\n  \nfeu rouge");
        assertEquals(List.of("person", "bicycle", "car", "feu rouge"), Model.readNames(f));
    }

    @Test
    void notUtf8IsRefusedNamingTheLine() throws Exception {
        Path f = Files.write(dir.resolve("latin1.names"), new byte[] {'p', 'e', 'r', 's', 'o', 'n', '\n', 'v', (byte) 0xE9, 'l', 'o', '\n'});
        assertEquals(f + ":2: not UTF-8 text (expected one class name per line)",
                assertThrows(IllegalArgumentException.class, () -> Model.readNames(f)).getMessage());
    }
}
