package io.argus.detector.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.Box;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Model;
import io.argus.detector.cpu.CpuBackend;
import io.argus.detector.cpu.WinogradPolicy;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.darknet.YoloSpec;
import io.argus.detector.post.Preprocess;
import io.argus.detector.testing.FastNetworks;
import io.argus.detector.testing.ProjectFiles;
import io.argus.detector.testing.RandomWeights;
import io.argus.testkit.Budget;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The engine against Debian's original C Darknet (pjreddie's, which runs yolov3 and yolov3-tiny): the same
 * pre-processing (resize_image, letterbox_image), the same raw [yolo] outputs and the same boxes after NMS (at
 * {@link FastNetworks#WIDTH} x {@link FastNetworks#HEIGHT}); with oneDNN's first choice of implementation
 * (untuned: which ones a tuner may pick instead is {@code EveryImplementationTest}'s subject) and with our Winograd F(2x2) and F(4x4) forced on every FP32 3x3 stride-1 layer. Darknet's side does not depend on our Winograd
 * policy, so the three cases of a cfg share it.
 */
@Budget(seconds = 130)
class DarknetEquivalenceTest {
    @TempDir
    Path tmp;

    static java.util.stream.Stream<Arguments> cfgs() {
        return java.util.stream.Stream.of("yolov3-tiny", "yolov3").flatMap(cfg -> java.util.stream.Stream.of(
                WinogradPolicy.AUTO, WinogradPolicy.F2X2, WinogradPolicy.F4X4).map(w -> Arguments.of(cfg, w)));
    }

    static final float THRESH = 0.25f;
    static final float NMS = 0.45f;

    /**
     * The cfg whose cases run now (a cfg's three cases run one after the other): its weights, and Darknet's result
     * for the input tensor it was computed on. Darknet's forward pass (one thread, plain C) is most of a case's time,
     * and the same for each policy; each case still runs Darknet on its own input unless it is that same tensor.
     */
    private static Cfg current;

    private static final class Cfg {
        final String name;
        final NetworkSpec spec;
        final BgrImage image;
        final ModelWeights weights;
        final Model model;
        private float[] input;
        private DarknetHarness.NetResult darknet;

        Cfg(String name) {
            this.name = name;
            spec = NetworkSpec.load(ProjectFiles.cfg(name), FastNetworks.WIDTH, FastNetworks.HEIGHT);
            // Darknet's boxes come back relative to its input: feed both an image of exactly the input size
            image = resizedCopy(BgrImage.read(ProjectFiles.sampleImages().get(name.length() % 5)), spec.net().width(),
                    spec.net().height());
            weights = RandomWeights.calibrated(spec, 7 + name.length(), image, 8);
            model = new Model(spec, weights, Model.readNames(ProjectFiles.cocoNames()));
        }

        static Cfg of(String name) {
            if (current == null || !current.name.equals(name)) {
                current = null;   // the last cfg's weights may go before this one's are made
                current = new Cfg(name);
            }
            return current;
        }

        /** Darknet's [yolo] outputs and boxes after NMS for {@code in}, one image. */
        DarknetHarness.NetResult darknet(float[] in, Path tmp) throws IOException {
            if (java.util.Arrays.equals(in, input)) return darknet;
            Path harness = DarknetHarness.binary();
            int w = spec.net().width(), h = spec.net().height();
            Path cfg = tmp.resolve(name + ".cfg");
            Files.writeString(cfg, Files.readString(spec.file()).replaceAll("(?m)^\\s*width\\s*=.*$", "width=" + w)
                    .replaceAll("(?m)^\\s*height\\s*=.*$", "height=" + h).replaceAll("(?m)^\\s*batch\\s*=.*$", "batch=1"));
            Path weightsFile = tmp.resolve(name + ".weights");
            WeightsFile.write(weightsFile, spec, weights);
            Path inFile = tmp.resolve("input.f32");
            DarknetHarness.writeFloats(inFile, in);
            Path out = tmp.resolve("out.txt");
            DarknetHarness.run(List.of(harness.toString(), "net", cfg.toString(), weightsFile.toString(), inFile.toString(),
                    "" + w, "" + h, Float.toString(THRESH), Float.toString(NMS), out.toString()));
            darknet = DarknetHarness.parse(out);
            input = in;
            return darknet;
        }
    }

    @ParameterizedTest(name = "{0} winograd {1}")
    @MethodSource("cfgs")
    void sameOutputsAndDetectionsAsDarknet(String name, WinogradPolicy winograd) throws IOException {
        DarknetHarness.binary();   // skips or fails first when Darknet is not installed
        Cfg c = Cfg.of(name);
        NetworkSpec spec = c.spec;
        int netW = spec.net().width(), netH = spec.net().height();
        float thresh = THRESH;
        try (CpuBackend ours = new CpuBackend(c.model, 1, FastNetworks.UNTUNED.withWinograd(winograd))) {
            List<Detection> mine = ours.detect(List.of(c.image), new DetectParams(thresh, NMS, YoloSpec.NmsKind.DEFAULT)).get(0);
            float[] input = new float[spec.inputShape().size()];
            ours.network().input().get(0, input);
            DarknetHarness.NetResult theirs = c.darknet(input, tmp);
            List<YoloSpec> heads = spec.yoloLayers();
            assertEquals(heads.size(), theirs.yolo().size(), "number of [yolo] layers");
            for (int h = 0; h < heads.size(); h++) {
                assertEquals(heads.get(h).index(), theirs.yolo().get(h).layer(), "[yolo] layer index");
                double err = RegionOutputs.relativeL2(ours.headOutput(h, 0), theirs.yolo().get(h).values());
                System.out.printf(Locale.ROOT, "%s winograd %s [yolo] layer %d vs darknet: relative L2 %.2e%n", name,
                        winograd.label(), heads.get(h).index(), err);
                assertTrue(err <= 1e-4, name + " [yolo] " + heads.get(h).index() + ": relative L2 " + err);
            }
            List<RegionOutputs.Found> reference = new ArrayList<>();
            for (DarknetHarness.Det d : theirs.dets()) {
                for (float[] p : d.probs()) {
                    if (p[1] > thresh) reference.add(new RegionOutputs.Found((int) p[0], p[1], pixels(d, netW, netH)));
                }
            }
            System.out.printf(Locale.ROOT, "%s: %d detections (darknet %d)%n", name, mine.size(), reference.size());
            assertTrue(mine.size() > 0, "the weights must produce detections");
            float margin = 0.002f;
            for (RegionOutputs.Found r : reference) {
                if (r.confidence() < thresh + margin) continue;
                assertTrue(mine.stream().anyMatch(d -> d.classId() == r.classId() && d.box().iou(r.box()) >= 0.99),
                        name + ": darknet found " + r + " and we did not");
            }
            for (Detection d : mine) {
                if (d.confidence() < thresh + margin) continue;
                assertTrue(reference.stream().anyMatch(r -> r.classId() == d.classId() && d.box().iou(r.box()) >= 0.99),
                        name + ": we found " + d + " and darknet did not");
            }
        }
    }

    @Test
    void sameResizeAndLetterboxAsDarknet() {
        Path harness = DarknetHarness.binary();
        Preprocess pre = new Preprocess();
        for (Path file : ProjectFiles.sampleImages()) {
            BgrImage img = BgrImage.read(file);
            float[] planar = planarRgb(img);
            Path src = tmp.resolve("src.f32");
            DarknetHarness.writeFloats(src, planar);
            for (int letter = 0; letter <= 1; letter++) {
                Path dst = tmp.resolve("dst.f32");
                DarknetHarness.run(List.of(harness.toString(), "resize", src.toString(), "" + img.width(),
                        "" + img.height(), "3", "416", "320", "" + letter, dst.toString()));
                float[] theirs = DarknetHarness.readFloats(dst);
                FloatBuffer mine = FloatBuffer.allocate(3 * 416 * 320);
                pre.into(img, 416, 320, letter == 1, mine, 0);
                double maxDiff = 0;
                for (int i = 0; i < theirs.length; i++) maxDiff = Math.max(maxDiff, Math.abs(theirs[i] - mine.get(i)));
                assertEquals(theirs.length, mine.capacity());
                assertTrue(maxDiff <= 1e-6, file.getFileName() + (letter == 1 ? " letterbox" : " resize")
                        + ": max difference " + maxDiff);
            }
        }
    }

    private static Box pixels(DarknetHarness.Det d, int width, int height) {
        float left = clamp((d.x() - d.w() / 2) * width, width);
        float right = clamp((d.x() + d.w() / 2) * width, width);
        float top = clamp((d.y() - d.h() / 2) * height, height);
        float bottom = clamp((d.y() + d.h() / 2) * height, height);
        return new Box(left, top, right - left, bottom - top);
    }

    private static float clamp(float v, int max) { return Math.max(0, Math.min(max, v)); }

    private static float[] planarRgb(BgrImage img) {
        int plane = img.width() * img.height();
        float[] out = new float[3 * plane];
        for (int y = 0; y < img.height(); y++) {
            for (int x = 0; x < img.width(); x++) {
                int i = y * img.width() + x;
                out[i] = img.at(x, y, 2) / 255f;
                out[plane + i] = img.at(x, y, 1) / 255f;
                out[2 * plane + i] = img.at(x, y, 0) / 255f;
            }
        }
        return out;
    }

    private static BgrImage resizedCopy(BgrImage img, int width, int height) {
        BufferedImage out = new BufferedImage(width, height, BufferedImage.TYPE_3BYTE_BGR);
        Graphics2D g = out.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
        g.drawImage(img.toBufferedImage(), 0, 0, width, height, null);
        g.dispose();
        return BgrImage.fromBufferedImage(out);
    }
}
