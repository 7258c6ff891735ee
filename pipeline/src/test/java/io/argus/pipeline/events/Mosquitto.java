package io.argus.pipeline.events;

import io.argus.testkit.Waits;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Mosquitto broker for a test (Debian's /usr/sbin/mosquitto), on a free loopback port, with its config, log and
 * (when asked) persistence in the test's directory. {@link #stop()} and {@link #start()} again keep port and config,
 * as an operator restarting the broker would. Only the process this object started is ever signalled.
 */
public final class Mosquitto implements AutoCloseable {
    static final Path BINARY = Path.of("/usr/sbin/mosquitto");

    private final Path dir;
    private final int port;
    private final Path config;
    private Process process;

    /**
     * A broker on a free port with {@code lines} added to its config (after the plain listener: a second
     * {@code listener} line and the options after it make another listener).
     */
    Mosquitto(Path dir, List<String> lines) throws IOException {
        this.dir = Files.createDirectories(dir);
        this.port = freePort();
        List<String> conf = new ArrayList<>(List.of(
                "listener " + port + " 127.0.0.1",
                // As root, mosquitto would switch to the user "mosquitto", who cannot read the test's files.
                "user " + System.getProperty("user.name"),
                "log_type all",
                "log_timestamp_format %H:%M:%S"));
        if (lines.stream().noneMatch(l -> l.startsWith("allow_anonymous"))) conf.add("allow_anonymous true");
        if (lines.stream().noneMatch(l -> l.startsWith("persistence"))) conf.add("persistence false");
        conf.addAll(lines);
        this.config = dir.resolve("mosquitto.conf");
        Files.write(config, conf);
    }

    public static Mosquitto started(Path dir, String... lines) throws IOException, InterruptedException {
        Mosquitto m = new Mosquitto(dir, List.of(lines));
        m.start();
        return m;
    }

    public int port() { return port; }

    Path log() { return dir.resolve("mosquitto.log"); }

    /** Starts the broker and waits until it accepts connections. */
    void start() throws IOException, InterruptedException {
        if (process != null && process.isAlive()) throw new IllegalStateException("already running");
        process = new ProcessBuilder(BINARY.toString(), "-c", config.toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()))
                .start();
        boolean listening = Waits.until(() -> {
            if (!process.isAlive()) return true;   // judged below
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return true;
            }
        }, 10_000, 50);
        if (!process.isAlive()) throw new IOException("mosquitto exited with " + process.exitValue() + ": " + logText());
        if (!listening) throw new IOException("mosquitto did not listen on " + port + " within 10 s: " + logText());
    }

    /** Stops the broker as an operator does (SIGTERM: it saves its persistence file, if any, and closes every connection). */
    void stop() throws InterruptedException {
        if (process == null || !process.isAlive()) return;
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    String logText() {
        try {
            return Files.exists(log()) ? Files.readString(log()) : "(no log)";
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException { stop(); }

    static int freePort() throws IOException { return io.argus.pipeline.testing.TestMedia.freePort(); }
}
