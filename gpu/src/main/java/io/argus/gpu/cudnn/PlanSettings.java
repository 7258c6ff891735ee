package io.argus.gpu.cudnn;

import java.nio.file.Path;

/**
 * How plans are chosen: {@code candidates} engine configurations timed per problem (1: cuDNN's first choice that
 * finalizes, run once to prove it, not timed), {@code workspaceLimit} the most workspace a candidate may need (bytes),
 * {@code cacheDirectory} where chosen plans are kept on disk (null: no disk cache), {@code wideSearch} whether
 * cuDNN's fallback list is searched too while its first heuristic (mode A) proposed fewer than {@code candidates}.
 * Inference plans every layer for every batch bucket when a network opens, so it takes mode A's proposals only (as
 * it always has: finalizing fallback engines, many compiled at run time, costs seconds per layer); training plans once
 * per run and searches wider (the fallback list holds IEEE FP32's fast engines).
 */
public record PlanSettings(int candidates, long workspaceLimit, Path cacheDirectory, boolean wideSearch) {
    public PlanSettings {
        if (candidates < 1) throw new IllegalArgumentException("candidates must be at least 1, got " + candidates);
        if (workspaceLimit < 0) throw new IllegalArgumentException("workspaceLimit must be >= 0");
    }

    public PlanSettings withWorkspaceLimit(long bytes) {
        return new PlanSettings(candidates, bytes, cacheDirectory, wideSearch);
    }
}
