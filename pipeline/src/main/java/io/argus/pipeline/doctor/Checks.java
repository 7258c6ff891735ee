package io.argus.pipeline.doctor;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** The checks of {@code argus doctor}, in the order a person reads them: runtime, hardware, libraries, config. */
public final class Checks {
    private Checks() {}

    /**
     * @param argusHome the Argus home (null when unknown)
     * @param configFile the config {@code argus run} would read
     * @param env the environment, for ARGUS_* overrides
     */
    public static List<Check> all(Path argusHome, Path configFile, Map<String, String> env) {
        ConfigCheck config = new ConfigCheck(configFile, env);
        return List.of(new JavaCheck(argusHome), new CpuCheck(), new GpuCheck(), new FfmpegCheck(),
                new SystemPackagesCheck(argusHome != null ? argusHome.resolve("config/system-packages.txt") : null),
                new FontCheck(), config, new HttpCheck(config), new CacheDirCheck(config));
    }
}
