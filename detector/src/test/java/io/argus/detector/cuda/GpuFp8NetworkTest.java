package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.Model;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.detector.testing.ProjectFiles;
import io.argus.detector.testing.RandomWeights;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.Fp8;
import io.argus.gpu.GpuBuffer;
import io.argus.gpu.GpuStream;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.MemoryMode;
import io.argus.gpu.TensorView;
import io.argus.gpu.Transfers;
import io.argus.testkit.Budget;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * FP8 networks ({@link CudaPrecision}) on a GPU with FP8 tensor cores: the quantize kernel writes exactly what the
 * host's encoder writes, and yolov4-tiny (random weights calibrated on a sample, activation ranges measured on
 * config/samples) opened in FP8 runs most convolutions in FP8 with heads close to the FP16 network's on the same
 * frames, while auto keeps FP8 only where it was timed faster. The demo model's mAP in FP8 is the trainer's
 * GpuFp8DemoModelTest.
 */
@Tag("gpu")
@Budget(seconds = 150)
class GpuFp8NetworkTest {
    static final Path CALIBRATION = ProjectFiles.root().resolve("config/samples");

    @BeforeAll
    static void needsFp8() {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
        DeviceContext ctx = DeviceContext.of(0);
        assumeTrue(ctx.device().computeCapability() >= 89, () -> "FP8 tensor cores need compute capability 8.9, "
                + ctx.device() + " has " + ctx.device().computeCapability());
    }

    @Test
    void quantizeKernelWritesWhatTheHostEncoderWrites() {
        DeviceContext ctx = DeviceContext.of(0);
        int pixels = 777, stride = 48, offset = 8, channels = 32;
        float scale = 0.37f;
        short[] halves = new short[pixels * stride];
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < halves.length; i++) {
            double v = switch (i % 5) {
                case 0 -> (random.nextDouble() * 2 - 1) * 448 * scale * 1.5;   // beyond the range: saturates
                case 1 -> (random.nextDouble() * 2 - 1) * scale;               // small
                case 2 -> (random.nextDouble() * 2 - 1) * 0x1p-7 * scale;      // E4M3 subnormals
                case 3 -> Math.rint(random.nextDouble() * 64) / 16 * scale;    // near ties
                default -> (random.nextDouble() * 2 - 1) * 100 * scale;
            };
            halves[i] = Float.floatToFloat16((float) v);
        }
        halves[offset] = Float.floatToFloat16(-0f);
        try (GpuStream stream = new GpuStream();
             GpuBuffer in = GpuBuffer.device(2L * halves.length, "fp16 input");
             GpuBuffer out = GpuBuffer.device((long) pixels * channels, "fp8 output")) {
            Transfers.upload(in.address(), halves);
            TensorView view = new TensorView(in.address(), (long) pixels * stride, stride, offset, channels, 1, pixels);
            KernelLaunch k = KernelLaunch.of(ctx.kernels(), "quantize.cu", "quantize_fp8");
            k.view(view);
            k.i32(channels);
            k.i32(pixels);
            k.i32(1);
            k.f32(1f / scale);
            k.pointer(out.address());
            k.launch(KernelLaunch.grid((long) pixels * channels / 16, ctx.device()), stream.handle());
            stream.synchronize();
            short[] packed = Transfers.downloadHalves(out.address(), (long) pixels * channels / 2);
            int wrong = 0;
            String first = null;
            for (int p = 0; p < pixels; p++) {
                for (int c = 0; c < channels; c++) {
                    int k8 = p * channels + c;
                    int got = (packed[k8 / 2] >> (8 * (k8 % 2))) & 0xFF;
                    float v = Float.float16ToFloat(halves[p * stride + offset + c]) * (1f / scale);
                    int want = Fp8.encode(v) & 0xFF;
                    if (got != want) {
                        wrong++;
                        if (first == null) {
                            first = String.format(Locale.ROOT, "pixel %d channel %d: %s -> kernel 0x%02x, host 0x%02x",
                                    p, c, v, got, want);
                        }
                    }
                }
            }
            assertEquals(0, wrong, wrong + " of " + pixels * channels + " codes differ; first: " + first);
        }
    }

    @Test
    void yolov4TinyInFp8StaysCloseToFp16AndAutoKeepsTheFasterForm() {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov4-tiny"), 416, 416);
        ModelWeights weights = RandomWeights.deep(spec, 11);
        RandomWeights.calibrateOn(spec, weights, List.of(BgrImage.read(ProjectFiles.sample("dog.jpg"))), 4);
        Model model = new Model(spec, weights, Model.genericNames(spec.classes()));
        List<BgrImage> frames = ProjectFiles.samples("dog.jpg", "horses.jpg");
        CudaOptions half = new CudaOptions(0, MemoryMode.DEVICE, CudaOptions.Fusion.ALL, true, true, 2, null);
        int max = 8;
        List<float[]> reference = new ArrayList<>();
        try (CudaBackend gpu = CudaBackend.open(model, max, half)) {
            assertEquals(0, gpu.network().fp8Convolutions());
            gpu.detect(frames, io.argus.detector.DetectParams.DEFAULT);
            for (YoloSpec head : spec.yoloLayers()) {
                for (int b = 0; b < frames.size(); b++) reference.add(gpu.network().layerOutput(head.index() - 1, b));
            }
        }
        int convolutions = spec.convolutionalLayers().size();
        int forced;
        try (CudaBackend gpu = CudaBackend.open(model, max, half.withPrecision(CudaPrecision.FP8, CALIBRATION))) {
            forced = gpu.network().fp8Convolutions();
            System.out.println("yolov4-tiny, precision fp8: " + forced + " of " + convolutions
                    + " convolutions in FP8\n" + gpu.network().describe());
            // every convolution but the image's 3-channel one has channels that are multiples of 16
            assertTrue(forced >= convolutions - 3, forced + " of " + convolutions + " convolutions in FP8");
            gpu.detect(frames, io.argus.detector.DetectParams.DEFAULT);
            int i = 0;
            for (YoloSpec head : spec.yoloLayers()) {
                for (int b = 0; b < frames.size(); b++) {
                    double d = Compare.relativeL2(gpu.network().layerOutput(head.index() - 1, b), reference.get(i++));
                    System.out.printf(Locale.ROOT, "head %d image %d: FP8 vs FP16 relative L2 %.3e%n", head.index(), b, d);
                    // E4M3's 3 mantissa bits: 3-4% per convolution on random values, not compounding to more
                    assertTrue(d < 0.25, "head " + head.index() + " image " + b + ": FP8 vs FP16 " + d);
                }
            }
        }
        try (CudaBackend gpu = CudaBackend.open(model, max, half.withPrecision(CudaPrecision.AUTO, CALIBRATION))) {
            int auto = gpu.network().fp8Convolutions();
            System.out.println("yolov4-tiny, precision auto: " + auto + " of " + convolutions
                    + " convolutions in FP8\n" + gpu.network().describe());
            assertTrue(auto <= forced, auto + " > " + forced);
            assertTrue(gpu.network().describe().contains(" vs FP16 "), "auto timed the two forms");
        }
    }
}
