package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Model;
import io.argus.detector.backends.Detector;
import io.argus.detector.cuda.CudaBackend;
import io.argus.detector.cuda.CudaOptions;
import io.argus.detector.cuda.CudaPrecision;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.MemoryMode;
import io.argus.testkit.Budget;
import io.argus.trainer.ProjectFiles;
import io.argus.trainer.data.DataFile;
import io.argus.trainer.data.Dataset;
import io.argus.trainer.data.SyntheticScenes;
import io.argus.trainer.eval.Evaluator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What FP8 convolutions cost the shipped demo model: its mAP on the synthetic dataset's validation split (seed 7, the
 * last 200 of 2,000 scenes, as DemoModelTest scores it on the CPU) on the GPU in FP16, FP8 and auto, activation ranges
 * measured on the split's first 64 training scenes; and how many of FP16's detections (confidence >= 0.25) FP8 finds
 * again (same class, IoU >= 0.5).
 */
@Tag("gpu")
@Budget(seconds = 90)
class GpuFp8DemoModelTest {
    static final float CONFIDENCE = 0.25f;

    @Test
    void demoModelKeepsItsMapAndDetectionsInFp8(@TempDir Path dir) {
        GpuTests.assumeGpu();
        assumeTrue(DeviceContext.of(0).device().computeCapability() >= 89,
                () -> "FP8 tensor cores need compute capability 8.9: " + DeviceContext.of(0).device());
        Path data = SyntheticScenes.write(dir, 2000, 7, 128, 0.1);
        DataFile d = DataFile.read(data);
        Dataset valid = Dataset.open(d.requireValid(), d.classes());
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.demoCfg());
        Model model = new Model(spec, WeightsFile.read(ProjectFiles.demoWeights(), spec),
                Model.readNames(ProjectFiles.demoNames()));
        CudaOptions half = new CudaOptions(0, MemoryMode.DEVICE, CudaOptions.Fusion.ALL, true, true, 2, null);
        CudaOptions fp8 = half.withPrecision(CudaPrecision.FP8, d.requireTrain());
        CudaOptions auto = half.withPrecision(CudaPrecision.AUTO, d.requireTrain());

        Evaluator.Result cpu = Evaluator.evaluate(model, valid, Detector.Options.cpu(8));
        Evaluator.Result r16 = Evaluator.evaluate(model, valid, cuda(half));
        Evaluator.Result r8 = Evaluator.evaluate(model, valid, cuda(fp8));
        Evaluator.Result rAuto = Evaluator.evaluate(model, valid, cuda(auto));
        int convolutions = spec.convolutionalLayers().size();
        int fp8Layers, autoLayers;
        List<BgrImage> images = new ArrayList<>();
        for (int i = 0; i < valid.size(); i++) images.add(valid.image(i));
        List<List<Detection>> found16, found8;
        try (Detector a = Detector.open(model, cuda(half)); Detector b = Detector.open(model, cuda(fp8));
             Detector c = Detector.open(model, cuda(auto))) {
            fp8Layers = ((CudaBackend) b.backend()).network().fp8Convolutions();
            autoLayers = ((CudaBackend) c.backend()).network().fp8Convolutions();
            DetectParams params = new DetectParams(CONFIDENCE, Evaluator.NMS, null);
            found16 = a.detect(images, params);
            found8 = b.detect(images, params);
        }
        int kept = 0, total = 0;
        for (int i = 0; i < images.size(); i++) {
            for (Detection x : found16.get(i)) {
                total++;
                for (Detection y : found8.get(i)) {
                    if (y.classId() == x.classId() && y.box().iou(x.box()) >= 0.5f) {
                        kept++;
                        break;
                    }
                }
            }
        }
        double agreement = total == 0 ? 0 : (double) kept / total;
        System.out.printf(Locale.ROOT, "demo model, %d validation scenes: mAP@0.5 (mAP@0.5:0.95)%n"
                        + "  CPU FP32   %.4f (%.4f)%n  GPU FP16   %.4f (%.4f)%n  GPU FP8    %.4f (%.4f), %d of %d "
                        + "convolutions in FP8%n  GPU auto   %.4f (%.4f), %d in FP8%n"
                        + "FP16 detections (confidence >= %.2f) found again in FP8: %d of %d = %.1f%%%n",
                valid.size(), cpu.map50(), cpu.map50to95(), r16.map50(), r16.map50to95(), r8.map50(), r8.map50to95(),
                fp8Layers, convolutions, rAuto.map50(), rAuto.map50to95(), autoLayers, CONFIDENCE, kept, total,
                100 * agreement);
        assertTrue(fp8Layers > 0, "no convolution of the demo model ran in FP8");
        assertTrue(Math.abs(r16.map50() - cpu.map50()) <= 0.01, "FP16 " + r16.map50() + " vs CPU " + cpu.map50());
        assertTrue(r8.map50() >= r16.map50() - 0.02, "FP8 mAP@0.5 " + r8.map50() + " vs FP16 " + r16.map50());
        assertTrue(agreement >= 0.95, "FP8 found " + kept + " of FP16's " + total + " detections");
    }

    private static Detector.Options cuda(CudaOptions options) {
        return new Detector.Options(Detector.Backend.CUDA, 64, DetectParams.DEFAULT, options);
    }
}
