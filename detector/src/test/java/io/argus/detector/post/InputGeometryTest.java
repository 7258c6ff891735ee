package io.argus.detector.post;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

@Budget(seconds = 5)
class InputGeometryTest {
    @Test
    void letterboxOfWideImage() {
        InputGeometry g = InputGeometry.of(416, 416, 768, 576, true);
        assertEquals(416, g.resizedWidth());
        assertEquals(312, g.resizedHeight());
        assertEquals(52, g.offsetY());
        // the top edge of the picture (network y = 52/416) maps to image y = 0, the bottom to 1
        assertEquals(0f, g.toImageY(52f / 416), 1e-6);
        assertEquals(1f, g.toImageY(364f / 416), 1e-6);
        assertEquals(0.5f, g.toImageX(0.5f), 1e-6);
        assertEquals(416f / 312 * 0.1f, g.toImageH(0.1f), 1e-6);
    }

    @Test
    void plainResizeIsIdentityInRelativeUnits() {
        InputGeometry g = InputGeometry.of(416, 416, 768, 576, false);
        assertEquals(0.3f, g.toImageX(0.3f), 1e-6);
        assertEquals(0.7f, g.toImageH(0.7f), 1e-6);
    }
}
