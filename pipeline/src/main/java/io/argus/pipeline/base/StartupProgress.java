package io.argus.pipeline.base;

/**
 * What a start is doing, for a person watching it: the slow steps of a start (loading FFmpeg and each model, warming
 * a model up, generating the sample video, resuming a trained version) each begin a {@link Step} where the work
 * begins and end it where the work ends, so the times shown are the real ones.
 *
 * <p>Steps begin and end on whatever thread does the work (event loops, worker threads, inference threads), several
 * at once when models load in parallel: an implementation must be thread-safe and must not block; printing a line is
 * fine. The default, {@link #NONE}, shows nothing (tests, benchmarks).
 */
public interface StartupProgress {
    /** Shows nothing. */
    StartupProgress NONE = what -> Step.NONE;

    /** A step begins now; {@code what} says it in words, e.g. {@code loading model "default" (demo.cfg, cpu)}. */
    Step step(String what);

    /** One step under way: end it exactly once, with {@link #done} or {@link #failed}. */
    interface Step {
        Step NONE = new Step() {
            @Override
            public void done(String result) {}

            @Override
            public void failed(Throwable error) {}
        };

        /** The work succeeded; {@code result}, if not null, is a short outcome shown with the time (e.g. "cpu"). */
        void done(String result);

        default void done() { done(null); }

        /** The work failed; the error itself is reported by whoever fails the start. */
        void failed(Throwable error);
    }
}
