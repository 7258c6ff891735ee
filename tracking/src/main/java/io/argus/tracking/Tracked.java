package io.argus.tracking;

import io.argus.detector.Box;
import java.util.Objects;

/** A tracked object in one frame, as {@link SceneWatch} sees it: the tracker's id and the detection's class and box. */
public record Tracked(long trackId, int classId, String className, float confidence, Box box) {
    public Tracked {
        Objects.requireNonNull(className, "className");   // zone and line filters and the counts go by class name
        Objects.requireNonNull(box, "box");
    }
}
