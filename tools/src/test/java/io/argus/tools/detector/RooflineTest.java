package io.argus.tools.detector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.testkit.Budget;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The roofline's arithmetic, checked by hand on a two-layer network, and its refusals. */
@Budget(seconds = 2)
class RooflineTest {
    // 8x8x3 input; a 3x3 convolution to 16 channels (8x8), a 2x2/2 max pool (4x4), a route of the convolution
    static final String CFG = """
            [net]
            width=8
            height=8
            channels=3

            [convolutional]
            batch_normalize=1
            filters=16
            size=3
            stride=1
            pad=1
            activation=leaky

            [maxpool]
            size=2
            stride=2

            [route]
            layers=-2
            """;

    @Test
    void eachLayerIsTheLongerOfItsArithmeticAndItsTraffic() {
        NetworkSpec spec = NetworkSpec.parse(Path.of("roofline.cfg"), CFG, 0, 0);
        Roofline.Result r = Roofline.of(spec, 2, 1.0, 1.0, 2);   // 1 TFLOP/s, 1 TB/s: 1e9 FLOP or bytes per ms
        Roofline.Layer conv = r.layers().get(0);
        double flops = 2.0 * 2 * 16 * 3 * 3 * 3 * 8 * 8;   // batch x 2 x filters x k x k x channels x outputs
        assertEquals(flops, conv.flops(), 1e-6);
        double bytes = 2 * (2.0 * (8 * 8 * 3 + 8 * 8 * 16) + 16 * 3 * 3 * 3);
        assertEquals(bytes, conv.bytes(), 1e-6);
        assertEquals(flops / 1e9, conv.computeMs(), 1e-15);
        assertEquals(bytes / 1e9, conv.memoryMs(), 1e-15);
        assertTrue(conv.computeMs() > conv.memoryMs(), "this convolution is compute-bound");
        Roofline.Layer pool = r.layers().get(1);
        assertEquals(0, pool.flops());
        assertEquals(2 * 2.0 * (8 * 8 * 16 + 4 * 4 * 16), pool.bytes(), 1e-6);
        assertTrue(pool.memoryBound());
        Roofline.Layer route = r.layers().get(2);
        assertEquals(0, route.bytes(), "a route is laid out in place");
        assertFalse(route.memoryBound());
        assertEquals(conv.boundMs() + pool.boundMs(), r.boundMs(), 1e-15);
        assertEquals(2 * 1000.0 / r.boundMs(), r.imagesPerSecond(), 1e-6);
    }

    @Test
    void refusesWhatCannotBeARoofline() {
        NetworkSpec spec = NetworkSpec.parse(Path.of("roofline.cfg"), CFG, 0, 0);
        assertThrows(IllegalArgumentException.class, () -> Roofline.of(spec, 0, 1, 1, 2));
        assertThrows(IllegalArgumentException.class, () -> Roofline.of(spec, 1, 0, 1, 2));
        assertThrows(IllegalArgumentException.class, () -> Roofline.of(spec, 1, 1, -1, 2));
        assertThrows(IllegalArgumentException.class, () -> Roofline.of(spec, 1, 1, 1, 0));
    }
}
