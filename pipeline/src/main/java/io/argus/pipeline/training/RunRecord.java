package io.argus.pipeline.training;

import io.argus.trainer.eval.Evaluator;
import io.argus.trainer.train.IterationStats;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * One fine-tune as the API and the dashboard show it ({@code runs/<id>/run.json}): what triggered it, the data, the
 * loss and loss-scale curves (at most {@value #MAX_POINTS} points each), held-out mAP before and after, the decision
 * and the resulting version; where it trained ({@code backend} cpu or cuda, {@code precision} fp32, mixed, tf32 or
 * mixed-emulated, {@code device} the backend's own description) and the loss scaling's state
 * ({@code lastLossScale}, {@code skippedSteps}: steps skipped for FP16 overflow). Lives on the trainer verticle's
 * event loop; what leaves it is a {@link #copy}.
 */
public final class RunRecord {
    static final int MAX_POINTS = 500;

    final JsonObject json;
    private final int every;

    RunRecord(int id, String model, String trigger, String baseVersion, int iterations, long labelsRevision,
              int trainFrames, int valFrames, int valObjects) {
        every = Math.max(1, (iterations + MAX_POINTS - 1) / MAX_POINTS);
        json = new JsonObject().put("id", id).put("model", model).put("trigger", trigger).put("state", "running")
                .put("startedAt", System.currentTimeMillis()).put("endedAt", null).put("baseVersion", baseVersion)
                .put("candidateVersion", null).put("backend", null).put("precision", null).put("device", null)
                .put("lastLossScale", null).put("skippedSteps", 0L).put("iterations", 0).put("of", iterations)
                .put("labelsRevision", labelsRevision).put("trainFrames", trainFrames).put("valFrames", valFrames)
                .put("valObjects", valObjects).put("loss", new JsonArray()).put("lossScale", new JsonArray())
                .put("learningRate", null).put("mapBefore", null).put("mapAfter", null).put("reason", null)
                .put("error", null);
    }

    private RunRecord(JsonObject json) {
        this.json = json;
        this.every = 1;
    }

    static RunRecord fromJson(JsonObject j) { return new RunRecord(j); }

    /** A copy that the trainer's later changes leave alone: what callers of {@link TrainingService} get. */
    RunRecord copy() { return new RunRecord(json.copy()); }

    /** The run as the API shows it and {@code run.json} keeps it (a copy). */
    public JsonObject toJson() { return json.copy(); }

    public int id() { return json.getInteger("id"); }

    /** running, evaluated, swapped, rejected or failed. */
    public String state() { return json.getString("state"); }

    long labelsRevision() { return json.getLong("labelsRevision", -1L); }

    /** {@code kind}: cpu or cuda; {@code precision}: as {@link io.argus.trainer.train.TrainingBackend#precision()}. */
    void started(String kind, String precision, String device) {
        json.put("backend", kind).put("precision", precision).put("device", device);
    }

    void iteration(IterationStats s) {
        json.put("iterations", s.iteration()).put("learningRate", s.learningRate()).put("lastLossScale", s.lossScale())
                .put("skippedSteps", s.skipped());
        if (s.iteration() % every == 0 || s.iteration() == s.maxBatches()) {
            json.getJsonArray("loss").add(new JsonArray().add(s.iteration()).add(round(s.lossPerImage().total())));
            json.getJsonArray("lossScale").add(new JsonArray().add(s.iteration()).add(s.lossScale()));
        }
    }

    void evaluated(Evaluator.Result before, Evaluator.Result after, double busy, double slept, float lossScale,
                   long skipped) {
        json.put("state", "evaluated").put("lastLossScale", lossScale).put("skippedSteps", skipped).put("mapBefore", round(before.map50())).put("mapAfter", round(after.map50()))
                .put("map50to95Before", round(before.map50to95())).put("map50to95After", round(after.map50to95()))
                .put("apBefore", ap(before.ap50())).put("apAfter", ap(after.ap50()))
                .put("trainSeconds", round(busy + slept)).put("computeSeconds", round(busy));
    }

    void finish(String state, String reason, String candidateVersion) {
        json.put("state", state).put("reason", reason).put("candidateVersion", candidateVersion)
                .put("endedAt", System.currentTimeMillis());
    }

    void failed(String error) {
        json.put("state", "failed").put("error", error).put("endedAt", System.currentTimeMillis());
    }

    private static JsonArray ap(double[] ap) {
        JsonArray a = new JsonArray();
        for (double v : ap) a.add(Double.isNaN(v) ? null : round(v));
        return a;
    }

    static double round(double v) { return Math.round(v * 1e5) / 1e5; }
}
