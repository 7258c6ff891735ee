package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.Model;
import io.argus.detector.cpu.CpuBackend;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.detector.testing.ProjectFiles;
import io.argus.detector.testing.RandomWeights;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.MemoryMode;
import io.argus.testkit.Budget;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The inference network at the batch sizes the benchmarks report (1, 32, 64) and on padded buckets (3 runs on the
 * bucket of 4, 33 on the bucket of 64): every image's raw [yolo] head inputs, FP16 GPU (fused epilogues, in-place
 * routes, the bucket's CUDA graph) against FP32 CPU (oneDNN) on the same input, relative L2 at most 1e-2, as
 * {@link GpuModelsTest} holds the seven cfgs at batch 2. One network of max batch 64 serves every size, so nothing
 * is planned after it opened.
 */
@Tag("gpu")
@Budget(seconds = 5)
class GpuBatchParityTest {
    @BeforeAll
    static void needsGpu() {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
    }

    @ParameterizedTest
    @ValueSource(strings = {"yolov4-tiny", "yolov3-tiny"})
    void everyBatchSizeMatchesTheCpu(String name) {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg(name), 416, 416);
        ModelWeights weights = RandomWeights.deep(spec, 11);
        RandomWeights.calibrateOn(spec, weights, List.of(BgrImage.read(ProjectFiles.sample("dog.jpg"))), 4);
        Model model = new Model(spec, weights, Model.genericNames(spec.classes()));
        int max = 64;
        int inputSize = spec.inputShape().size();
        CudaOptions options = new CudaOptions(0, MemoryMode.DEVICE, CudaOptions.Fusion.ALL, true, true, 2, null);
        List<String> rows = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        try (CpuBackend cpu = new CpuBackend(model, max, Compare.REFERENCE);
             CudaBackend gpu = CudaBackend.open(model, max, options)) {
            CudaNetwork net = gpu.network();
            for (int n : new int[] {1, 3, 32, 33, 64}) {
                float[] input = new float[n * inputSize];
                SplittableRandom random = new SplittableRandom(n);
                for (int i = 0; i < input.length; i++) input[i] = (float) random.nextDouble();
                cpu.network().input().put(0, input, 0, input.length);
                cpu.network().forward(n);
                for (int b = 0; b < n; b++) {
                    float[] image = new float[inputSize];
                    System.arraycopy(input, b * inputSize, image, 0, inputSize);
                    net.setInput(b, image);
                }
                net.forward(n);
                double worst = 0;
                for (YoloSpec head : spec.yoloLayers()) {
                    int raw = head.index() - 1;
                    for (int b = 0; b < n; b++) {
                        worst = Math.max(worst, Compare.relativeL2(net.layerOutput(raw, b),
                                cpu.network().outputImage(raw, b)));
                    }
                }
                String row = String.format(Locale.ROOT, "%s batch %2d (bucket %2d): worst head input rel L2 %.2e",
                        name, n, bucketOf(net, n), worst);
                rows.add(row);
                if (!(worst <= 1e-2)) failures.add(row);
            }
        }
        rows.forEach(System.out::println);
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    private static int bucketOf(CudaNetwork net, int n) {
        for (int b : net.buckets()) if (b >= n) return b;
        return -1;
    }
}
