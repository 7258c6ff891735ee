package io.argus.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.ArgusRun;
import io.argus.testkit.Budget;
import io.argus.tools.tracking.MotFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code argus dataset tracking} and {@code argus dataset frames} (the tools jar's part of {@code argus dataset}): a
 * synthetic tracking video turned into a detection dataset, clear errors. Budget: 60 s (44 s measured on the shared
 * 2-core machine: one tracking video made, then sampled twice).
 */
@Budget(seconds = 70)
class DatasetFramesCommandTest {
    @TempDir
    Path tmp;

    /** {@code dataset frames}: a tracking video's sampled frames with the ground truth's visible boxes as labels. */
    @Test
    void turnsATrackingVideoIntoADetectionDataset() throws Exception {
        Path video = tmp.resolve("v");
        ArgusRun.Result made = ArgusRun.argus("dataset", "tracking", "--seed", "5", "--out",
                video.toString());
        assertEquals(0, made.code(), made.err());
        Path out = tmp.resolve("frames");
        ArgusRun.Result r = ArgusRun.argus("dataset", "frames", "--video",
                video.resolve("video.mp4").toString(), "--gt", video.resolve("gt.txt").toString(), "--out",
                out.toString(), "--every", "25", "--val-fraction", "0.25");
        assertEquals(0, r.code(), r.err());
        var truth = MotFile.read(video.resolve("gt.txt"));
        java.util.regex.Matcher framesMade = java.util.regex.Pattern.compile("\\(([0-9]+) frames,").matcher(made.out());
        assertTrue(framesMade.find(), made.out());
        int frames = Integer.parseInt(framesMade.group(1));
        java.util.List<String> train = Files.readAllLines(out.resolve("train.txt"));
        java.util.List<String> val = Files.readAllLines(out.resolve("val.txt"));
        int sampled = train.size() + val.size();
        assertEquals((frames + 24) / 25, sampled, "frames 1, 26, 51... of " + frames);
        assertEquals(Math.round(sampled * 0.25), val.size());
        assertTrue(r.out().startsWith("wrote " + train.size() + " training and " + val.size() + " validation images"),
                r.out());
        int boxes = 0;
        for (String image : java.util.stream.Stream.concat(train.stream(), val.stream()).toList()) {
            // images/<split>/v_FFFFFF.png: every 25th frame from the first
            int frame = Integer.parseInt(image.substring(image.lastIndexOf('_') + 1, image.length() - 4));
            assertEquals(1, frame % 25, image);
            java.awt.image.BufferedImage png = javax.imageio.ImageIO.read(out.resolve(image).toFile());
            assertEquals(384, png.getWidth());
            Path label = out.resolve(image.replace("images/", "labels/").replace(".png", ".txt"));
            java.util.List<String> lines = Files.readAllLines(label);
            java.util.List<String> expected = new java.util.ArrayList<>();
            for (var row : truth) {
                if (row.frame() != frame || row.visibility() < 0.3) continue;
                double l = Math.max(0, row.left()), t = Math.max(0, row.top());
                double rr = Math.min(384, row.right()), b = Math.min(384, row.top() + row.height());
                if (rr <= l || b <= t) continue;
                expected.add(String.format(java.util.Locale.ROOT, "%d %.6f %.6f %.6f %.6f", row.classId(),
                        (float) ((l + rr) / 2 / 384), (float) ((t + b) / 2 / 384), (float) ((rr - l) / 384),
                        (float) ((b - t) / 384)));
            }
            assertEquals(expected, lines, label.toString());
            boxes += lines.size();
        }
        assertTrue(boxes > 20, "boxes " + boxes);
        assertTrue(r.out().contains("(" + boxes + " boxes)"), r.out());
        assertEquals("classes=5\ntrain=train.txt\nvalid=val.txt\nnames=frames.names\n",
                Files.readString(out.resolve("frames.data")));

        // a second video into the same dataset: its paths are added to the lists
        ArgusRun.Result again = ArgusRun.argus("dataset", "frames", "--video",
                video.resolve("video.mp4").toString(), "--gt", video.resolve("gt.txt").toString(), "--out",
                out.toString(), "--every", "25", "--prefix", "second");
        assertEquals(0, again.code(), again.err());
        java.util.List<String> all = Files.readAllLines(out.resolve("train.txt"));
        assertEquals(train.size() + sampled, all.size());
        assertTrue(all.get(all.size() - 1).startsWith("images/train/second_"), all.toString());
    }

    @Test
    void framesRejectsAClassTheNamesDoNotHave() throws Exception {
        Path gt = tmp.resolve("gt.txt"), video = tmp.resolve("video.mp4");
        Files.writeString(gt, "1,1,0,0,10,10,1,7,1\n");
        Files.writeString(video, "not a video");
        ArgusRun.Result r = ArgusRun.argus("dataset", "frames", "--video", video.toString(), "--gt",
                gt.toString(), "--out", tmp.resolve("d").toString());
        assertNotEquals(0, r.code());
        assertTrue(r.err().contains("ground truth, frame 1, object 1: class 7, expected 0..4 (5 class names)"), r.err());
    }
}
