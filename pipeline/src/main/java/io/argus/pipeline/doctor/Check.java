package io.argus.pipeline.doctor;

import java.time.Duration;
import java.util.List;

/**
 * One concern of {@code argus doctor} (Java, CPU, GPU, FFmpeg, ...). A check may throw or hang: {@link Doctor} runs
 * it on a thread of its own, gives up after {@link #timeout()} and goes on with the next, so one broken check never
 * hides the others.
 */
public interface Check {
    /** The topic shown when the check itself crashes or hangs. */
    String name();

    /** How long the check may take before it is reported as hanging. */
    default Duration timeout() { return Duration.ofSeconds(10); }

    /** What was found: one finding per line, at least one. */
    List<Finding> run() throws Exception;
}
