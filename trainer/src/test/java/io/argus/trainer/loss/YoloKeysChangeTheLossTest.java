package io.argus.trainer.loss;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.argus.detector.darknet.Activation;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.testkit.Budget;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every [yolo] key the loss reads moves the loss or the gradient it hands back (their exact values are other tests'):
 * set to a value other than Darknet's default, on the same predictions and truths, they are not the default's.
 */
@Budget(seconds = 5)
class YoloKeysChangeTheLossTest {
    private static final int GRID = 8;
    private static final String BASE = "iou_loss=ciou\niou_normalizer=0.07\nignore_thresh=0.5\n";

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ignore_thresh=0.2", "truth_thresh=0.3", "iou_thresh=0.2", "iou_normalizer=0.5",
            "cls_normalizer=2", "obj_normalizer=0.5", "iou_loss=giou", "max_delta=0.01", "objectness_smooth=1",
            "label_smooth_eps=0.1", "iou_loss=mse; scale_x_y=1.2", "new_coords=1",
            "anchors=4,4, 8,8, 16,16, 24,24, 32,32, 48,48", "mask=3,4,5"})
    void aValueOtherThanTheDefaultChangesTheLossOrItsGradient(String settings) {
        // "context; change": the context holds in both runs (the [yolo] layer's forward applies scale_x_y to the
        // outputs the loss decodes; the loss itself reads it only in mse's centre term)
        String[] parts = settings.split("; ");
        String reference = BASE;
        for (int i = 0; i < parts.length; i++) {
            String key = parts[i].substring(0, parts[i].indexOf('='));
            String without = reference.replaceAll("(?m)^" + key + "=.*\n", "") + parts[i] + "\n";
            if (i < parts.length - 1) {
                reference = without;
            } else {
                assertFalse(Arrays.equals(lossAndGradient(reference), lossAndGradient(without)),
                        parts[i] + " left the loss and its gradient as they were");
            }
        }
    }

    /**
     * The loss, then its gradient, of a head of 3 anchors and 2 classes over an 8x8 grid, for seeded predictions and
     * truths.
     */
    private static float[] lossAndGradient(String keys) {
        String anchors = keys.contains("anchors=") ? "" : "anchors=6,6, 10,12, 16,14, 20,24, 30,28, 40,44\n";
        String mask = keys.contains("mask=") ? "" : "mask=0,1,2\n";
        YoloSpec head = NetworkSpec.parse(Path.of("keys.cfg"), "[net]\nwidth=" + GRID + "\nheight=" + GRID
                + "\nchannels=21\n[yolo]\nnum=6\nclasses=2\n" + anchors + mask + keys, 0, 0).yoloLayers().get(0);
        int size = head.output().size();
        SplittableRandom rnd = new SplittableRandom(11);
        FloatBuffer in = FloatBuffer.allocate(size);
        FloatBuffer out = FloatBuffer.allocate(size);
        int plane = GRID * GRID;
        for (int i = 0; i < size; i++) {
            int entry = i / plane % 7;
            float z = (float) rnd.nextDouble(-2, 2);
            in.put(i, z);
            boolean logistic = head.newCoords() || (entry != 2 && entry != 3);
            out.put(i, logistic ? Activation.logistic(z) : z);
        }
        List<Truth> truths = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            truths.add(new Truth((float) rnd.nextDouble(0.1, 0.9), (float) rnd.nextDouble(0.1, 0.9),
                    (float) rnd.nextDouble(0.05, 0.5), (float) rnd.nextDouble(0.05, 0.5), t % 2));
        }
        FloatBuffer grad = FloatBuffer.allocate(size);
        // a 64x64 network input over the 8x8 grid: anchors of a few pixels to a few cells
        LossParts loss = new YoloLoss(head, 64, 64).image(out, in, 0, truths, grad, 1f);
        float[] all = new float[size + 1];
        all[0] = (float) loss.total();
        System.arraycopy(grad.array(), 0, all, 1, size);
        return all;
    }
}
