package io.argus.pipeline.training;

import io.vertx.core.json.JsonObject;

/**
 * The online trainer as {@code GET /api/training} shows it: the model and the version serving, the schedule and its
 * next time, whether this node is the one that fine-tunes (in a cluster, one node at a time), the run under way, where
 * and how runs train, the settings of a run, and the labels' revision the last run trained on.
 *
 * @param nextRunAt        epoch ms of the schedule's next time; null without one
 * @param trainerElsewhere why runs do not happen here (which node runs them); null when they do
 * @param running          a copy of the run under way; null when none
 * @param runsOn           cpu or cuda, as {@code training.backend} resolved at start
 * @param teacher          the teacher model's cfg file name; null without a teacher
 * @param waiting          why the last attempt to start a run did not (too few labelled frames, or held-out objects of
 *                         a class, e.g. "waiting: 2 held-out objects of class cross, need 10"); null once one started
 */
public record TrainingStatus(String model, String serving, String schedule, String scheduleText, Long nextRunAt,
                             String trainerElsewhere, RunRecord running, String backend, String runsOn,
                             String precision, int iterations, int batch, float learningRate, double cpuShare,
                             int minTrainFrames, int minValFrames, int minValObjectsPerClass, double mapTolerance,
                             boolean collecting, String teacher, long lastTrainedRevision, String waiting) {

    public JsonObject toJson() {
        return new JsonObject().put("enabled", true).put("model", model).put("serving", serving)
                .put("schedule", schedule).put("scheduleText", scheduleText).put("nextRunAt", nextRunAt)
                .put("trainerHere", trainerElsewhere == null).put("trainerElsewhere", trainerElsewhere)
                .put("running", running != null ? running.toJson() : null)
                .put("backend", backend).put("runsOn", runsOn).put("precision", precision)
                .put("iterations", iterations).put("batch", batch).put("learningRate", learningRate)
                .put("cpuShare", cpuShare).put("minTrainFrames", minTrainFrames).put("minValFrames", minValFrames)
                .put("minValObjectsPerClass", minValObjectsPerClass)
                .put("mapTolerance", mapTolerance).put("collecting", collecting).put("teacher", teacher)
                .put("lastTrainedRevision", lastTrainedRevision).put("waiting", waiting);
    }
}
