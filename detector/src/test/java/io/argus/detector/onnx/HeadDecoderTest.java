package io.argus.detector.onnx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.Model;
import io.argus.detector.darknet.Shape;
import io.argus.testkit.Budget;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The families' decoding off the head layers stands in for the graph's tail only where it computes the same: found for
 * the YOLOv5 and YOLOv8-style exports, not for YOLOX's (whose tail is a concatenation), and refused when asked to read
 * a graph as a family it is not.
 */
@Budget(seconds = 5)
class HeadDecoderTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource({"tiny-yolov8, Yolov8", "tiny-yolo11, Yolov8", "tiny-yolov9, Yolov8", "tiny-yolov5, Yolov5",
            "tiny-yolox, none"})
    void aFamilysDecodingReplacesTheTailOnlyWhereItComputesTheSame(String name, String decoder) throws Exception {
        Model m = OnnxImport.load(Path.of(getClass().getResource("/onnx/" + name + ".onnx").toURI()), null, null);
        HeadDecoder d = OnnxHead.in(m).decoder();
        assertEquals(decoder, d == null ? "none" : d.getClass().getSimpleName());
        if (d == null) return;
        // on other random head values than the probe's: the whole output equal to the tail's
        List<Shape> shapes = new ArrayList<>();
        for (int layer : OnnxHead.in(m).tail().inputLayers()) shapes.add(m.spec().layers().get(layer).output());
        Random random = new Random(42);
        float[][] heads = new float[shapes.size()][];
        for (int i = 0; i < heads.length; i++) {
            heads[i] = new float[shapes.get(i).size()];
            for (int k = 0; k < heads[i].length; k++) heads[i][k] = (float) (random.nextGaussian() * 3);
        }
        float[] tail = OnnxHead.in(m).tail().run(heads).get(0).data();
        float[] ours = d.fullOutput(heads);
        double num = 0, den = 0;
        for (int k = 0; k < tail.length; k++) {
            num += (ours[k] - tail[k]) * (double) (ours[k] - tail[k]);
            den += tail[k] * (double) tail[k];
        }
        assertTrue(Math.sqrt(num / den) <= 1e-5, name + ": relative L2 " + Math.sqrt(num / den));
    }

    @ParameterizedTest(name = "{0} read as {1}")
    @CsvSource({"tiny-yolov8, YOLOV5", "tiny-yolov5, YOLOV8"})
    void aGraphReadAsAnotherFamilyGetsNoDecoder(String name, OnnxHead.Family family) throws Exception {
        Model m = OnnxImport.load(Path.of(getClass().getResource("/onnx/" + name + ".onnx").toURI()), null, null);
        OnnxHead other = new OnnxHead(OnnxHead.in(m).tail(), family, OnnxHead.in(m).classes(), OnnxHead.in(m).convention(),
                OnnxHead.in(m).inputWidth(), OnnxHead.in(m).inputHeight(), null);
        List<Shape> shapes = new ArrayList<>();
        for (int layer : OnnxHead.in(m).tail().inputLayers()) shapes.add(m.spec().layers().get(layer).output());
        assertNull(HeadDecoder.probe(other, shapes));
    }

    /**
     * The vectorised exponential the full output uses: within 4e-7 relative of Math.exp on [-87.33, 88.37] (where e^x
     * is a normal float), the value at the nearer end outside it, NaN for NaN; a sigmoid through it saturates to
     * exactly 1 and to below 1e-38.
     */
    @Test
    void theVectorisedExponentialAgreesWithMathExp() {
        Random r = new Random(11);
        int n = 100_003;
        float[] x = new float[n], k = new float[n];
        for (int i = 0; i < n; i++) x[i] = i < 6 ? new float[] {-1000f, -87.4f, 88.4f, 1000f, Float.NaN, 0f}[i]
                : (float) (r.nextDouble() * 175 - 87.3);
        float[] in = x.clone();
        HeadDecoder.expInPlace(x, k, n);
        float low = x[0], high = x[3];
        assertEquals(low, x[1]);
        assertEquals(high, x[2]);
        assertTrue(Math.abs(low - Math.exp(-87.33f)) <= 4e-7 * Math.exp(-87.33f) && low >= Float.MIN_NORMAL, "low " + low);
        assertTrue(Math.abs(high - Math.exp(88.37f)) <= 4e-7 * Math.exp(88.37f), "high " + high);
        assertTrue(Float.isNaN(x[4]));
        assertEquals(1f, x[5]);
        double worst = 0;
        for (int i = 6; i < n; i++) worst = Math.max(worst, Math.abs(x[i] - Math.exp(in[i])) / Math.exp(in[i]));
        assertTrue(worst <= 4e-7, "worst relative error " + worst);
        float[] s = new float[2];
        HeadDecoder.sigmoids(new float[] {1000f, -1000f}, 0, s, 0, 2, new float[2], new float[2]);
        assertEquals(1f, s[0]);
        assertTrue(s[1] >= 0 && s[1] < 1e-38f, "sigmoid(-1000) " + s[1]);
    }
}
