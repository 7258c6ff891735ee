package io.argus.pipeline.cluster;

import io.argus.pipeline.testing.TestMedia;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
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
 * One Argus node as a separate JVM process: {@code argus run --config <yaml>} with the test's classpath, its output in
 * {@code <name>.log}. By default on loopback (so its HTTP needs no token); optionally started through a command prefix
 * ({@code ip netns exec <ns>}) with its HTTP on another address, which then needs the token the test configured.
 */
final class ClusterNode implements AutoCloseable {
    final String name;
    final String httpHost;
    final int httpPort;
    final int hazelcastPort;
    final Path log;
    private final Process process;
    private final WebClient web;
    private final String token; // null: the node's HTTP is open (loopback)
    private String id;

    private ClusterNode(String name, String httpHost, int httpPort, int hazelcastPort, Path log, Process process, Vertx client,
                        String token) {
        this.name = name;
        this.httpHost = httpHost;
        this.httpPort = httpPort;
        this.token = token;
        this.hazelcastPort = hazelcastPort;
        this.log = log;
        this.process = process;
        this.web = WebClient.create(client, io.argus.pipeline.testing.TestHttp.options(httpHost, httpPort));
    }

    /** Starts a node with {@code config} (JSON, which is YAML) written to {@code dir/<name>.yaml}. */
    static ClusterNode start(String name, JsonObject config, int httpPort, int hazelcastPort, Path dir, Vertx client) throws IOException {
        return start(name, config, "127.0.0.1", httpPort, hazelcastPort, dir, client, List.of(), null);
    }

