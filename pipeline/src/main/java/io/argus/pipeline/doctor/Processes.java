package io.argus.pipeline.doctor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Small system tools (ldd, dpkg-query, ...) run with a time limit; their output, or null when they cannot run. */
final class Processes {
    private Processes() {}

    /** What a finished tool said: exit code and standard output (standard error is discarded). */
    record Output(int exitCode, String stdout) {}

    /** Whether {@code tool} is on the PATH. */
    static boolean onPath(String tool) {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String dir : path.split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) return true;
        }
        return false;
    }

    /** Runs {@code command}; null when it cannot be started or did not end within {@code limit}. */
    static Output run(List<String> command, Map<String, String> extraEnv, Duration limit) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
            pb.environment().putAll(extraEnv);
            Process p = pb.start();
            p.getOutputStream().close();
            // Read on another thread while waiting, so neither a full pipe nor a hung tool can stall the check.
            CompletableFuture<byte[]> stdout = CompletableFuture.supplyAsync(() -> {
                try (var in = p.getInputStream()) {
                    return in.readAllBytes();
                } catch (IOException e) {
                    return new byte[0];
                }
            });
            if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                return null;
            }
            return new Output(p.exitValue(), new String(stdout.get(1, TimeUnit.SECONDS), StandardCharsets.UTF_8));
        } catch (IOException | ExecutionException | TimeoutException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    static Output run(List<String> command, Duration limit) {
        return run(command, Map.of(), limit);
    }
}
