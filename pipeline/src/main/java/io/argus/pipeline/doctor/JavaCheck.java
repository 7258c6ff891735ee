package io.argus.pipeline.doctor;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The Java runtime running Argus: version, vendor, where it is, and whether it is Argus' bundled runtime. */
final class JavaCheck implements Check {
    private final Path argusHome; // null when unknown

    JavaCheck(Path argusHome) {
        this.argusHome = argusHome;
    }

    @Override
    public String name() { return "Java"; }

    @Override
    public List<Finding> run() {
        Path javaHome = Path.of(System.getProperty("java.home"));
        String kind = bundled(javaHome) ? "the bundled runtime"
                : Files.isExecutable(javaHome.resolve("bin/javac")) ? "a JDK" : "a JRE";
        String found = Runtime.version() + " (" + System.getProperty("java.vendor") + "), " + kind + " at " + javaHome;
        if (Runtime.version().feature() < 21) {
            return List.of(Finding.fail(name(), found, "Argus needs Java 21 or newer: set JAVA_HOME to a JDK 21+"));
        }
        return List.of(Finding.ok(name(), found));
    }

    private boolean bundled(Path javaHome) {
        if (argusHome == null) return false;
        try {
            Path runtime = argusHome.resolve("runtime");
            return Files.isDirectory(runtime) && Files.isSameFile(runtime, javaHome);
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
