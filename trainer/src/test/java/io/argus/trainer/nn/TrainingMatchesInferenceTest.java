package io.argus.trainer.nn;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.cpu.CpuNetwork;
import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.testkit.Budget;
import java.nio.FloatBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The training forward against the inference engine (detector's CpuNetwork, batch norm folded): once the rolling
 * statistics are set to the batch's own, both must give the same [yolo] outputs for every image of the batch.
 */
@Budget(seconds = 5)
class TrainingMatchesInferenceTest {
    /** A yolov4-tiny-like network: grouped routes, max-pools of both kinds, upsample, two heads, all activations. */
    static final String CFG = """
            [net]
            width=32
            height=32
            channels=3
            [convolutional]
            batch_normalize=1
            filters=8
            size=3
            stride=2
            pad=1
            activation=leaky
            [convolutional]
            batch_normalize=1
            filters=8
            size=3
            stride=1
            pad=1
            activation=%s
            [route]
            layers=-1
            groups=2
            group_id=1
            [convolutional]
            batch_normalize=1
            filters=8
            size=3
            stride=1
            pad=1
            groups=2
            activation=mish
            [route]
            layers=-1,-3
            [maxpool]
            size=2
            stride=2
            [convolutional]
            batch_normalize=1
            filters=16
            size=3
            stride=1
            pad=1
            activation=swish
            [shortcut]
            from=-2
            activation=linear
            [maxpool]
            size=2
            stride=1
            [convolutional]
            batch_normalize=1
            filters=16
            size=1
            stride=1
            pad=1
            activation=logistic
            [convolutional]
            size=1
            stride=1
            pad=1
            filters=21
            activation=linear
            [yolo]
            mask=3,4,5
            anchors=4,4, 6,8, 9,9, 12,10, 16,16, 24,20
            classes=2
            num=6
            scale_x_y=1.05
            [route]
            layers=-4
            [convolutional]
            batch_normalize=1
            filters=8
            size=1
            stride=1
            pad=1
            activation=relu
            [upsample]
            stride=2
            [route]
            layers=-1,1
            [convolutional]
            size=1
            stride=1
            pad=1
            filters=21
            activation=linear
            [yolo]
            mask=0,1,2
            anchors=4,4, 6,8, 9,9, 12,10, 16,16, 24,20
            classes=2
            num=6
            """;

    @ParameterizedTest
    @ValueSource(strings = {"leaky", "mish"})
    void trainingForwardWithBatchStatisticsEqualsInference(String act) {
        NetworkSpec spec = GradientCheck.spec(String.format(CFG, act));
        int batch = 3;
        ModelWeights weights = GradientCheck.randomWeights(spec, 11);
        try (Workers workers = new Workers(2);
             TrainContext ctx = new TrainContext(workers, false);
             TrainNetwork train = new TrainNetwork(spec, weights, batch, ctx)) {
            SplittableRandom rnd = new SplittableRandom(5);
            float[] input = new float[batch * spec.inputShape().size()];
            for (int i = 0; i < input.length; i++) input[i] = (float) rnd.nextDouble();
            train.input().put(0, input);
            train.forward(batch);

            ModelWeights folded = train.weights(0);
            for (int i : folded.layerIndices()) {
                ConvWeights c = folded.conv(i);
                float[][] stats = train.batchStatistics(i);
                if (stats == null) continue;
                System.arraycopy(stats[0], 0, c.mean(), 0, stats[0].length);
                System.arraycopy(stats[1], 0, c.variance(), 0, stats[1].length);
            }
            try (CpuNetwork inference = new CpuNetwork(spec, folded, batch)) {
                inference.input().put(0, input);
                inference.forward(batch);
                for (YoloSpec y : spec.yoloLayers()) {
                    double err = relativeL2(train.output(y.index()), inference.output(y.index()),
                            batch * y.output().size());
                    System.out.printf("[yolo] %d: relative L2 training vs inference %.2e%n", y.index(), err);
                    assertTrue(err < 1e-5, "[yolo] layer " + y.index() + ": relative L2 " + err);
                }
            }
        }
    }

    static double relativeL2(FloatBuffer a, FloatBuffer b, int n) {
        double diff = 0;
        double norm = 0;
        for (int i = 0; i < n; i++) {
            double d = a.get(i) - b.get(i);
            diff += d * d;
            norm += (double) b.get(i) * b.get(i);
        }
        return Math.sqrt(diff / norm);
    }
}
