package io.argus.pipeline.cli;

import io.argus.pipeline.doctor.Checks;
import io.argus.pipeline.doctor.Doctor;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code argus doctor}: what this machine has and lacks for Argus, one line per finding with OK, INFO, WARN or FAIL
 * and what to do. Exit code 1 when anything is FAIL.
 */
@Command(name = "doctor", mixinStandardHelpOptions = true,
        description = {"Check this machine: Java, CPU, GPU, FFmpeg, port, disk.",
                "One line per finding (OK, INFO, WARN, FAIL) with what to do; exit code 1 when anything is FAIL."})
final class DoctorCommand implements Callable<Integer> {
    @Option(names = {"-c", "--config"}, description = "YAML config to check (default: $ARGUS_CONFIG or config/argus.yaml of the Argus home)")
    Path config;

    @Override
    public Integer call() {
        Path home = home();
        Path file = ProjectPaths.config(config);
        System.out.println("argus doctor: checking this machine for Argus" + (home != null ? " (Argus home " + home + ")" : ""));
        Doctor doctor = new Doctor(System.out);
        doctor.run(Checks.all(home, file, System.getenv()));
        System.out.println(doctor.summary());
        return doctor.exitCode();
    }

    private static Path home() {
        try {
            return ProjectPaths.home();
        } catch (IllegalStateException e) {
            return null;
        }
    }
}
