package io.argus.pipeline.training;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The collected frames as the dashboard counts them ({@code GET /api/training/dataset}): frames kept and the most
 * kept, labelled (by a person or the teacher) and not, per split, the labels' revision, objects per class and split,
 * and the capture requests waiting for a frame.
 *
 * @param captures null until the dataset verticle adds them (the store alone does not know them)
 */
public record DatasetStats(int frames, int maxFrames, int labeled, int unlabeled, int teacherLabeled, int trainFrames,
                           int valFrames, long labelsRevision, List<ClassObjects> classes, Captures captures) {

    /** Labelled objects of one class in each split. */
    public record ClassObjects(int classId, String className, int train, int val) {}

    /** Capture requests waiting for a frame, and the cameras they wait on. */
    public record Captures(int waiting, int cameras) {}

    public DatasetStats withCaptures(Captures c) {
        return new DatasetStats(frames, maxFrames, labeled, unlabeled, teacherLabeled, trainFrames, valFrames,
                labelsRevision, classes, c);
    }

    public JsonObject toJson() {
        JsonArray perClass = new JsonArray();
        for (ClassObjects c : classes) {
            perClass.add(new JsonObject().put("classId", c.classId()).put("className", c.className())
                    .put("train", c.train()).put("val", c.val()));
        }
        JsonObject j = new JsonObject().put("frames", frames).put("maxFrames", maxFrames).put("labeled", labeled)
                .put("unlabeled", unlabeled).put("teacherLabeled", teacherLabeled).put("trainFrames", trainFrames)
                .put("valFrames", valFrames).put("labelsRevision", labelsRevision).put("classes", perClass);
        if (captures != null) {
            j.put("captures", new JsonObject().put("waiting", captures.waiting()).put("cameras", captures.cameras()));
        }
        return j;
    }
}
