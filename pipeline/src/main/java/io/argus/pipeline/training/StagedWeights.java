package io.argus.pipeline.training;

import java.nio.file.Path;

/**
 * Weights on their way into the registry: a 0600 temporary file in the registry's directory, written and hashed by
 * this node (an upload as it arrived, or a copy of a local file), not yet a version. The registry renames it to the
 * version's file or deletes it; nothing else reads it.
 *
 * @param file   the temporary file ({@code .<name>.tmp}: a leftover is removed at the next start)
 * @param sha256 SHA-256 of its content, 64 hex digits
 * @param bytes  its size
 */
public record StagedWeights(Path file, String sha256, long bytes) {
    /** The version these weights are: {@code sha256:} and the first 12 hex digits of the hash. */
    public String version() { return "sha256:" + sha256.substring(0, 12); }
}
