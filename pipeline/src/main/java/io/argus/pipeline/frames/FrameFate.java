package io.argus.pipeline.frames;

/**
 * What becomes of a frame in the batcher's queue, told back to the camera that made it: dropped unprocessed because
 * a newer frame of the camera took its place, or taken into a batch for detection. A live camera only counts the
 * first; a file analysed whole waits for the second before it sends its next frame, so none of its frames is dropped.
 * Called on the inference thread (or the event loop that queued the newer frame): it must not block.
 */
@FunctionalInterface
public interface FrameFate {
    /** Dropped unprocessed: a newer frame of the same camera took its place (latest frame wins). */
    void superseded();

    /** Taken out of the queue into a batch for detection. */
    default void taken() {}
}
