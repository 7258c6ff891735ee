package io.argus.detector.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Model;
import io.argus.detector.cpu.CpuBackend;
import io.argus.detector.cpu.WinogradPolicy;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.detector.testing.FastNetworks;
import io.argus.detector.testing.ProjectFiles;
import io.argus.detector.testing.RandomWeights;
import io.argus.testkit.Budget;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The engine against OpenCV DNN (an independent implementation) on the seven official cfgs at 416 x 416 with random
 * weights: raw [yolo] outputs within 1e-4 relative L2, and the same final detections (class, IoU >= 0.99). OpenCV
 * computes direct convolutions (Winograd off) on the very same input tensor. Each cfg runs with oneDNN's first choice
 * of implementation per convolution (untuned: timing every candidate at 416 x 416 cost more than half of this test, and
 * every other candidate is checked against that one by {@code EveryImplementationTest}); the tiny cfgs also with our Winograd F(2x2) and F(4x4) forced on every FP32 3x3
 * stride-1 layer, so either is checked whichever CPU would pick it. OpenCV's side does not depend on our Winograd policy, so the three cases of a cfg share it.
 */
@Budget(seconds = 200)
class OpenCvEquivalenceTest {
    static final float THRESH = 0.25f;
    static final float NMS = 0.45f;
    /** Detections closer than this to the threshold may flip either way from rounding alone. */
    static final float MARGIN = 0.002f;

    static double maxAbs(float[] a) {
        double m = 0;
        for (float v : a) m = Math.max(m, Float.isFinite(v) ? Math.abs(v) : Double.POSITIVE_INFINITY);
        return m;
    }

    /**
     * Every cfg with oneDNN's choice; the tiny ones also with each Winograd variant forced. The large cfgs repeat the
     * tiny ones' layer kinds at more channels (the variants' code does not branch on the channel count), and each
     * forced variant is checked against oneDNN's direct convolution layer by layer, partial tiles and odd channel
     * counts included ({@code WinogradConvolutionTest}): forcing them through yolov3, yolov4 and yolov4-csp as well
     * cost up to a minute of the unit tier on CI's machine for no case of their own.
     */
    static java.util.stream.Stream<Arguments> cfgs() {
        return ProjectFiles.CFGS.stream().flatMap(cfg -> (cfg.contains("tiny")
                ? java.util.stream.Stream.of(WinogradPolicy.AUTO, WinogradPolicy.F2X2, WinogradPolicy.F4X4)
                : java.util.stream.Stream.of(WinogradPolicy.AUTO)).map(w -> Arguments.of(cfg, w)));
    }

    /**
     * The cfg whose cases run now (a cfg's three cases run one after the other): its weights, and OpenCV's outputs for
     * the input tensor they were computed on. Loading the weights into OpenCV and its forward pass are most of a case's
     * time, and the same for each policy; each case still gives OpenCV its own input unless it is that same tensor.
     */
    private static Cfg current;

    private static final class Cfg {
        final String name;
        final NetworkSpec spec;
        final List<BgrImage> images;
        final ModelWeights weights;
        final Model model;
        private float[] input;
        private List<float[]> opencv;

        Cfg(String name) {
            this.name = name;
            // at the cfgs' 416 x 416: at the other tests' 224 x 160, in the whole suite (after other tests' tuning),
            // yolov4-tiny with our Winograd F(4x4) had raw outputs within 1e-6 of OpenCV's and as many detections, yet
            // OpenCV kept one box (confidence 0.303) that ours did not, nowhere near NMS's overlap limit: not yet
            // explained, so this test stays at the size it has always passed at
            spec = NetworkSpec.load(ProjectFiles.cfg(name), 416, 416);
            images = ProjectFiles.twoSamples(name);
            weights = RandomWeights.calibrated(spec, name.hashCode(), images.get(0), 8);
            model = new Model(spec, weights, Model.readNames(ProjectFiles.cocoNames()));
        }

