package io.argus.pipeline.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.argus.detector.Detection;
import io.argus.testkit.Budget;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Posted labels: by class name or id, boxes in pixels clipped at the edge, errors naming the entry and field. */
@Budget(seconds = 5)
class AnnotationsTest {
    static final List<String> NAMES = List.of("circle", "square", "star");

    static List<Detection> parse(String json) {
        return Annotations.parse(new JsonObject(json), NAMES, 100, 50);
    }

    @Test
    void labelsByNameOrIdAreClippedToTheFrame() {
        List<Detection> d = parse("{\"labels\": [{\"className\": \"star\", \"box\": {\"x\": 10, \"y\": 5, \"w\": 20, \"h\": 10}},"
                + " {\"classId\": 1, \"box\": {\"x\": -1.5, \"y\": 40, \"w\": 20, \"h\": 11}}]}");
        assertEquals(2, d.get(0).classId());
        assertEquals("square", d.get(1).className());
        assertEquals(0f, d.get(1).box().x());
        assertEquals(18.5f, d.get(1).box().w());
        assertEquals(10f, d.get(1).box().h(), 1e-6f);
        assertEquals(List.of(), parse("{\"labels\": []}"), "nothing to detect is a label too");
    }

    @Test
    void badLabelsNameTheEntryAndTheField() {
        assertEquals("labels: expected a list of {\"className\", \"box\": {\"x\", \"y\", \"w\", \"h\"}}, found nothing",
                assertThrows(IllegalArgumentException.class, () -> parse("{}")).getMessage());
        assertEquals("labels[0].className: unknown class \"dog\" (classes: circle, square, star)",
                assertThrows(IllegalArgumentException.class, () -> parse("{\"labels\": [{\"className\": \"dog\", \"box\": {}}]}")).getMessage());
        assertEquals("labels[1].box.w: expected a number of pixels, found abc",
                assertThrows(IllegalArgumentException.class, () -> parse("{\"labels\": [{\"classId\": 0, \"box\": {\"x\": 1, \"y\": 1, \"w\": 2, \"h\": 2}},"
                        + " {\"classId\": 0, \"box\": {\"x\": 1, \"y\": 1, \"w\": \"abc\", \"h\": 2}}]}")).getMessage());
        assertEquals("labels[0].classId: expected 0..2, found 7",
                assertThrows(IllegalArgumentException.class, () -> parse("{\"labels\": [{\"classId\": 7, \"box\": {}}]}")).getMessage());
        assertEquals("labels[0].box: (90.0, 10.0, 20.0, 10.0) lies outside the 100x50 frame",
                assertThrows(IllegalArgumentException.class, () -> parse("{\"labels\": [{\"classId\": 0, \"box\": {\"x\": 90, \"y\": 10, \"w\": 20, \"h\": 10}}]}")).getMessage());
        assertEquals("labels[0].box: expected w and h of at least 1 pixel, found 0.5x3.0",
                assertThrows(IllegalArgumentException.class, () -> parse("{\"labels\": [{\"classId\": 0, \"box\": {\"x\": 9, \"y\": 1, \"w\": 0.5, \"h\": 3}}]}")).getMessage());
    }
}
