package io.argus.gpu;

import java.nio.file.Path;
import java.util.Map;

/**
 * Where Argus keeps its caches when nothing more specific is configured: {@code ARGUS_CACHE_DIR}, else
 * {@code $XDG_CACHE_HOME/argus}, else {@code ~/.cache/argus}. The app passes its {@code cacheDir} down explicitly (the
 * config reads the same variable); this is the default for the code that runs without the app's config (the
 * benchmarks and tools, a library user), so one variable moves every cache either way: compiled kernels, cuDNN plans,
 * the CPU tuning.
 */
public final class CacheHome {
    private CacheHome() {}

    /** The directory for this process's environment. */
    public static Path current() { return of(System.getenv(), System.getProperty("user.home")); }

    /** The directory for {@code env} and home directory {@code home}. */
    public static Path of(Map<String, String> env, String home) {
        String argus = env.get("ARGUS_CACHE_DIR");
        if (argus != null && !argus.isBlank()) return Path.of(argus);
        String xdg = env.get("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isBlank()) return Path.of(xdg, "argus");
        return Path.of(home, ".cache", "argus");
    }
}
