package io.argus.detector.peers;

import static org.bytedeco.opencv.global.opencv_dnn.readNetFromDarknet;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.opencv.global.opencv_core;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.MatVector;
import org.bytedeco.opencv.opencv_core.StringVector;
import org.bytedeco.opencv.opencv_dnn.Net;

/**
 * OpenCV DNN's Darknet importer as an independent implementation. The cfg is copied with the input size set and, in
 * every [yolo], {@code thresh=0} and {@code nms_threshold=0}, so OpenCV's region layer returns every decoded anchor
 * ([x, y, w, h] relative to the input, objectness, objectness x class) with no NMS applied.
 */
public final class OpenCvDarknet implements AutoCloseable {
    private final Net net;
    private final Path dir;

    public OpenCvDarknet(NetworkSpec spec, ModelWeights weights, boolean winograd) {
        try {
            dir = Files.createTempDirectory("argus-opencv");
            Path cfg = dir.resolve(spec.name() + ".cfg");
            Files.writeString(cfg, rawCfg(Files.readString(spec.file()), spec.net().width(), spec.net().height()));
            Path w = dir.resolve(spec.name() + ".weights");
            WeightsFile.write(w, spec, weights);
            net = readNetFromDarknet(cfg.toString(), w.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        net.enableWinograd(winograd);
    }

    static String rawCfg(String text, int width, int height) {
        StringBuilder b = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            String t = line.replace(" ", "").trim();
            if (t.startsWith("width=")) line = "width=" + width;
            else if (t.startsWith("height=")) line = "height=" + height;
            b.append(line).append('\n');
            if (t.equals("[yolo]")) b.append("thresh=0\nnms_threshold=0\n");
        }
        return b.toString();
    }

    /**
     * Runs the batch (NCHW floats, {@code n} images) and returns one array per [yolo] layer in cfg order, each
     * n x (rows = h*w*anchors) x (5 + classes) as OpenCV lays it out.
     */
    public List<float[]> forward(FloatBuffer input, int n, int channels, int height, int width) {
        try (Mat blob = new Mat(new int[] {n, channels, height, width}, opencv_core.CV_32F);
             MatVector outs = new MatVector()) {
            float[] tmp = new float[n * channels * height * width];
            input.get(0, tmp);
            new FloatPointer(blob.data()).put(tmp);
            StringVector names = net.getUnconnectedOutLayersNames();
            List<String> ordered = new ArrayList<>();
            for (long i = 0; i < names.size(); i++) ordered.add(names.get(i).getString().trim());
            net.setInput(blob);
            net.forward(outs, names);
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < ordered.size(); i++) order.add(i);
            order.sort(Comparator.comparingInt(i -> layerNumber(ordered.get(i))));
            List<float[]> result = new ArrayList<>();
            for (int i : order) {
                Mat m = outs.get(i);
                FloatBuffer fb = m.createBuffer();
                float[] a = new float[(int) m.total()];
                fb.get(0, a);
                result.add(a);
            }
            return result;
        }
    }

    private static int layerNumber(String name) {
        return Integer.parseInt(name.substring(name.lastIndexOf('_') + 1));
    }

    public Net net() { return net; }

    @Override
    public void close() {
        net.close();
        try (var s = Files.list(dir)) {
            for (Path p : s.toList()) Files.deleteIfExists(p);
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // temp files only
        }
    }
}
