package io.argus.pipeline.load;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Argus as a separate JVM ({@code argus run --config <yaml>} on the test's classpath, output in {@code app.log}), so
 * that its resident memory is its own and can be read from {@code /proc/<pid>/status} while the test's 500 clients
 * live in the test's JVM.
 */
final class AppProcess implements AutoCloseable {
    final int port;
    final String token;
    final Path log;
    private final Process process;
    private final WebClient web;

    private AppProcess(int port, String token, Path log, Process process, Vertx client) {
        this.port = port;
        this.token = token;
        this.log = log;
        this.process = process;
        this.web = WebClient.create(client, io.argus.pipeline.testing.TestHttp.options("127.0.0.1", port));
    }

    static AppProcess start(JsonObject config, int port, String token, Path dir, String heap, Vertx client) throws IOException {
        Path yaml = dir.resolve("load.yaml");
        Files.writeString(yaml, config.encodePrettily());
        Path log = dir.resolve("app.log");
        String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx" + heap, "--enable-native-access=ALL-UNNAMED",
                "-Djava.awt.headless=true", "-cp", System.getProperty("java.class.path"),
                "io.argus.pipeline.cli.ArgusCli", "run", "--config", yaml.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        // as bin/argus: oneDNN's OpenMP threads sleep between layers; one of them (the 2-core CI machine also runs the clients)
        pb.environment().put("OMP_NUM_THREADS", "1");
        pb.environment().put("OMP_WAIT_POLICY", "PASSIVE");
        pb.environment().keySet().removeIf(k -> k.startsWith("ARGUS_"));
        return new AppProcess(port, token, log, pb.start(), client);
    }

    record Response(int status, String body) {
        JsonObject json() { return new JsonObject(body); }

        JsonArray array() { return new JsonArray(body); }
    }

    Response get(String path) throws Exception {
        var req = web.get(path).timeout(10_000).bearerTokenAuthentication(token);
        HttpResponse<Buffer> r = req.send().toCompletionStage().toCompletableFuture().get(15, TimeUnit.SECONDS);
        return new Response(r.statusCode(), r.body() != null ? r.body().toString() : "");
    }

    boolean ready() {
        try {
            return get("/ready").status() == 200;
        } catch (Exception e) {
            return false;
        }
    }

    boolean alive() { return process.isAlive(); }

    long pid() { return process.pid(); }

    /** Resident memory (VmRSS) in MiB, -1 when the process is gone. */
    double rssMb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + process.pid() + "/status"))) {
                if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
            }
        } catch (IOException | RuntimeException e) {
            // gone
        }
        return -1;
    }

    /** Open file descriptors of the process (its sockets among them), -1 when unreadable. */
    int openFiles() {
        String[] fds = new java.io.File("/proc/" + process.pid() + "/fd").list();
        return fds != null ? fds.length : -1;
    }

    /** The last lines of the app's output, for failure messages. */
    String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return "app log (last 40 lines):\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "no app log (" + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
        web.close();
    }
}
