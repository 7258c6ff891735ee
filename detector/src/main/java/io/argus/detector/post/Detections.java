package io.argus.detector.post;

import io.argus.detector.Box;
import io.argus.detector.Detection;
import io.argus.detector.darknet.YoloSpec;
import io.argus.detector.darknet.YoloSpec.NmsKind;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Candidates after NMS to final detections: one per (box, class) whose prob exceeds the threshold. */
public final class Detections {
    private Detections() {}

    public static List<Detection> finish(List<Candidate> candidates, List<YoloSpec> heads, List<String> names,
                                         InputGeometry g, float threshold, float nms, NmsKind override) {
        YoloSpec first = heads.get(0);
        NmsKind kind = override != null ? override : first.nmsKind();
        Nms.apply(candidates, first.classes(), nms, kind, first.betaNms());
        List<Detection> out = new ArrayList<>();
        for (Candidate c : candidates) {
            for (int k = 0; k < c.prob.length; k++) {
                if (c.prob[k] > threshold) out.add(new Detection(k, names.get(k), c.prob[k], toPixels(c, g)));
            }
        }
        out.sort(Comparator.comparingDouble((Detection d) -> -d.confidence()));
        return out;
    }

    /** Relative centre/size to a pixel box clipped to the image. */
    static Box toPixels(Candidate c, InputGeometry g) {
        float left = clamp((c.x - c.w / 2) * g.imageWidth(), g.imageWidth());
        float right = clamp((c.x + c.w / 2) * g.imageWidth(), g.imageWidth());
        float top = clamp((c.y - c.h / 2) * g.imageHeight(), g.imageHeight());
        float bottom = clamp((c.y + c.h / 2) * g.imageHeight(), g.imageHeight());
        return new Box(left, top, right - left, bottom - top);
    }

    private static float clamp(float v, int max) {
        return Math.max(0, Math.min(max, v));
    }
}
