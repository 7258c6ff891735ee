package io.argus.pipeline.doctor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The cache directory (the sample video, training data, model versions): can Argus write there, and how much space is
 * left. Nothing is created that was not there: writability is tried in the nearest directory that exists.
 */
final class CacheDirCheck implements Check {
    private static final long LOW = 1L << 30;
    private final ConfigCheck source;

    CacheDirCheck(ConfigCheck source) {
        this.source = source;
    }

    @Override
    public String name() { return "Cache dir"; }

    @Override
    public List<Finding> run() throws IOException {
        if (source.config() == null) return List.of(Finding.info(name(), "not checked: the config did not load"));
        Path dir = source.config().cacheDir().toAbsolutePath();
        Path existing = dir;
        while (existing != null && !Files.isDirectory(existing)) existing = existing.getParent();
        if (existing == null) return List.of(Finding.fail(name(), dir + ": no part of it exists", "set cacheDir (or ARGUS_CACHE_DIR) to a writable directory"));
        try {
            Files.delete(Files.createTempFile(existing, ".argus-doctor", ".tmp"));
        } catch (IOException e) {
            return List.of(Finding.fail(name(), dir + " is not writable (" + Doctor.describe(e) + ")",
                    "set cacheDir (or ARGUS_CACHE_DIR) to a directory you can write, or fix its permissions"));
        }
        // File.getUsableSpace (statvfs) rather than Files.getFileStore: the latter looks the path up in /proc/mounts
        // and fails ("Mount point not found") in a chroot or container whose mount table names other paths.
        long free = existing.toFile().getUsableSpace();
        String found = dir + (existing.equals(dir) ? "" : " (created on first start)") + ", writable, "
                + String.format(java.util.Locale.ROOT, "%.1f GiB free", free / (double) (1L << 30));
        if (free < LOW) {
            return List.of(Finding.warn(name(), found, "free some space: the sample video, collected frames and model "
                    + "versions need a few hundred MB"));
        }
        return List.of(Finding.ok(name(), found));
    }
}
