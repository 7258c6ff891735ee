package io.argus.pipeline.training;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;

/**
 * The online trainer's collected frames and their labels ({@link DatasetVerticle}): what the REST routes show and
 * change, what the trainer pins for a run. Every call runs on the dataset verticle's context and answers on the
 * caller's; a refusal fails the future with a {@link io.argus.pipeline.base.RequestRefused} carrying its HTTP status
 * (a malformed id is an {@link IllegalArgumentException}: 400 naming the field). Frame ids are names of up to
 * {@link io.argus.pipeline.config.Names#DERIVED_MAX} characters.
 */
public interface DatasetService {
    /** What {@link #frames} returns when no limit is asked for. */
    int DEFAULT_LIMIT = 200;

    /**
     * Kept frames, oldest first, at most {@code limit}: of one split ({@link CollectedFrame#TRAIN} or
     * {@link CollectedFrame#VAL}; null: both), labelled or not (null: both).
     */
    Future<List<CollectedFrame>> frames(String split, Boolean labeled, int limit);

    /** One frame with its proposals and labels; 404 for none of that id. */
    Future<CollectedFrame> frame(String id);

    /** The file of a frame's picture (PNG), for the route to send; 404 for none of that id. */
    Future<Path> image(String id);

    /**
     * Replaces a frame's labels with {@code annotations}, the request body as sent
     * ({@code {"labels": [{"className", "box": {"x", "y", "w", "h"}}]}}, see {@link Annotations}); 400 naming the bad
     * field, 404 for no such frame.
     */
    Future<CollectedFrame> label(String id, JsonObject annotations);

    /** Forgets a frame and its files; 404 for none of that id. */
    Future<Void> delete(String id);

    /**
     * Keeps {@code camera}'s next frame: 400 for a camera id that is not a name, 404 for a camera that does not run
     * here or feeds another model, 429 when {@code client} (or everyone) has too many requests waiting, 409 when no
     * frame comes within 10 s.
     */
    Future<CollectedFrame> capture(String camera, String client);

    /** Frames and objects per class and split, and the capture requests waiting. */
    Future<DatasetStats> stats();

    /** The labelled frames of a run, kept on disk until {@link #unpin} (a frame deleted meanwhile goes then). */
    Future<DatasetStore.Snapshot> pin();

    Future<Void> unpin();

    /** Counts every change of labels: the trainer's schedule runs only when it moved since the last run. */
    Future<Long> labelsRevision();
}
