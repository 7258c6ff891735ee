package io.argus.trainer.peers;

import static org.bytedeco.opencv.global.opencv_dnn.readNetFromDarknet;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.cpu.CpuNetwork;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.darknet.WeightsInit;
import io.argus.detector.darknet.YoloSpec;
import io.argus.testkit.Budget;
import io.argus.trainer.ProjectFiles;
import io.argus.trainer.data.BatchSource;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.loss.Truth;
import io.argus.trainer.precision.LossScaler;
import io.argus.trainer.train.CpuTrainingBackend;
import io.argus.trainer.train.Trainer;
import io.argus.trainer.train.TrainingPlan;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.opencv.global.opencv_core;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.MatVector;
import org.bytedeco.opencv.opencv_core.StringVector;
import org.bytedeco.opencv.opencv_dnn.Net;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proof (c): a checkpoint written by Argus after real training steps (moved weights, biases, scales and rolling
 * statistics) loads in OpenCV DNN's Darknet importer, an independent implementation, and gives the same [yolo]
 * outputs as our engine: relative L2 within 1e-4 for every head and image.
 */
@Budget(seconds = 10)
class OpenCvCheckpointTest {
    @TempDir
    Path dir;

    @Test
    void argusCheckpointRunsInOpenCvWithTheSameOutputs() throws Exception {
        Path cfg = ProjectFiles.demoCfg();
        NetworkSpec spec = NetworkSpec.load(cfg);
        ModelWeights trained = trainAFewSteps(spec);
        Path weights = dir.resolve("demo_last.weights");
        WeightsFile.write(weights, spec, trained);
        ModelWeights reread = WeightsFile.read(weights, spec);
        assertEquals(trained.seen(), reread.seen());

        int batch = 2;
        SplittableRandom rnd = new SplittableRandom(17);
        float[] input = new float[batch * spec.inputShape().size()];
        for (int i = 0; i < input.length; i++) input[i] = (float) rnd.nextDouble();

        List<float[]> theirs = openCv(cfg, weights, input, batch, spec);
        try (CpuNetwork ours = new CpuNetwork(spec, reread, batch)) {
            ours.input().put(0, input);
            ours.forward(batch);
            List<YoloSpec> heads = spec.yoloLayers();
            assertEquals(heads.size(), theirs.size(), "number of [yolo] outputs");
            for (int h = 0; h < heads.size(); h++) {
                YoloSpec head = heads.get(h);
                int per = head.output().size();
                assertEquals(batch * per, theirs.get(h).length, "[yolo] " + head.index() + " output size");
                for (int b = 0; b < batch; b++) {
                    float[] mine = regionRows(head, ours.output(head.index()), b * per, spec);
                    float[] cv = java.util.Arrays.copyOfRange(theirs.get(h), b * per, (b + 1) * per);
                    double err = relativeL2(mine, cv);
                    System.out.printf(Locale.ROOT, "[yolo] %d image %d: relative L2 vs OpenCV %.2e%n", head.index(), b,
                            err);
                    assertTrue(err <= 1e-4, "[yolo] " + head.index() + " image " + b + ": relative L2 " + err);
                }
            }
        }
    }

