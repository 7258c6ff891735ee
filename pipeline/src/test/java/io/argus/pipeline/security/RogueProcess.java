package io.argus.pipeline.security;

import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** {@link RogueMember} as a separate JVM (the test's classpath), driven one command at a time; its log in a file. */
final class RogueProcess implements AutoCloseable {
    private final Process process;
    private final Writer in;
    private final LinkedBlockingQueue<String> answers = new LinkedBlockingQueue<>();
    final Path log;

    private RogueProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) answers.add(line);
            } catch (IOException ignored) {
                // the process ended
            }
        }, "rogue-answers");
        reader.setDaemon(true);
        reader.start();
    }

    static RogueProcess start(Path log) throws IOException {
        Files.createDirectories(log.getParent());
        String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        ProcessBuilder pb = new ProcessBuilder(List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true",
                "-cp", System.getProperty("java.class.path"), RogueMember.class.getName()))
                .redirectError(log.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("ARGUS_"));
        return new RogueProcess(pb.start(), log);
    }

    /** Sends {@code command} and waits for its answer. */
    synchronized JsonObject send(JsonObject command, long timeoutMs) throws Exception {
        if (answers.isEmpty() && !process.isAlive()) throw new IllegalStateException("the rogue process ended: " + tail());
        awaitReady();
        in.write(command.encode() + "\n");
        in.flush();
        String line = answers.poll(timeoutMs, TimeUnit.MILLISECONDS);
        if (line == null) throw new AssertionError("the rogue did not answer " + command.getString("op") + " within " + timeoutMs + " ms; " + tail());
        return new JsonObject(line);
    }

    private boolean ready;

    private void awaitReady() throws Exception {
        if (ready) return;
        String line = answers.poll(60, TimeUnit.SECONDS);
        if (line == null || !line.contains("ready")) throw new AssertionError("the rogue did not start: " + line + "; " + tail());
        ready = true;
    }

    String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return "rogue log (last 20 lines):\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "no rogue log (" + e + ")";
        }
    }

    @Override
    public void close() throws Exception {
        try {
            if (process.isAlive()) send(new JsonObject().put("op", "quit"), 10_000);
        } catch (Exception | AssertionError ignored) {
            // stopped below
        }
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
