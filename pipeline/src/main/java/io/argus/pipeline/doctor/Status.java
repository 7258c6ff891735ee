package io.argus.pipeline.doctor;

/** How a finding of {@code argus doctor} stands. Only FAIL makes the doctor exit with 1. */
public enum Status {
    /** Works. */
    OK,
    /** Worth knowing, nothing to do (e.g. no GPU on a CPU-only machine). */
    INFO,
    /** Works, but something is missing or slower than it could be; the fix says what to do. */
    WARN,
    /** Argus will not work (or not this part of it) until the fix is applied. */
    FAIL
}
