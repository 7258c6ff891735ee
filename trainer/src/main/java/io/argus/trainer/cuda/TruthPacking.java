package io.argus.trainer.cuda;

import io.argus.trainer.loss.Truth;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The truths of a mini-batch as the loss kernels read them: per image {@code maxTruths} rows of 5 floats
 * (x, y, w, h, class), then one int count per image. Host-side.
 */
final class TruthPacking {
    static final int FLOATS = 5;

    private TruthPacking() {}

    /** The most truths any of the first n images has (at least 1). */
    static int maxTruths(List<List<Truth>> truths, int n) {
        int most = 1;
        for (int i = 0; i < n; i++) most = Math.max(most, truths.get(i).size());
        return most;
    }

    /** Bytes of the packed rows for n images. */
    static long rowBytes(int n, int maxTruths) {
        return 4L * n * maxTruths * FLOATS;
    }

    /** Writes rows at byte 0 of {@code rows} and the counts at byte 0 of {@code counts} (little-endian views). */
    static void pack(List<List<Truth>> truths, int n, int maxTruths, ByteBuffer rows, ByteBuffer counts) {
        for (int i = 0; i < n; i++) {
            List<Truth> list = truths.get(i);
            if (list.size() > maxTruths) {
                throw new IllegalArgumentException("image " + i + " has " + list.size() + " truths, room for " + maxTruths);
            }
            int base = i * maxTruths * FLOATS * 4;
            for (int t = 0; t < list.size(); t++) {
                Truth tr = list.get(t);
                int at = base + t * FLOATS * 4;
                rows.putFloat(at, tr.x()).putFloat(at + 4, tr.y()).putFloat(at + 8, tr.w()).putFloat(at + 12, tr.h())
                        .putFloat(at + 16, tr.classId());
            }
            counts.putInt(4 * i, list.size());
        }
    }
}
