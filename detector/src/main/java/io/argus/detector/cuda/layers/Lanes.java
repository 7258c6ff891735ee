package io.argus.detector.cuda.layers;

import io.argus.gpu.TensorView;

/** How many channels an elementwise layer kernel runs over, and whether 8 at a time. */
final class Lanes {
    private Lanes() {}

    /**
     * The views' channels, or their padded pixel stride where every view owns its whole pixels: then the padding
     * (zeros in, zeros out) is processed too, so 13 channels run as two 16-byte vectors instead of one channel per
     * thread, and training's padding keeps holding zeros. Views inside a concatenation process their channels only.
     */
    static int of(TensorView... views) {
        for (TensorView v : views) if (v != null && !v.packed()) return views[0].channels();
        return views[0].pixelStride();
    }

    /** Whether 8-channel vectors apply to {@code lanes} channels of every (non-null) view. */
    static boolean vector(int lanes, TensorView... views) {
        if (lanes % 8 != 0) return false;
        for (TensorView v : views) {
            if (v != null && (v.channelOffset() % 8 != 0 || v.pixelStride() % 8 != 0)) return false;
        }
        return true;
    }

    /** The same view over {@code lanes} channels from its offset. */
    static TensorView widen(TensorView v, int lanes) {
        if (v == null || v.channels() == lanes) return v;
        return new TensorView(v.base(), v.imageStride(), v.pixelStride(), v.channelOffset(), lanes, v.height(),
                v.width(), v.type());
    }
}
