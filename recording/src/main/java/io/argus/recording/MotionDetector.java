package io.argus.recording;

import java.nio.ByteBuffer;

/**
 * Whether a camera's picture moved, for recording in motion mode: a coarse grid of its pixels (about 160 across, so a
 * 1080p picture costs some 14,000 reads) in grey, compared with a running average of the pictures before. A grid point
 * changed when it differs from its average by more than {@code threshold} grey levels; the picture moved when at least
 * {@code minArea} of the points changed. A change of most of the picture at once (lights switched on, a camera's
 * infrared mode) is a new scene, not motion: the average starts again from it. Not thread-safe: one camera's reader.
 */
public final class MotionDetector {
    /** Grid points across the picture's width. */
    static final int COLUMNS = 160;
    /** How fast the average follows the scene: slow enough that a walking person stays a difference. */
    static final float ALPHA = 0.05f;
    /** Changed points beyond this share of the picture: the scene changed, not something in it. */
    static final double NEW_SCENE = 0.8;

    private final int threshold;
    private final double minArea;
    private float[] average;
    private int width;
    private int height;

    /**
     * @param threshold grey levels (1 to 255) a point must differ from its average by to count as changed
     * @param minArea   share of the points (0 to 1, exclusive of 0) that must change for the picture to have moved
     */
    public MotionDetector(int threshold, double minArea) {
        if (threshold < 1 || threshold > 255) throw new IllegalArgumentException("motion threshold: expected 1 to 255, found " + threshold);
        if (!(minArea > 0 && minArea <= 1)) throw new IllegalArgumentException("motion area: expected a share in (0, 1], found " + minArea);
        this.threshold = threshold;
        this.minArea = minArea;
    }

    /**
     * Looks at one BGR picture ({@code stride} bytes a row from the buffer's position 0) and says whether it moved
     * against the pictures before. The first picture (or the first of a new size) only starts the average.
     */
    public boolean moved(ByteBuffer bgr, int width, int height, int stride) {
        int step = Math.max(1, width / COLUMNS);
        int cols = width / step;
        int rows = height / step;
        if (cols == 0 || rows == 0) return false;
        if (average == null || width != this.width || height != this.height) {
            this.width = width;
            this.height = height;
            average = new float[cols * rows];
            sample(bgr, step, cols, rows, stride, average, null);
            return false;
        }
        int changed = sample(bgr, step, cols, rows, stride, null, average);
        double share = changed / (double) (cols * rows);
        if (share > NEW_SCENE) {
            sample(bgr, step, cols, rows, stride, average, null);   // a new scene: its pictures are the average now
            return false;
        }
        return share >= minArea;
    }

    /** Fills {@code into} with the grid's grey levels, or compares with and updates {@code against}; the changed count. */
    private int sample(ByteBuffer bgr, int step, int cols, int rows, int stride, float[] into, float[] against) {
        int changed = 0;
        int k = 0;
        for (int r = 0; r < rows; r++) {
            int row = (r * step + step / 2) * stride;
            for (int c = 0; c < cols; c++, k++) {
                int at = row + (c * step + step / 2) * 3;
                int grey = ((bgr.get(at) & 0xff) + 2 * (bgr.get(at + 1) & 0xff) + (bgr.get(at + 2) & 0xff)) >> 2;
                if (into != null) {
                    into[k] = grey;
                } else {
                    float a = against[k];
                    if (Math.abs(grey - a) > threshold) changed++;
                    against[k] = a + ALPHA * (grey - a);
                }
            }
        }
        return changed;
    }
}
