package io.argus.tools.cluster;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One Argus node of the cluster benchmark: {@code argus run --config <yaml>} as a separate JVM on loopback, started
 * with this JVM's java and classpath (so a benchmark from {@code bin/argus} or a release runs the same build), its
 * output appended to {@code <name>.log}. It can be killed (-9), stopped (SIGTERM) and started again with the same
 * ports and config, as an operator would restart a machine.
 */
final class NodeProcess implements AutoCloseable {
    final String name;
    final int httpPort;
    final int hazelcastPort;
    final Path config;
    final Path log;
    private final int threads;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    private Process process;
    private String id;

    NodeProcess(String name, int httpPort, int hazelcastPort, Path config, Path log, int threads) {
        this.name = name;
        this.httpPort = httpPort;
        this.hazelcastPort = hazelcastPort;
        this.config = config;
        this.log = log;
        this.threads = threads;
    }

    void start() throws IOException {
        String javaBin = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(javaBin, "-Xmx768m", "--enable-native-access=ALL-UNNAMED",
                "-Djava.awt.headless=true", "-Djava.util.logging.manager=io.argus.pipeline.cli.ShutdownLogging"));
        command.addAll(io.argus.pipeline.cluster.HazelcastJvmFlags.LIST);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.argus.pipeline.cli.ArgusCli", "run",
                "--config", config.toString()));
        Files.writeString(log, "---- start " + Instant.now() + "\n", StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        // several nodes on one machine: oneDNN threads per node as asked, sleeping between layers
        pb.environment().put("OMP_NUM_THREADS", Integer.toString(threads));
        pb.environment().put("OMP_WAIT_POLICY", "PASSIVE");
        pb.environment().keySet().removeIf(k -> k.startsWith("ARGUS_"));
        process = pb.start();
        id = null;
    }

    boolean alive() { return process != null && process.isAlive(); }

    /** The JVM's process id (its /proc entry), or -1 before the first start. */
    long pid() { return process != null ? process.pid() : -1; }

    /** kill -9: no lease released, connections reset by the kernel. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(15, TimeUnit.SECONDS);
    }

    /** SIGTERM: the node releases its leases, then leaves the cluster (RunCommand's shutdown hook). */
    void terminate() { process.destroy(); }

    boolean waitForExit(long seconds) throws InterruptedException { return process.waitFor(seconds, TimeUnit.SECONDS); }

    String get(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IOException(name + " " + path + ": HTTP " + r.statusCode() + " " + r.body());
        return r.body();
    }

    boolean ready() {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/ready"))
                    .timeout(Duration.ofSeconds(3)).GET().build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** This node's id in the cluster ({@code /api/nodes}, self); a restarted node has a new one. */
    String id() throws IOException, InterruptedException {
        if (id == null) {
            for (Object o : new JsonArray(get("/api/nodes"))) {
                JsonObject n = (JsonObject) o;
                if (n.getBoolean("self", false)) id = n.getString("id");
            }
        }
        return id;
    }

    /** The last lines of the node's output, for error messages. */
    String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log);
            return name + " (" + log + "), last " + lines + " lines:\n"
                    + String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return name + ": no log (" + e.getMessage() + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (alive()) {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) kill();
        }
        http.close();
    }
}
