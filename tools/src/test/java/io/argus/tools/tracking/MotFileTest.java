package io.argus.tools.tracking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** MOTChallenge files: what is written reads back the same; a broken line is named with its file, line and field. */
@Budget(seconds = 5)
class MotFileTest {
    @TempDir
    Path tmp;

    @Test
    void rowsReadBackAsWrittenSortedByFrameThenId() throws Exception {
        List<MotRow> rows = List.of(
                new MotRow(2, 7, 10.5, 20.25, 30, 40.75, 1, 3, 0.5),
                new MotRow(1, 9, -4.5, 0, 12, 13, 0.8125, MotRow.NO_CLASS, 1),
                new MotRow(1, 2, 100, 200, 1.5, 2.5, 1, 0, 0));
        Path file = tmp.resolve("gt.txt");
        MotFile.write(file, rows);
        assertEquals("1,2,100,200,1.5,2.5,1,0,0\n1,9,-4.5,0,12,13,0.8125,-1,1\n2,7,10.5,20.25,30,40.75,1,3,0.5\n",
                Files.readString(file));
        assertEquals(List.of(rows.get(2), rows.get(1), rows.get(0)), MotFile.read(file));
    }

    @Test
    void readsMotChallengeResultsAndGroundTruthAsPublished() {
        List<MotRow> rows = MotFile.parse(List.of(
                "1,1,912.0,484.0,97.0,109.0,0.98,-1,-1,-1",   // a tracker's results: x,y,z = -1
                "",
                "1,2,1338,418,167,379,1,1,0.86173",           // MOT17 ground truth
                "3, 4, 5, 6, 7, 8"), "f.txt");                // only the box, spaces after commas
        assertEquals(new MotRow(1, 1, 912, 484, 97, 109, 0.98, MotRow.NO_CLASS, 1), rows.get(0));
        assertEquals(new MotRow(1, 2, 1338, 418, 167, 379, 1, 1, 0.86173), rows.get(1));
        assertEquals(new MotRow(3, 4, 5, 6, 7, 8, 1, MotRow.NO_CLASS, 1), rows.get(2));
    }

    @Test
    void aBrokenLineIsNamedWithItsFileLineAndField() throws Exception {
        assertEquals("gt.txt:2: field 3 (left): expected a number, found \"abc\"",
                error("1,1,0,0,5,5,1,0,1", "1,2,abc,0,5,5,1,0,1"));
        assertEquals("gt.txt:1: field 1 (frame): expected 1 or more (frames count from 1), found \"0\"",
                error("0,1,0,0,5,5,1,0,1"));
        assertEquals("gt.txt:1: field 2 (id): expected an integer, found \"1.5\"", error("1,1.5,0,0,5,5"));
        assertEquals("gt.txt:1: field 5 (width): expected a size >= 0, found \"-5\"", error("1,1,0,0,-5,5"));
        assertEquals("gt.txt:1: field 9 (visibility): expected 0..1 (or -1: not given), found \"1.5\"",
                error("1,1,0,0,5,5,1,0,1.5"));
        assertEquals("gt.txt:1: field 8 (class): expected a class index >= 0 or -1, found \"-3\"",
                error("1,1,0,0,5,5,1,-3,1"));
        assertEquals("gt.txt:3: expected 6 to 10 comma-separated fields "
                + "(frame,id,left,top,width,height,conf,class,visibility), found 4: 1,1,0,0", error("", "", "1,1,0,0"));
    }

    private String error(String... lines) throws Exception {
        Path file = tmp.resolve("gt.txt");
        Files.write(file, List.of(lines));
        String message = assertThrows(IllegalArgumentException.class, () -> MotFile.read(file)).getMessage();
        return message.substring(message.indexOf("gt.txt"));
    }

    @Test
    void anIdTwiceInOneFrameIsAnError() {
        List<MotRow> gt = MotFile.parse(List.of("1,1,0,0,5,5", "1,1,9,9,5,5"), "gt.txt");
        assertEquals("ground truth: frame 1 has id 1 twice (an id is one object, once per frame)",
                assertThrows(IllegalArgumentException.class, () -> MotSequence.of(gt, List.of())).getMessage());
    }
}
