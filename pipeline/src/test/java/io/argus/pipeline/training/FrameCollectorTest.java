package io.argus.pipeline.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.argus.detector.BgrImage;
import io.argus.detector.Box;
import io.argus.detector.Detection;
import io.argus.testkit.Budget;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which frames the collector keeps: one per interval, not the same scene again, the least confident first. */
@Budget(seconds = 5)
class FrameCollectorTest {
    /** A 64x64 frame of one grey level (scenes differ by level: |a-b|/255 is their thumbnail distance). */
    static BgrImage grey(int level) {
        byte[] px = new byte[64 * 64 * 3];
        Arrays.fill(px, (byte) level);
        return BgrImage.of(64, 64, px);
    }

    static FrameCollector.Candidate candidate(String camera, long frame, int level, double confidence) {
        return new FrameCollector.Candidate(camera, frame, frame * 40.0, 1000.0 + frame, grey(level),
                List.of(new Detection(0, "circle", (float) confidence, new Box(1, 1, 5, 5))), confidence, "v1", false);
    }

    @Test
    void theLeastConfidentNovelCandidateOfAnIntervalIsKept() {
        FrameCollector c = new FrameCollector(1000, 0.05);
        FrameCollector.Candidate first = candidate("a", 0, 100, 0.9);
        assertSame(first, c.consider(first, 0), "the first frame of a camera is kept at once");
        c.kept("a");
        assertNull(c.consider(candidate("a", 1, 102, 0.1), 100), "the same scene again (distance 0.008) is passed over");
        FrameCollector.Candidate unsure = candidate("a", 2, 200, 0.3);
        assertNull(c.consider(candidate("a", 3, 50, 0.8), 200), "novel, but the interval has not passed");
        assertNull(c.consider(unsure, 300));
        assertNull(c.consider(candidate("a", 4, 160, 0.6), 400));
        FrameCollector.Candidate due = candidate("a", 5, 30, 0.95);
        assertSame(unsure, c.consider(due, 1000), "at the interval: the least confident novel candidate");
        c.kept("a");
        assertNull(c.consider(candidate("a", 6, 200, 0.01), 2100), "like the frame just kept");
        FrameCollector.Candidate next = candidate("a", 7, 250, 0.5);
        assertSame(next, c.consider(next, 2200), "a new scene after the interval");
    }

    @Test
    void camerasAreIndependentAndForcedFramesAreKeptAsTheyAre() {
        FrameCollector c = new FrameCollector(10_000, 0.05);
        c.consider(candidate("a", 0, 100, 0.9), 0);
        c.kept("a");
        FrameCollector.Candidate b = candidate("b", 0, 100, 0.9);
        assertSame(b, c.consider(b, 1), "another camera has its own interval and scenes");
        FrameCollector.Candidate forced = new FrameCollector.Candidate("a", 9, 0, 0, grey(100), List.of(), 0.25, "v1", true);
        assertSame(forced, c.consider(forced, 2), "asked for: same scene and within the interval, kept anyway");
    }

    @Test
    void thumbnailDistanceIsTheMeanAbsoluteGreyDifference() {
        assertEquals(0.0, Thumbnail.of(grey(40)).distance(Thumbnail.of(grey(40))), 1e-9);
        assertEquals(100 / 255.0, Thumbnail.of(grey(40)).distance(Thumbnail.of(grey(140))), 1e-6);
        assertEquals(0.9, CollectorTap.confidence(List.of(new Detection(0, "x", 0.9f, new Box(0, 0, 1, 1)),
                new Detection(0, "x", 0.95f, new Box(0, 0, 1, 1))), 0.25f), 1e-6);
        assertEquals(0.25, CollectorTap.confidence(List.of(), 0.25f), 1e-6, "nothing found: as unsure as the threshold");
    }
}
