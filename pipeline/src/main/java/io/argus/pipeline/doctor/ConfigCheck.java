package io.argus.pipeline.doctor;

import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.ConfigLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The config {@code argus run} would use, read as it reads it (the YAML, then ARGUS_* overrides from the
 * environment). The HTTP and cache checks look at what it says; when it does not load, they are skipped.
 */
final class ConfigCheck implements Check {
    private final Path file;
    private final Map<String, String> env;
    private volatile ArgusConfig config;

    ConfigCheck(Path file, Map<String, String> env) {
        this.file = file;
        this.env = env;
    }

    @Override
    public String name() { return "Config"; }

    /** The config once {@link #run} read it; null when it did not load. */
    ArgusConfig config() { return config; }

    @Override
    public List<Finding> run() throws Exception {
        try {
            config = ConfigLoader.loadBlocking(file, env, 8);
        } catch (java.util.concurrent.TimeoutException e) {
            throw e;
        } catch (Exception e) {
            return List.of(Finding.fail(name(), Doctor.describe(e), "fix " + file + " (docs/pipeline.md lists every key)"));
        }
        List<Finding> out = new ArrayList<>();
        out.add(Finding.ok(name(), file + ": " + config.models().size() + " model(s), " + config.cameras().size() + " camera(s)"));
        for (String unused : config.unusedEnv()) {
            out.add(Finding.warn(name(), "environment variable " + unused + " matches no config key (ignored)",
                    "check its spelling: http.port is ARGUS_HTTP_PORT, models[0].maxBatch is ARGUS_MODELS_0_MAX_BATCH"));
        }
        for (String warning : config.warnings()) {
            out.add(Finding.warn(name(), warning, "argus config show lists every value with where it came from"));
        }
        return out;
    }
}
