package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.detector.testing.TinyTrainingCfg;
import io.argus.testkit.Budget;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.loss.LossParts;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Multi-scale training on the GPU: a backend made ready for other input sizes trains a batch at each of them as a
 * backend made for that size alone does (same loss, same parameter gradients, strict FP32), keeps training the cfg's
 * size as before, and refuses a batch at a size it was not made for.
 */
@Tag("gpu")
@Budget(seconds = 10)
class GpuMultiScaleTrainingTest {
    @Test
    void eachSizeTrainsAsABackendMadeForItAlone() {
        GpuTests.assumeGpu();
        NetworkSpec spec = GpuTests.spec("ms", TinyTrainingCfg.text(2) + "random=1\n");
        ModelWeights weights = WeightsInit.darknet(spec, 5);
        NetworkSpec larger = spec.withInput(64, 64), wide = spec.withInput(64, 32);
        try (CudaTrainingBackend multi = new CudaTrainingBackend(spec, weights, 2, GpuTests.options(Precision.FP32))) {
            multi.prepareInputSizes(List.of(larger, wide));
            assertTrue(multi.planning().contains("3 input sizes"), multi.planning());
            for (NetworkSpec at : List.of(larger, wide, spec)) {
                TrainingBatch plain = GpuTests.batch(at, 2, 3);
                TrainingBatch batch = new TrainingBatch(plain.images(), plain.truths(), 2, at.net().width(),
                        at.net().height());
                LossParts mine = multi.forwardBackward(batch, 1f);
                try (CudaTrainingBackend alone = new CudaTrainingBackend(at, weights, 2,
                        GpuTests.options(Precision.FP32))) {
                    LossParts theirs = alone.forwardBackward(plain, 1f);
                    String where = at.net().width() + "x" + at.net().height();
                    assertTrue(Double.isFinite(mine.total()), where + ": loss " + mine);
                    assertEquals(theirs.total(), mine.total(), 1e-5 * Math.abs(theirs.total()), where + " loss");
                    for (ConvolutionalSpec c : spec.convolutionalLayers()) {
                        double e = GpuTests.relL2(multi.parameterGradients(c.index())[0],
                                alone.parameterGradients(c.index())[0]);
                        assertTrue(e <= 1e-5, where + " layer " + c.index() + " weight gradients: relative L2 " + e);
                    }
                }
                multi.discardGradients();
            }
            TrainingBatch other = new TrainingBatch(new float[2 * 3 * 96 * 96], GpuTests.batch(spec, 2, 1).truths(), 2,
                    96, 96);
            var wrong = assertThrows(IllegalArgumentException.class, () -> multi.forwardBackward(other, 1f));
            assertTrue(wrong.getMessage().contains("a batch at 96x96"), wrong.getMessage());
        }
    }
}
