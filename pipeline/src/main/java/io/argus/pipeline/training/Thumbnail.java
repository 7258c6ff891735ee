package io.argus.pipeline.training;

import io.argus.detector.BgrImage;

/**
 * A 16x16 grey thumbnail of a frame, the collector's cheap measure of "a different scene": the mean absolute
 * difference of two thumbnails, 0 (same) to 1 (black against white). Each cell averages a sparse grid of its pixels.
 */
public final class Thumbnail {
    static final int SIZE = 16;
    private static final int SAMPLES = 4; // per cell and axis
    private final float[] cells = new float[SIZE * SIZE];

    private Thumbnail() {}

    public static Thumbnail of(BgrImage img) {
        Thumbnail t = new Thumbnail();
        for (int cy = 0; cy < SIZE; cy++) {
            for (int cx = 0; cx < SIZE; cx++) {
                double sum = 0;
                for (int sy = 0; sy < SAMPLES; sy++) {
                    int y = (int) ((cy + (sy + 0.5) / SAMPLES) * img.height() / SIZE);
                    for (int sx = 0; sx < SAMPLES; sx++) {
                        int x = (int) ((cx + (sx + 0.5) / SAMPLES) * img.width() / SIZE);
                        // ITU-R BT.601 luma from B, G, R
                        sum += 0.114 * img.at(x, y, 0) + 0.587 * img.at(x, y, 1) + 0.299 * img.at(x, y, 2);
                    }
                }
                t.cells[cy * SIZE + cx] = (float) (sum / (SAMPLES * SAMPLES * 255.0));
            }
        }
        return t;
    }

    /** Mean absolute difference of the cells, 0..1. */
    public double distance(Thumbnail o) {
        double d = 0;
        for (int i = 0; i < cells.length; i++) d += Math.abs(cells[i] - o.cells[i]);
        return d / cells.length;
    }
}
