package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Model;
import io.argus.detector.cpu.CpuBackend;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.detector.post.Candidate;
import io.argus.detector.post.Detections;
import io.argus.detector.post.InputGeometry;
import io.argus.detector.post.YoloDecoder;
import io.argus.detector.testing.ProjectFiles;
import io.argus.detector.testing.RandomWeights;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.MemoryMode;
import io.argus.testkit.Budget;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The CUDA backend's correctness bar on a real GPU, for every shipped cfg at 416x416 with calibrated random weights
 * ({@link RandomWeights#deep}): FP16 GPU vs FP32 CPU relative L2 of the raw [yolo] outputs at most 1e-2 on the same input;
 * the full GPU pipeline (preprocess kernel, network, GPU decode + NMS) finds the same detections as the CPU backend
 * on sample images (IoU >= 0.95, for every detection at least 0.01 above the threshold); the GPU decode + NMS equals
 * the CPU's on the same head outputs (same detections in the same order, box corners within 0.05 px); unified and device memory give identical results.
 */
@Tag("gpu")
@Budget(seconds = 5)
class GpuModelsTest {
    static final DetectParams PARAMS = new DetectParams(0.25f, 0.45f, null);

    @BeforeAll
    static void needsGpu() {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
    }

    @ParameterizedTest
    @ValueSource(strings = {"yolov4-tiny", "yolov3-tiny", "yolov4-tiny-3l", "yolov7-tiny", "yolov3", "yolov4",
            "yolov4-csp"})
    void fp16MatchesFp32(String name) {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg(name), 416, 416);
        ModelWeights weights = RandomWeights.deep(spec, 11);
        List<BgrImage> images = List.of(BgrImage.read(ProjectFiles.sample("dog.jpg")),
                BgrImage.read(ProjectFiles.sample("person.jpg")));
        RandomWeights.calibrateOn(spec, weights, images, 4);
        Model model = new Model(spec, weights, Model.genericNames(spec.classes()));
        int n = images.size();
        int inputSize = spec.inputShape().size();
        List<YoloSpec> heads = spec.yoloLayers();
        StringBuilder report = new StringBuilder(name + ":");
        List<String> failures = new ArrayList<>();
        CudaOptions options = new CudaOptions(0, MemoryMode.UNIFIED, CudaOptions.Fusion.ALL, true, true, 2, null);

        try (CpuBackend cpu = new CpuBackend(model, n, Compare.REFERENCE);
             CudaBackend gpu = CudaBackend.open(model, n, options)) {
            List<List<Detection>> cpuDets = cpu.detect(images, PARAMS);
            // 1. the network alone, on the CPU's input
            CudaNetwork net = gpu.network();
            for (int b = 0; b < n; b++) {
                float[] in = new float[inputSize];
                cpu.network().input().get(b * inputSize, in);
                net.setInput(b, in);
            }
            net.forward(n);
            double worstLayer = 0;
            String worstName = "";
            for (LayerSpec l : spec.layers()) {
                if (l instanceof YoloSpec) continue;
                for (int b = 0; b < n; b++) {
                    float[] g = net.layerOutput(l.index(), b);
                    if (g == null) continue;
                    float[] c = cpu.network().outputImage(l.index(), b);
                    double e = Compare.relativeL2(g, c);
                    if (e > worstLayer) {
                        worstLayer = e;
                        worstName = l.index() + " " + l.kind();
                    }
                }
            }
            report.append(String.format(Locale.ROOT, " worst layer %.2e (%s);", worstLayer, worstName));
            for (int h = 0; h < heads.size(); h++) {
                for (int b = 0; b < n; b++) {
                    double e = Compare.relativeL2(net.headOutput(h, b), cpu.headOutput(h, b));
                    double raw = Compare.relativeL2(net.layerOutput(heads.get(h).index() - 1, b),
                            conv(cpu, heads.get(h).index() - 1, b));
                    report.append(String.format(Locale.ROOT, " head %d img %d: %.2e (raw %.2e);", h, b, e, raw));
                    if (!(e <= 1e-2) || !(raw <= 1e-2)) failures.add("head " + h + " image " + b + " rel L2 " + e + " raw " + raw);
                }
            }
            // 2. the whole GPU pipeline on the sample images
            List<List<Detection>> gpuDets = gpu.detect(images, PARAMS);
            int total = 0;
            for (int b = 0; b < n; b++) {
                total += cpuDets.get(b).size();
                float strict = PARAMS.threshold() + 0.01f;
                List<String> missing = Compare.unmatched(cpuDets.get(b), gpuDets.get(b), strict, 0.95f, PARAMS.nms());
                List<String> extra = Compare.unmatched(gpuDets.get(b), cpuDets.get(b), strict, 0.95f, PARAMS.nms());
                report.append(String.format(Locale.ROOT, " img %d: cpu %d gpu %d detections;", b, cpuDets.get(b).size(),
                        gpuDets.get(b).size()));
                if (!missing.isEmpty()) failures.add("image " + b + ": CPU detections the GPU lacks: " + missing);
                if (!extra.isEmpty()) failures.add("image " + b + ": GPU detections the CPU lacks: " + extra);
            }
            assertTrue(total > 0, name + ": the calibrated weights should detect something");
            // 3. GPU decode + NMS equals the CPU's on the very same head outputs
            for (int b = 0; b < n; b++) {
                InputGeometry g = InputGeometry.of(416, 416, images.get(b).width(), images.get(b).height(),
                        spec.net().letterBox());
                List<Candidate> candidates = new ArrayList<>();
                for (int h = 0; h < heads.size(); h++) {
                    YoloDecoder.decode(heads.get(h), FloatBuffer.wrap(gpu.headOutput(h, b)), 0, 416, 416,
                            PARAMS.threshold(), g, candidates);
                }
                List<Detection> expected = Detections.finish(candidates, heads, model.names(), g, PARAMS.threshold(),
                        PARAMS.nms(), null);
                List<Detection> got = gpuDets.get(b);
                if (expected.size() != got.size()) {
                    failures.add("image " + b + ": CPU post-processing of the GPU heads gives " + expected.size()
                            + " detections, GPU post-processing " + got.size());
                } else {
                    for (int i = 0; i < got.size(); i++) {
                        Detection e = expected.get(i);
                        Detection d = got.get(i);
                        if (e.classId() != d.classId() || e.confidence() != d.confidence()
                                || Compare.maxCornerDistance(e.box(), d.box()) > 0.05f) {
                            failures.add("image " + b + " detection " + i + ": CPU post " + Compare.describe(e)
                                    + " vs GPU post " + Compare.describe(d));
                            break;
                        }
                    }
                }
            }
            // 4. device memory gives identical heads and detections
            float[][] unifiedHeads = new float[heads.size() * n][];
            for (int h = 0; h < heads.size(); h++) {
                for (int b = 0; b < n; b++) unifiedHeads[h * n + b] = gpu.headOutput(h, b);
            }
            try (CudaBackend device = CudaBackend.open(model, n, options.withMemory(MemoryMode.DEVICE))) {
                assertEquals(MemoryMode.DEVICE, device.memoryMode());
                List<List<Detection>> deviceDets = device.detect(images, PARAMS);
                assertEquals(gpuDets, deviceDets, name + ": unified and device memory detections differ");
                for (int h = 0; h < heads.size(); h++) {
                    for (int b = 0; b < n; b++) {
                        assertArrayEquals(unifiedHeads[h * n + b], device.headOutput(h, b),
                                name + ": head " + h + " image " + b + " differs between unified and device memory");
                    }
                }
            }
            report.append(" unified == device");
        }
        System.out.println(report);
        assertTrue(failures.isEmpty(), name + ": " + failures);
    }

    private static float[] conv(CpuBackend cpu, int layer, int image) {
        return cpu.network().outputImage(layer, image);
    }
}