    /**
     * As above, the command run through {@code prefix} (e.g. {@code ip netns exec <ns>}: it execs java, so the process
     * is the JVM itself), its HTTP reached at {@code httpHost} with {@code token} (null: none).
     */
    static ClusterNode start(String name, JsonObject config, String httpHost, int httpPort, int hazelcastPort, Path dir, Vertx client,
                             List<String> prefix, String token) throws IOException {
        Path yaml = dir.resolve(name + ".yaml");
        Files.writeString(yaml, config.encodePrettily());
        Path log = dir.resolve(name + ".log");
        String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new java.util.ArrayList<>(prefix);
        command.addAll(List.of(java, "-Xmx768m", "-XX:TieredStopAtLevel=1", "--enable-native-access=ALL-UNNAMED",
                "-Djava.awt.headless=true"));
        // Hazelcast's own properties given to the test (-Dhazelcast.x=y) reach every node: for trying one out
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("hazelcast.")).sorted()
                .forEach(k -> command.add("-D" + k + "=" + System.getProperty(k)));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"),
                "io.argus.pipeline.cli.ArgusCli", "run", "--config", yaml.toString()));
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true).redirectOutput(log.toFile());
        // three nodes on a small machine: one oneDNN thread each, sleeping between layers
        pb.environment().put("OMP_NUM_THREADS", "1");
        pb.environment().put("OMP_WAIT_POLICY", "PASSIVE");
        pb.environment().keySet().removeIf(k -> k.startsWith("ARGUS_"));
        return new ClusterNode(name, httpHost, httpPort, hazelcastPort, log, pb.start(), client, token);
    }

    record Response(int status, String body) {
        JsonObject json() { return new JsonObject(body); }

        JsonArray array() { return new JsonArray(body); }
    }

    Response call(HttpMethod method, String path, String body) throws Exception {
        var req = web.request(method, path).timeout(5000);
        if (token != null) req.bearerTokenAuthentication(token);
        if (body != null) req.putHeader("Content-Type", "application/json"); // the API takes JSON bodies only as such
        var f = body != null ? req.sendBuffer(Buffer.buffer(body)) : req.send();
        HttpResponse<Buffer> r = f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        return new Response(r.statusCode(), r.body() != null ? r.body().toString() : "");
    }

    Response get(String path) throws Exception { return call(HttpMethod.GET, path, null); }

    /** A response's status, headers and body as bytes (a video file, a byte range of one). */
    record Raw(int status, io.vertx.core.MultiMap headers, Buffer body) {
        String header(String name) { return headers.get(name); }
    }

    /** A GET with {@code headers} (a {@code Range}), its body as the bytes it is. */
    Raw fetch(String path, java.util.Map<String, String> headers) throws Exception {
        var req = web.request(HttpMethod.GET, path).timeout(30_000);
        if (token != null) req.bearerTokenAuthentication(token);
        headers.forEach(req::putHeader);
        HttpResponse<Buffer> r = req.send().toCompletionStage().toCompletableFuture().get(40, TimeUnit.SECONDS);
        return new Raw(r.statusCode(), r.headers(), r.body() != null ? r.body() : Buffer.buffer());
    }

    /** A POST of raw bytes ({@code application/octet-stream}): weights to adopt. */
    Response upload(String path, byte[] body) throws Exception {
        var req = web.request(HttpMethod.POST, path).timeout(30_000).putHeader("content-type", "application/octet-stream");
        if (token != null) req.bearerTokenAuthentication(token);
        HttpResponse<Buffer> r = req.sendBuffer(Buffer.buffer(body)).toCompletionStage().toCompletableFuture().get(40, TimeUnit.SECONDS);
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

    /** This node's id in the cluster (from {@code /api/nodes}). */
    String id() throws Exception {
        if (id == null) {
            for (Object o : get("/api/nodes").array()) {
                JsonObject n = (JsonObject) o;
                if (n.getBoolean("self", false)) id = n.getString("id");
            }
        }
        return id;
    }

    /** kill -9. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** SIGSTOP: the process freezes with its connections open, as a machine that hangs; only heartbeats tell. */
    void freeze() throws Exception {
        Process p = new ProcessBuilder("kill", "-STOP", Long.toString(process.pid())).start();
        if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IllegalStateException("kill -STOP failed");
    }

    /**
     * SIGQUIT: the JVM prints its threads and the locks they hold or wait on into the node's log, and runs on (no
     * attach needed, which a loaded machine's jcmd did not always manage).
     */
    void threadDump() throws Exception {
        Process p = new ProcessBuilder("kill", "-QUIT", Long.toString(process.pid())).start();
        if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IllegalStateException("kill -QUIT failed");
    }

    /** SIGTERM: the node releases its leases and leaves (RunCommand's shutdown hook). */
    void terminate() { process.destroy(); }

    boolean waitFor(long seconds) throws InterruptedException { return process.waitFor(seconds, TimeUnit.SECONDS); }

    int exitCode() { return process.exitValue(); }

    String output() throws IOException { return Files.readString(log); }

    /** The last lines of the node's output, for failure messages. */
    String tail() {
        try {
            return name + " log (last 40 lines):\n" + last(Files.readAllLines(log), 40);
        } catch (IOException e) {
            return name + ": no log (" + e + ")";
        }
    }

    /**
     * The node's own decisions and Hazelcast's membership changes (the argus.* loggers, members suspected, removed or
     * joined), the last {@code max} of them: for a failure where the last lines are only health reports.
     */
    String decisions(int max) {
        try {
            List<String> lines = Files.readAllLines(log).stream().filter(l -> l.contains(" argus.") || l.contains("Suspecting")
                    || l.contains("Removing Member") || l.contains("Members {")).toList();
            return name + " log, its decisions and membership (last " + max + "):\n" + last(lines, max);
        } catch (IOException e) {
            return name + ": no log (" + e + ")";
        }
    }

    private static String last(List<String> lines, int max) {
        return String.join("\n", lines.subList(Math.max(0, lines.size() - max), lines.size()));
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(15, TimeUnit.SECONDS)) kill();
        }
        web.close();
    }

    static int freePort() throws IOException { return TestMedia.freePort(); }
}
