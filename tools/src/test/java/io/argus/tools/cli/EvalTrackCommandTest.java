package io.argus.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.ArgusRun;
import io.argus.testkit.Budget;
import io.argus.tools.tracking.MotFile;
import io.argus.tools.tracking.MotRow;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code argus eval track} end to end: scoring a results file, the demo model and ByteTrack on a synthetic tracking
 * video from {@code argus dataset tracking}, clear errors; and {@code argus eval} still demanding its options.
 */
@Budget(seconds = 35)
class EvalTrackCommandTest {
    private static final Pattern LAST_LINE =
            Pattern.compile("MOTA = (-?[0-9.]+), IDF1 = ([0-9.]+), HOTA = ([0-9.]+), IDSW = ([0-9]+)");

    @TempDir
    Path tmp;

    @Test
    void scoresAResultsFile() throws Exception {
        Path gt = tmp.resolve("gt.txt"), results = tmp.resolve("results.txt");
        MotFile.write(gt, List.of(new MotRow(1, 1, 0, 0, 10, 10, 1, 0, 1), new MotRow(2, 1, 2, 0, 10, 10, 1, 0, 1)));
        MotFile.write(results, List.of(new MotRow(1, 7, 0, 0, 10, 10, 0.9, 0, 1), new MotRow(2, 7, 2, 0, 10, 10, 0.9, 0, 1)));
        ArgusRun.Result r = ArgusRun.argus("eval", "track", "--results", results.toString(), "--gt",
                gt.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("CLEAR:    MOTA = 1.0000"), r.out());
        assertTrue(r.out().strip().endsWith("MOTA = 1.0000, IDF1 = 1.0000, HOTA = 1.0000, IDSW = 0"), r.out());
    }

    @Test
    void tracksTheSyntheticVideoWithTheDemoModelAndComparesTheLineCounts() {
        Path dir = tmp.resolve("video");
        ArgusRun.Result made = ArgusRun.argus("dataset", "tracking", "--seed", "5", "--out",
                dir.toString());
        assertEquals(0, made.code(), made.err());
        assertTrue(Files.isRegularFile(dir.resolve("video.mp4")) && Files.isRegularFile(dir.resolve("scene.json")));
        Path results = tmp.resolve("results.txt");
        Path detections = tmp.resolve("det.txt");
        ArgusRun.Result r = ArgusRun.argus("eval", "track", "--video", dir.resolve("video.mp4")
                .toString(), "--gt", dir.resolve("gt.txt").toString(), "--backend", "cpu", "--out", results.toString(),
                "--save-detections", detections.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("line line: "), "the line counts against the true ones:\n" + r.out());
        Matcher m = LAST_LINE.matcher(r.out().strip().lines().reduce((a, b) -> b).orElse(""));
        assertTrue(m.matches(), r.out());
        // not the acceptance figures: a floor that only a broken pipeline (frames, boxes or ids astray) falls under
        assertTrue(Double.parseDouble(m.group(1)) > 0.5 && Double.parseDouble(m.group(2)) > 0.5, r.out());
        List<MotRow> rows = MotFile.read(results);
        assertTrue(rows.size() > 500 && rows.stream().allMatch(x -> x.classId() >= 0), "results: " + rows.size());

        // the saved detections, tracked again without the model: the very same tracks and scores
        Path again = tmp.resolve("again.txt");
        ArgusRun.Result t = ArgusRun.argus("eval", "track", "--detections", detections.toString(),
                "--gt", dir.resolve("gt.txt").toString(), "--out", again.toString());
        assertEquals(0, t.code(), t.err());
        assertEquals(lastLine(r.out()), lastLine(t.out()));
        assertEquals(rows, MotFile.read(again));
        // with a shorter memory for lost tracks, a different tracker: the option reaches it
        ArgusRun.Result u = ArgusRun.argus("eval", "track", "--detections", detections.toString(),
                "--gt", dir.resolve("gt.txt").toString(), "--track-buffer", "0");
        assertEquals(0, u.code(), u.err());
        assertTrue(u.out().contains("lost tracks kept 0 frames"), u.out());
    }

    private static String lastLine(String out) {
        return out.strip().lines().reduce((a, b) -> b).orElse("");
    }

    @Test
    void wantsAVideoOrAResultsFile() {
        ArgusRun.Result r = ArgusRun.argus("eval", "track", "--gt", "gt.txt");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("argus eval track: give one of --video (run the model and tracker), --detections "
                + "(run the tracker) or --results (score only), found 0"), r.err());
        r = ArgusRun.argus("eval", "track", "--gt", "gt.txt", "--results", "r.txt", "--save-detections", "d.txt");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--save-detections needs --video"), r.err());
    }

    @Test
    void aBrokenGroundTruthLineIsNamed() throws Exception {
        Path gt = tmp.resolve("gt.txt");
        Files.writeString(gt, "1,1,0,0,10,10,1,0,1\n2,1,0,zero,10,10,1,0,1\n");
        ArgusRun.Result r = ArgusRun.argus("eval", "track", "--results", gt.toString(), "--gt",
                gt.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains(gt + ":2: field 4 (top): expected a number, found \"zero\""), r.err());
    }

    /** `eval` has a subcommand now, so its options are checked by hand: the same message as picocli's. */
    @Test
    void evalStillDemandsItsOptions() {
        ArgusRun.Result r = ArgusRun.argus("eval");
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("Missing required options: '--cfg=<cfg>', '--weights=<weights>', "
                + "'--data=<data>'"), r.err());
        r = ArgusRun.argus("eval", "--cfg", "x", "--weights", "y");
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("Missing required option: '--data=<data>'"), r.err());
    }
}
