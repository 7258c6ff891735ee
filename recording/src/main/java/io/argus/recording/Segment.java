package io.argus.recording;

/**
 * One file of a camera's recording: {@code name} is its path under the storage directory
 * ({@code <camera>/<UTC date>/<start ms>.mp4}), the times are wall-clock milliseconds since the epoch; {@code endMs} is
 * -1 while the segment is being written. {@code startMs} is in the name, so the files alone say what they hold.
 */
public record Segment(String camera, String name, long startMs, long endMs, long bytes, long packets) {
    public boolean complete() { return endMs >= 0; }

    public long durationMs() { return complete() ? endMs - startMs : 0; }

    /** Whether any of [fromMs, toMs) falls in this segment. */
    public boolean overlaps(long fromMs, long toMs) { return startMs < toMs && (endMs < 0 || endMs > fromMs); }
}
