package io.argus.pipeline.training;

import io.vertx.core.Future;
import java.util.List;

/**
 * The fine-tune runs of the trained model ({@link TrainerVerticle}): its settings and state, the runs kept, a run on
 * demand and its cancellation. Every call runs on the trainer's context and answers on the caller's; a refusal fails
 * the future with a {@link io.argus.pipeline.base.RequestRefused} carrying its HTTP status. The runs returned are
 * copies: the trainer goes on changing its own.
 */
public interface TrainingService {
    /** What the trainer does and will do: its settings, the run under way, the next scheduled time. */
    Future<TrainingStatus> status();

    /** The runs kept (the last {@value TrainerVerticle#KEEP_RUNS}), newest first, at most {@code limit}. */
    Future<List<RunRecord>> runs(int limit);

    /** One run; 400 for a negative number, 404 for one not kept. */
    Future<RunRecord> run(int id);

    /** Starts a run now; completes once it started, or fails with why it cannot (409). */
    Future<RunRecord> runNow();

    /** Cancels the run under way at its next step; 409 when none runs. */
    Future<RunRecord> cancel();
}
