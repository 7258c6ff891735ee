package io.argus.pipeline.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.Box;
import io.argus.detector.Detection;
import io.argus.testkit.Budget;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Overlapping proposals of one class are one object: the frame marks the lower-scored one a duplicate (the
 * annotator's "accept all" leaves it out) and saving labels drops it unless asked to keep it.
 */
@Budget(seconds = 5)
class DuplicateProposalsTest {
    static final List<String> NAMES = AnnotationsTest.NAMES;

    static Detection det(int cls, float score, float x, float y, float w, float h) {
        return new Detection(cls, NAMES.get(cls), score, new Box(x, y, w, h));
    }

    @Test
    void theLowerScoredOfTwoOverlappingBoxesOfOneClassIsTheDuplicate() {
        List<Detection> boxes = List.of(
                det(0, 0.6f, 10, 10, 20, 20),   // duplicate of the next (IoU 0.86)
                det(0, 0.9f, 11, 10, 20, 19),
                det(1, 0.5f, 10, 10, 20, 20),   // another class at the same place: its own object
                det(0, 0.8f, 22, 10, 20, 20),   // same class beside it (IoU 0.25): its own object
                det(2, 0.7f, 60, 20, 10, 10));
        boolean[] dup = DuplicateBoxes.mark(boxes);
        assertTrue(dup[0]);
        assertFalse(dup[1] || dup[2] || dup[3] || dup[4]);
        assertEquals(List.of(boxes.get(1), boxes.get(2), boxes.get(3), boxes.get(4)), DuplicateBoxes.without(boxes));

        CollectedFrame f = new CollectedFrame("cam-1", "cam", 1, 0, 0, 100, 50, "train", 0.5, "v1", boxes, null, null, 0);
        JsonArray proposals = f.toJson().getJsonArray("proposals");
        assertTrue(proposals.getJsonObject(0).getBoolean("duplicate"));
        for (int i = 1; i < 5; i++) assertNull(proposals.getJsonObject(i).getValue("duplicate"), "proposal " + i);
        assertEquals(boxes, CollectedFrame.fromJson(f.toJson()).proposals(), "the stored form reads back as it was");
    }

    @Test
    void savingAllProposalsKeepsTheHigherScoredOfEachDuplicatePair() {
        JsonObject body = new JsonObject().put("labels", new JsonArray()
                .add(label(0, 0.6, 10, 10, 20, 20)).add(label(0, 0.9, 11, 10, 20, 19)).add(label(1, 0.5, 10, 10, 20, 20)));
        List<Detection> saved = Annotations.parse(body, NAMES, 100, 50);
        assertEquals(2, saved.size(), saved.toString());
        assertEquals(new Box(11, 10, 20, 19), saved.get(0).box(), "the 0.9 box stays");
        assertEquals(1, saved.get(1).classId());
        assertEquals(1f, saved.get(0).confidence(), "a label is stored with confidence 1");

        List<Detection> all = Annotations.parse(body.copy().put("keepDuplicates", true), NAMES, 100, 50);
        assertEquals(3, all.size(), "keepDuplicates saves every box as posted");

        assertEquals("labels[0].confidence: expected a number in 0..1, found 2.0",
                assertThrows(IllegalArgumentException.class, () -> Annotations.parse(new JsonObject().put("labels",
                        new JsonArray().add(label(0, 2, 1, 1, 5, 5))), NAMES, 100, 50)).getMessage());
        assertEquals("keepDuplicates: expected true or false, found yes",
                assertThrows(IllegalArgumentException.class, () -> Annotations.parse(body.copy()
                        .put("keepDuplicates", "yes"), NAMES, 100, 50)).getMessage());
    }

    private static JsonObject label(int cls, double confidence, double x, double y, double w, double h) {
        return new JsonObject().put("classId", cls).put("confidence", confidence)
                .put("box", new JsonObject().put("x", x).put("y", y).put("w", w).put("h", h));
    }
}
