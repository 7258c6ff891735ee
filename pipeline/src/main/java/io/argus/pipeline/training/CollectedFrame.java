package io.argus.pipeline.training;

import io.argus.detector.Box;
import io.argus.detector.Detection;
import io.argus.pipeline.json.DetectionJson;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * A frame kept for training, as the dataset store describes it ({@code frames/<id>.json}): where it came from, the
 * split it belongs to for good, what the serving model proposed, and its labels once someone (or the teacher) gave
 * them. Boxes are in the frame's pixels.
 *
 * @param split       {@code train} or {@code val} (held out: only ever used to decide swaps)
 * @param confidence  the frame's confidence when collected: the least confident detection, or the model's threshold
 *                    when it found nothing (a possible miss); low first is what the collector prefers
 * @param servedBy    the model version whose proposals these are
 * @param labels      null while unlabelled; an empty list means "nothing to detect here"
 * @param labelSource {@code annotation} or {@code teacher} (null while unlabelled)
 */
public record CollectedFrame(String id, String camera, long frame, double pts, double captureTime, int width,
                             int height, String split, double confidence, String servedBy, List<Detection> proposals,
                             List<Detection> labels, String labelSource, double labeledAt) {
    public static final String TRAIN = "train";
    public static final String VAL = "val";

    public boolean labeled() { return labels != null; }

    public CollectedFrame withLabels(List<Detection> newLabels, String source, double at) {
        return new CollectedFrame(id, camera, frame, pts, captureTime, width, height, split, confidence, servedBy,
                proposals, newLabels == null ? null : List.copyOf(newLabels), newLabels == null ? null : source,
                newLabels == null ? 0 : at);
    }

    /**
     * The full form (stored, and served by GET /api/training/frames/:id); a proposal that duplicates a higher-scored
     * one ({@link DuplicateBoxes}) says {@code "duplicate": true}, so the annotator leaves it out of "accept all".
     */
    public JsonObject toJson() {
        JsonArray proposed = DetectionJson.of(proposals);
        boolean[] duplicate = DuplicateBoxes.mark(proposals);
        for (int i = 0; i < duplicate.length; i++) if (duplicate[i]) proposed.getJsonObject(i).put("duplicate", true);
        return summary().put("proposals", proposed)
                .put("labels", labels != null ? DetectionJson.of(labels) : null);
    }

    /** Without the boxes (lists of frames). */
    public JsonObject summary() {
        return new JsonObject().put("id", id).put("camera", camera).put("frame", frame).put("pts", pts)
                .put("captureTime", captureTime).put("width", width).put("height", height).put("split", split)
                .put("confidence", Math.round(confidence * 1e4) / 1e4).put("servedBy", servedBy)
                .put("proposalCount", proposals.size()).put("labeled", labeled())
                .put("labelCount", labels != null ? labels.size() : 0).put("labelSource", labelSource)
                .put("labeledAt", labels != null ? labeledAt : null)
                .put("image", "/api/training/frames/" + id + "/image");
    }

    public static CollectedFrame fromJson(JsonObject j) {
        JsonArray l = j.getJsonArray("labels");
        return new CollectedFrame(j.getString("id"), j.getString("camera"), j.getLong("frame", 0L),
                j.getDouble("pts", 0.0), j.getDouble("captureTime", 0.0), j.getInteger("width"),
                j.getInteger("height"), j.getString("split"), j.getDouble("confidence", 0.0), j.getString("servedBy"),
                boxes(j.getJsonArray("proposals", new JsonArray())), l != null ? boxes(l) : null,
                j.getString("labelSource"), j.getValue("labeledAt") instanceof Number n ? n.doubleValue() : 0);
    }

    static List<Detection> boxes(JsonArray a) {
        List<Detection> out = new ArrayList<>(a.size());
        for (Object o : a) {
            JsonObject d = (JsonObject) o;
            JsonObject b = d.getJsonObject("box");
            out.add(new Detection(d.getInteger("classId"), d.getString("className"),
                    d.getFloat("confidence", 1f), new Box(b.getFloat("x"), b.getFloat("y"), b.getFloat("w"), b.getFloat("h"))));
        }
        return out;
    }
}
