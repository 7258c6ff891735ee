package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.testkit.Budget;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.loss.LossParts;
import io.argus.trainer.train.CpuTrainingBackend;
import java.util.Locale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The GPU's YOLO loss (three kernels, IoU terms and their gradients fused into the assignment) against the CPU's
 * {@link io.argus.trainer.loss.YoloLoss}: loss parts, assigned truths, their IoU sum and dLoss/d(head input), for
 * every box loss and the options that change the assignment or the targets. Strict FP32 on both sides; heads with
 * large-ish random outputs so that ignored and truth_thresh positives occur.
 */
@Tag("gpu")
@Budget(seconds = 5)
class GpuYoloLossTest {
    static final String CFG = """
            [net]
            width=64
            height=64
            channels=3
            [convolutional]
            batch_normalize=1
            filters=16
            size=3
            stride=2
            pad=1
            activation=leaky
            [convolutional]
            batch_normalize=1
            filters=16
            size=3
            stride=2
            pad=1
            activation=leaky
            [convolutional]
            filters=%d
            size=1
            stride=1
            pad=0
            activation=linear
            [yolo]
            mask=0,1,2
            anchors=6,6, 10,14, 16,16, 24,20, 30,40, 48,44
            classes=%d
            num=6
            %s
            """;

    @BeforeAll
    static void needsGpu() {
        GpuTests.assumeGpu();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "iou_loss=mse|scale_x_y=1.1",
            "iou_loss=iou",
            "iou_loss=giou|iou_normalizer=0.5|max_delta=2",
            "iou_loss=diou|ignore_thresh=0.3",
            "iou_loss=ciou|iou_normalizer=0.07|scale_x_y=1.05|ignore_thresh=0.5|truth_thresh=0.6",
            "iou_loss=ciou|iou_thresh=0.213|objectness_smooth=1|label_smooth_eps=0.1|cls_normalizer=2|obj_normalizer=0.5",
            "iou_loss=ciou|new_coords=1|scale_x_y=2",
            "iou_loss=mse|new_coords=1|scale_x_y=2|classes40",
    })
    void lossAndGradientMatchTheCpu(String options) {
        boolean manyClasses = options.contains("classes40");
        int classes = manyClasses ? 40 : 3;
        String keys = options.replace("|classes40", "").replace('|', '\n');
        NetworkSpec spec = GpuTests.spec("loss", String.format(Locale.ROOT, CFG, 3 * (5 + classes), classes, keys));
        int n = 4;
        int head = 2;
        ModelWeights w = WeightsInit.darknet(spec, 21);
        float[] hw = w.conv(head).weights();
        for (int i = 0; i < hw.length; i++) hw[i] *= 8;   // spread the raw outputs: confident, varied boxes
        TrainingBatch batch = GpuTests.batch(spec, n, 5);
        float scale = 4f;
        try (CpuTrainingBackend cpu = new CpuTrainingBackend(spec, w, n, 2, false);
             CudaTrainingBackend gpu = new CudaTrainingBackend(spec, w, n, GpuTests.options(Precision.FP32),
                     true)) {   // keep gradients: the head's is read after the whole backward
            LossParts lc = cpu.forwardBackward(batch, scale);
            LossParts lg = gpu.forwardBackward(batch, scale);
            int size = spec.layers().get(head).output().size();
            double grad = 0;
            for (int b = 0; b < n; b++) {
                grad = Math.max(grad, GpuTests.relL2(gpu.network().gradient(head, b),
                        GpuTests.image(cpu.network().gradient(head), b, size)));
            }
            String report = String.format(Locale.ROOT, "%s: cpu %s%n    gpu %s%n    head gradient rel L2 %.2e",
                    options, lc, lg, grad);
            System.out.println(report);
            assertEquals(lc.assigned(), lg.assigned(), report);
            assertTrue(GpuTests.relative(lg.box(), lc.box()) < 1e-4, report);
            assertTrue(GpuTests.relative(lg.objectness(), lc.objectness()) < 1e-4, report);
            assertTrue(GpuTests.relative(lg.classification(), lc.classification()) < 1e-4, report);
            assertTrue(GpuTests.relative(lg.iouSum(), lc.iouSum()) < 1e-4, report);
            assertTrue(grad < 1e-4, report);
        }
    }
}
