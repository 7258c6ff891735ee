package io.argus.tracking;

import io.argus.detector.Box;
import io.argus.detector.Detection;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A crowd for the tracker's tests and benchmark: objects of person-like sizes moving at constant velocities inside a
 * frame, bouncing off its edges, so that they cross and overlap; each frame's detections are their boxes with
 * Gaussian noise on the edges and confidences between 0.6 and 0.95. Detection i of a frame is object i.
 */
public final class MovingBoxes {
    private final SplittableRandom random;
    private final int width;
    private final int height;
    private final double noisePx;
    private final double[] x;
    private final double[] y;
    private final double[] vx;
    private final double[] vy;
    private final double[] w;
    private final double[] h;

    /**
     * @param objects how many
     * @param width   frame width, pixels
     * @param height  frame height, pixels
     * @param noisePx standard deviation of each box edge, pixels
     * @param seed    of the scene and its noise
     */
    public MovingBoxes(int objects, int width, int height, double noisePx, long seed) {
        random = new SplittableRandom(seed);
        this.width = width;
        this.height = height;
        this.noisePx = noisePx;
        x = new double[objects];
        y = new double[objects];
        vx = new double[objects];
        vy = new double[objects];
        w = new double[objects];
        h = new double[objects];
        for (int i = 0; i < objects; i++) {
            h[i] = random.nextDouble(60, 160);
            w[i] = h[i] * random.nextDouble(0.35, 0.6);
            x[i] = random.nextDouble(0, width - w[i]);
            y[i] = random.nextDouble(0, height - h[i]);
            double speed = random.nextDouble(1, 6);
            double angle = random.nextDouble(0, 2 * Math.PI);
            vx[i] = speed * Math.cos(angle);
            vy[i] = speed * Math.sin(angle);
        }
    }

    /** Moves every object one frame on and returns their detections, object i at index i. */
    public List<Detection> next() {
        List<Detection> detections = new ArrayList<>(x.length);
        for (int i = 0; i < x.length; i++) {
            x[i] += vx[i];
            y[i] += vy[i];
            if (x[i] < 0 || x[i] + w[i] > width) vx[i] = -vx[i];
            if (y[i] < 0 || y[i] + h[i] > height) vy[i] = -vy[i];
            double left = x[i] + noise();
            double top = y[i] + noise();
            double right = x[i] + w[i] + noise();
            double bottom = y[i] + h[i] + noise();
            float confidence = (float) random.nextDouble(0.6, 0.95);
            detections.add(new Detection(0, "person", confidence,
                    new Box((float) left, (float) top, (float) (right - left), (float) (bottom - top))));
        }
        return detections;
    }

    private double noise() {
        return noisePx == 0 ? 0 : random.nextGaussian() * noisePx;
    }
}
