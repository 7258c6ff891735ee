package io.argus.tools.peers;

import static org.bytedeco.opencv.global.opencv_dnn.readNetFromDarknet;

import java.nio.FloatBuffer;
import java.nio.file.Path;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.opencv.global.opencv_core;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.MatVector;
import org.bytedeco.opencv.opencv_core.StringVector;
import org.bytedeco.opencv.opencv_dnn.Net;

/**
 * OpenCV DNN (4.13, its defaults: Winograd on, all threads) running the same cfg + weights on the same NCHW blob.
 */
public final class OpenCvPeer implements Peer {
    private final Net net;
    private final Mat blob;
    private final StringVector outNames;
    private final MatVector outs = new MatVector();

    /**
     * @param input batch of {@code maxBatch} images, NCHW floats, as our network's input tensor
     */
    public OpenCvPeer(Path cfg, Path weights, FloatBuffer input, int maxBatch, int channels, int height, int width,
                      boolean winograd) {
        net = readNetFromDarknet(cfg.toString(), weights.toString());
        if (net.empty()) throw new IllegalStateException("OpenCV could not load " + cfg);
        net.enableWinograd(winograd);
        blob = new Mat(new int[] {maxBatch, channels, height, width}, opencv_core.CV_32F);
        FloatPointer p = new FloatPointer(blob.data());
        float[] tmp = new float[maxBatch * channels * height * width];
        input.get(0, tmp);
        p.put(tmp);
        outNames = net.getUnconnectedOutLayersNames();
    }

    @Override
    public String name() { return "opencv"; }

    @Override
    public void forward(int n) {
        if (n != blob.size(0)) throw new IllegalArgumentException("OpenCV peer prepared for batch " + blob.size(0));
        net.setInput(blob);
        net.forward(outs, outNames);
    }

    /** Outputs of the last forward, one Mat per [yolo] layer in OpenCV's order. */
    public MatVector outputs() { return outs; }

    public Net net() { return net; }

    @Override
    public void close() {
        outs.close();
        blob.close();
        net.close();
    }
}
