package io.argus.pipeline.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The one identifier rule: names pass, anything path-like or oversized is refused with a message that says so. Budget: < 1 s. */
@Budget(seconds = 5)
class NamesTest {
    @Test
    void namesPass() {
        for (String ok : new String[]{"cam1", "Front-Door_2", "yolov4-tiny.v2", "a..b", "9", "x".repeat(64)}) {
            assertTrue(Names.valid(ok), ok);
            assertEquals(ok, Names.require("camera id", ok));
        }
    }

    @Test
    void pathsAndOddCharactersAreRefused() {
        String[] bad = {null, "", ".", "..", "../x", "..%2Fx", "/tmp/x", "a/b", "a\\b", ".hidden", "-rf", "a\0b", "a b",
                "caf\u00e9", "x".repeat(65), "line\nbreak", "%2F"};
        for (String b : bad) {
            assertFalse(Names.valid(b), String.valueOf(b));
            Names.InvalidName e = assertThrows(Names.InvalidName.class, () -> Names.require("camera id", b));
            assertTrue(e.getMessage().startsWith("camera id: expected a name of 1-64 letters"), e.getMessage());
        }
        assertTrue(Names.valid("x".repeat(128), Names.DERIVED_MAX));
        assertFalse(Names.valid("x".repeat(129), Names.DERIVED_MAX));
    }

    @Test
    void errorsQuoteAShortEscapedPrefix() {
        String msg = assertThrows(Names.InvalidName.class, () -> Names.require("zone id", "a\0" + "y".repeat(10_000))).getMessage();
        assertTrue(msg.contains("\"a\\u0000yyy"), msg);
        assertTrue(msg.endsWith("(10002 characters)"), msg);
        assertTrue(msg.length() < 250, msg);
    }

    @Test
    void filesStayInTheirDirectory() {
        Path dir = Path.of("/var/cache/argus/scenes");
        assertEquals(dir.resolve("cam1.json"), Names.fileIn(dir, "camera id", "cam1", ".json"));
        assertThrows(Names.InvalidName.class, () -> Names.fileIn(dir, "camera id", "../pwned", ".json"));
        assertThrows(Names.InvalidName.class, () -> Names.fileIn(dir, "camera id", "/tmp/x/sub/y", ".json"));
        assertThrows(IllegalArgumentException.class, () -> Names.fileIn(dir, "camera id", "cam1", "/../../x"));
    }
}
