package io.argus.detector.onnx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.Activation;
import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.HostOpsSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.MaxPoolSpec;
import io.argus.detector.darknet.UpsampleSpec;
import io.argus.testkit.Budget;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What an imported graph becomes: layers of our kinds where they exist (convolutions with their batch norm and
 * activation fused, pools, upsampling, routes, shortcuts), the rest on the host.
 */
@Budget(seconds = 5)
class OnnxLoweringTest {
    @Test
    void aYolov8BecomesOurLayersWithItsDecodingOnTheHost() throws Exception {
        OnnxModel m = OnnxModel.read(Path.of(getClass().getResource("/onnx/tiny-yolov8.onnx").toURI()));
        OnnxLowering.Lowered l = OnnxLowering.lower(m);
        List<LayerSpec> layers = l.spec().layers();
        long convNodes = m.nodes().stream().filter(n -> n.op().equals("Conv")).count();
        List<ConvolutionalSpec> convs = l.spec().convolutionalLayers();
        // every convolution but DFL's (it reads the softmax of the decoding) is a layer
        assertEquals(convNodes - 1, convs.size());
        assertEquals(1, l.tail().nodes().stream().filter(n -> n.op().equals("Conv")).count());
        // Conv + SiLU everywhere but the six 1x1 convolutions that end the heads' branches
        assertEquals(convs.size() - 6, convs.stream().filter(c -> c.activation() == Activation.SWISH).count());
        assertEquals(6, convs.stream().filter(c -> c.activation() == Activation.LINEAR && c.size() == 1).count());
        assertEquals(3, layers.stream().filter(x -> x instanceof MaxPoolSpec).count(), "SPPF's pools");
        assertEquals(2, layers.stream().filter(x -> x instanceof UpsampleSpec).count(), "the neck's upsampling");
        assertFalse(layers.stream().anyMatch(x -> x instanceof HostOpsSpec), "nothing of the backbone on the host");
        assertEquals(3, l.tail().inputLayers().length, "the three heads' concatenations");
        assertEquals(List.of("output0"), l.tail().outputs());
        assertTrue(l.tail().nodes().stream().noneMatch(n -> n.op().equals("MaxPool") || n.op().equals("Resize")));
    }

    @Test
    void resizeIsOurUpsampleWhenItRepeatsPixels() {
        assertTrue(OnnxLowering.repeats("asymmetric", "floor", 20, 2));              // torch nn.Upsample(nearest)
        assertTrue(OnnxLowering.repeats("half_pixel", "round_prefer_floor", 20, 2));
        assertTrue(OnnxLowering.repeats("pytorch_half_pixel", "round_prefer_ceil", 20, 2));
        assertTrue(OnnxLowering.repeats("asymmetric", "floor", 7, 3));
        assertFalse(OnnxLowering.repeats("asymmetric", "round_prefer_ceil", 20, 2));  // pixel 1 reads source 1
        assertTrue(OnnxLowering.repeats("align_corners", "round_prefer_floor", 20, 2));  // rounding lands on i / 2
        assertFalse(OnnxLowering.repeats("align_corners", "floor", 20, 2));               // pixel 2 reads source 0
        assertFalse(OnnxLowering.repeats("tf_crop_and_resize", "floor", 20, 2));
    }
}