    /** Some SGD steps on random images, so every kind of parameter has moved away from its initial value. */
    static ModelWeights trainAFewSteps(NetworkSpec spec) {
        TrainingPlan plan = new TrainingPlan(4, 2, 6, 0.9f, 0.0005f,
                new io.argus.trainer.optim.LearningRate(0.01f, 0, 4, "constant", new int[0], new float[0], 1, 1, 6), 0);
        BatchSource data = new BatchSource() {
            long k;

            @Override
            public TrainingBatch next() {
                SplittableRandom rnd = new SplittableRandom(k++);
                float[] images = new float[2 * spec.inputShape().size()];
                for (int i = 0; i < images.length; i++) images[i] = (float) rnd.nextDouble();
                List<List<Truth>> truths = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    truths.add(List.of(new Truth(0.3f + 0.4f * (float) rnd.nextDouble(), 0.5f, 0.25f, 0.3f,
                            rnd.nextInt(spec.classes()))));
                }
                return new TrainingBatch(images, truths, 2);
            }
        };
        try (CpuTrainingBackend backend = new CpuTrainingBackend(spec, WeightsInit.darknet(spec, 2), 2, 2, false)) {
            Trainer t = new Trainer(backend, data, plan, new LossScaler(1, 1, 1, 1000), 0);
            t.run(s -> { });
            return backend.weights(t.seen());
        }
    }

    /** OpenCV's outputs, one array per [yolo] in cfg order; thresh and NMS off so every anchor row is kept. */
    static List<float[]> openCv(Path cfg, Path weights, float[] input, int batch, NetworkSpec spec) throws Exception {
        StringBuilder b = new StringBuilder();
        for (String line : Files.readAllLines(cfg)) {
            b.append(line).append('\n');
            if (line.strip().equals("[yolo]")) b.append("thresh=0\nnms_threshold=0\n");
        }
        Path raw = weights.resolveSibling("opencv.cfg");
        Files.writeString(raw, b.toString());
        Net net = readNetFromDarknet(raw.toString(), weights.toString());
        try (Mat blob = new Mat(new int[] {batch, 3, spec.net().height(), spec.net().width()}, opencv_core.CV_32F);
             MatVector outs = new MatVector()) {
            new FloatPointer(blob.data()).put(input);
            net.enableWinograd(false);
            net.setInput(blob);
            StringVector names = net.getUnconnectedOutLayersNames();
            net.forward(outs, names);
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) order.add(i);
            order.sort(Comparator.comparingInt(i -> layerNumber(names.get(i).getString())));
            List<float[]> result = new ArrayList<>();
            for (int i : order) {
                Mat m = outs.get(i);
                float[] a = new float[(int) m.total()];
                ((FloatBuffer) m.createBuffer()).get(0, a);
                result.add(a);
            }
            return result;
        } finally {
            net.close();
        }
    }

    private static int layerNumber(String name) {
        return Integer.parseInt(name.substring(name.lastIndexOf('_') + 1).trim());
    }

    /**
     * Our activated [yolo] output of one image in OpenCV's region layout: a row per (cell row, cell column, anchor)
     * with x, y, w, h relative to the input, objectness, and objectness x class probability.
     */
    static float[] regionRows(YoloSpec head, FloatBuffer out, int offset, NetworkSpec spec) {
        int lw = head.output().width();
        int lh = head.output().height();
        int plane = lw * lh;
        int entries = head.entries();
        float[] rows = new float[head.output().size()];
        for (int y = 0; y < lh; y++) {
            for (int x = 0; x < lw; x++) {
                for (int a = 0; a < head.anchorsPerCell(); a++) {
                    int r = ((y * lw + x) * head.anchorsPerCell() + a) * entries;
                    int base = offset + a * entries * plane + y * lw + x;
                    rows[r] = (x + out.get(base)) / lw;
                    rows[r + 1] = (y + out.get(base + plane)) / lh;
                    rows[r + 2] = (float) Math.exp(out.get(base + 2 * plane)) * head.anchorWidth(a) / spec.net().width();
                    rows[r + 3] = (float) Math.exp(out.get(base + 3 * plane)) * head.anchorHeight(a)
                            / spec.net().height();
                    float objectness = out.get(base + 4 * plane);
                    rows[r + 4] = objectness;
                    for (int k = 0; k < head.classes(); k++) {
                        rows[r + 5 + k] = objectness * out.get(base + (5 + k) * plane);
                    }
                }
            }
        }
        return rows;
    }

    static double relativeL2(float[] a, float[] b) {
        double diff = 0;
        double norm = 0;
        for (int i = 0; i < a.length; i++) {
            diff += (double) (a[i] - b[i]) * (a[i] - b[i]);
            norm += (double) b[i] * b[i];
        }
        return Math.sqrt(diff / norm);
    }
}