        static Cfg of(String name) {
            if (current == null || !current.name.equals(name)) {
                current = null;   // the last cfg's weights may go before this one's are made
                current = new Cfg(name);
            }
            return current;
        }

        /** OpenCV's [yolo] outputs for the first {@code n} images of {@code in} (NCHW). */
        List<float[]> opencv(java.nio.FloatBuffer in, int n) {
            float[] now = new float[n * spec.inputShape().size()];
            in.get(0, now);
            if (!java.util.Arrays.equals(now, input)) {
                try (OpenCvDarknet cv = new OpenCvDarknet(spec, weights, false)) {
                    opencv = cv.forward(in, n, 3, spec.net().height(), spec.net().width());
                }
                input = now;
            }
            return opencv;
        }
    }

    @ParameterizedTest(name = "{0} winograd {1}")
    @MethodSource("cfgs")
    void sameOutputsAndDetectionsAsOpenCv(String name, WinogradPolicy winograd) {
        Cfg cfg = Cfg.of(name);
        NetworkSpec spec = cfg.spec;
        List<BgrImage> images = cfg.images;
        int netW = spec.net().width();
        int netH = spec.net().height();
        try (CpuBackend ours = new CpuBackend(cfg.model, images.size(), FastNetworks.UNTUNED.withWinograd(winograd))) {
            List<List<Detection>> found = ours.detect(images, new DetectParams(THRESH, NMS, YoloSpec.NmsKind.DEFAULT));
            List<float[]> theirs = cfg.opencv(ours.network().input(), images.size());
            List<YoloSpec> heads = spec.yoloLayers();
            assertEquals(heads.size(), theirs.size(), "number of [yolo] outputs");
            int totalDetections = 0;
            for (int img = 0; img < images.size(); img++) {
                List<float[]> cvRows = new ArrayList<>();
                for (int h = 0; h < heads.size(); h++) {
                    float[] mine = RegionOutputs.fromDarknetLayout(heads.get(h), ours.headOutput(h, img), netW, netH);
                    float[] all2 = theirs.get(h);
                    assertEquals(images.size() * mine.length, all2.length, "[yolo] " + h + " output size");
                    float[] cvImage = java.util.Arrays.copyOfRange(all2, img * mine.length, (img + 1) * mine.length);
                    double err = RegionOutputs.relativeL2(mine, cvImage);
                    System.out.printf(Locale.ROOT, "%s winograd %s image %d [yolo] layer %d: relative L2 %.2e (max |ours| "
                            + "%.3g, max |opencv| %.3g)%n", name, winograd.label(), img, heads.get(h).index(), err,
                            maxAbs(mine), maxAbs(cvImage));
                    assertTrue(err <= 1e-4, name + " [yolo] layer " + heads.get(h).index() + " image " + img
                            + ": relative L2 error " + err + " > 1e-4");
                    cvRows.add(cvImage);
                }
                List<RegionOutputs.Found> reference = RegionOutputs.detections(cvRows, spec.classes(), THRESH, NMS,
                        netW, netH, images.get(img).width(), images.get(img).height(), spec.net().letterBox());
                List<Detection> mine = found.get(img);
                totalDetections += mine.size();
                System.out.printf(Locale.ROOT, "%s image %d: %d detections (OpenCV %d)%n", name, img, mine.size(),
                        reference.size());
                for (RegionOutputs.Found r : reference) {
                    if (r.confidence() < THRESH + MARGIN) continue;
                    assertTrue(mine.stream().anyMatch(d -> d.classId() == r.classId() && d.box().iou(r.box()) >= 0.99),
                            name + " image " + img + ": OpenCV found " + r + " and we did not");
                }
                for (Detection d : mine) {
                    if (d.confidence() < THRESH + MARGIN) continue;
                    assertTrue(reference.stream().anyMatch(r -> r.classId() == d.classId() && d.box().iou(r.box()) >= 0.99),
                            name + " image " + img + ": we found " + d + " and OpenCV did not");
                }
            }
            assertTrue(totalDetections > 0, name + ": no detections at all; the weights must make some");
        }
    }
}
