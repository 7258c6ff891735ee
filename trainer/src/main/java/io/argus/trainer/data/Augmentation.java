package io.argus.trainer.data;

import io.argus.detector.darknet.NetSettings;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.YoloSpec;
import java.util.List;

/**
 * Darknet's detection augmentation settings: {@code jitter} and {@code resize} (of the last [yolo] layer, as Darknet
 * reads them), and from [net] {@code hue}, {@code saturation}, {@code exposure}, {@code flip}, {@code mosaic},
 * {@code letter_box}.
 */
public record Augmentation(float jitter, float hue, float saturation, float exposure, boolean flip, boolean mosaic,
                           float resize, boolean letterBox) {
    /** Images as they are: no crop, colour change or flip. */
    public static final Augmentation NONE = new Augmentation(0, 0, 1, 1, false, false);

    public Augmentation {
        if (!(resize > 0) || !Float.isFinite(resize)) {
            throw new IllegalArgumentException("resize: expected a positive number, found " + resize);
        }
    }

    /** Without random resizing ({@code resize=1}) or letterboxing. */
    public Augmentation(float jitter, float hue, float saturation, float exposure, boolean flip, boolean mosaic) {
        this(jitter, hue, saturation, exposure, flip, mosaic, 1f, false);
    }

    public static Augmentation of(NetworkSpec spec) {
        List<YoloSpec> heads = spec.yoloLayers();
        YoloSpec.YoloTraining last = heads.isEmpty() ? null : heads.get(heads.size() - 1).training();
        NetSettings.Training t = spec.net().training();
        return new Augmentation(last == null ? 0 : last.jitter(), t.hue(), t.saturation(), t.exposure(), t.flip(),
                t.mosaic(), last == null ? 1 : last.resize(), spec.net().letterBox());
    }
}
