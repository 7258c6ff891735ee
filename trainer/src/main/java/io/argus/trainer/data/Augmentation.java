package io.argus.trainer.data;

import io.argus.detector.darknet.NetSettings;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.YoloSpec;
import java.util.List;

/**
 * Darknet's detection augmentation settings: {@code jitter} (of the last [yolo] layer, as Darknet reads it), and from
 * [net] {@code hue}, {@code saturation}, {@code exposure}, {@code flip}, {@code mosaic}.
 */
public record Augmentation(float jitter, float hue, float saturation, float exposure, boolean flip, boolean mosaic) {
    /** Images as they are: no crop, colour change or flip. */
    public static final Augmentation NONE = new Augmentation(0, 0, 1, 1, false, false);

    public static Augmentation of(NetworkSpec spec) {
        List<YoloSpec> heads = spec.yoloLayers();
        float jitter = heads.isEmpty() ? 0 : heads.get(heads.size() - 1).training().jitter();
        NetSettings.Training t = spec.net().training();
        return new Augmentation(jitter, t.hue(), t.saturation(), t.exposure(), t.flip(), t.mosaic());
    }
}
