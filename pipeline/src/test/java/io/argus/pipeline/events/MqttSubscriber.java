package io.argus.pipeline.events;

import io.argus.testkit.Waits;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A real subscriber: {@code mosquitto_sub -v} on {@code argus/#} at QoS 1, by default with a persistent session
 * ({@code -c}: the broker keeps its subscription and queues QoS 1 messages while it is away; libmosquitto reconnects
 * by itself when the broker comes back). Every line it prints is one message: the topic, a tab, the payload.
 */
public final class MqttSubscriber implements AutoCloseable {
    /** One received message. */
    public record Received(String topic, String payload) {}

    /** Topic, tab, payload: topics may hold spaces. */
    private static final String FORMAT = "%t\\t%p";

    final List<Received> received = new CopyOnWriteArrayList<>();
    private final Process process;

    private MqttSubscriber(List<String> command) throws IOException {
        process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        Thread.ofPlatform().daemon().name("mosquitto_sub").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) received.add(parse(line));
            } catch (IOException e) {
                // the process ended
            }
        });
    }

    /**
     * A persistent-session subscriber {@code id} on {@code topic} (QoS 1, ending in #), subscribed when this returns;
     * {@code options} for both mosquitto_sub and mosquitto_pub (credentials: -u, -P).
     */
    public static MqttSubscriber persistent(Mosquitto broker, String id, String topic, String... options) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("mosquitto_sub", "-h", "127.0.0.1", "-p", String.valueOf(broker.port()),
                "-t", topic, "-F", FORMAT, "-q", "1", "-i", id, "-c"));
        cmd.addAll(List.of(options));
        MqttSubscriber s = new MqttSubscriber(cmd);
        s.ready(broker, topic, options);
        return s;
    }

    /** The messages retained on {@code topic} now (a subscriber that connects after they were published). */
    public static List<Received> retained(Mosquitto broker, String topic) throws Exception {
        Process p = new ProcessBuilder("mosquitto_sub", "-h", "127.0.0.1", "-p", String.valueOf(broker.port()), "-t", topic,
                "-F", FORMAT, "--retained-only", "-W", "1").redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(10, TimeUnit.SECONDS);
        List<Received> r = new ArrayList<>();
        for (String line : out.split("\n")) if (!line.isEmpty()) r.add(parse(line));
        return r;
    }

    /**
     * Waits until the subscription is in place: a probe published with mosquitto_pub comes back (mosquitto_sub says
     * nothing when its SUBACK arrives). The probe is removed from {@link #received}.
     */
    private void ready(Mosquitto broker, String topic, String... options) throws Exception {
        if (!topic.endsWith("#")) throw new IllegalArgumentException("a filter ending in # is needed for the probe: " + topic);
        String probes = topic.substring(0, topic.length() - 1) + "_probe/";
        String probe = probes + System.nanoTime();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) throw new IOException("mosquitto_sub exited with " + process.exitValue() + ": " + received);
            List<String> pub = new ArrayList<>(List.of("mosquitto_pub", "-h", "127.0.0.1", "-p", String.valueOf(broker.port()),
                    "-t", probe, "-m", "x"));
            pub.addAll(List.of(options));
            new ProcessBuilder(pub).redirectErrorStream(true).start().waitFor(5, TimeUnit.SECONDS);
            if (waitFor(m -> m.topic().equals(probe), Duration.ofMillis(300))) {
                received.removeIf(m -> m.topic().startsWith(probes));
                return;
            }
        }
        throw new IOException("mosquitto_sub did not subscribe within 10 s");
    }

    private static Received parse(String line) {
        int tab = line.indexOf('\t');
        return tab < 0 ? new Received(line, "") : new Received(line.substring(0, tab), line.substring(tab + 1));
    }

    /** Waits until a received message matches; false on timeout. */
    public boolean waitFor(Predicate<Received> p, Duration timeout) throws InterruptedException {
        return Waits.until(() -> received.stream().anyMatch(p), timeout.toMillis(), 20);
    }

    /** Waits until {@code n} received messages match; false on timeout. */
    boolean waitForCount(Predicate<Received> p, int n, Duration timeout) throws InterruptedException {
        return Waits.until(() -> received.stream().filter(p).count() >= n, timeout.toMillis(), 20);
    }

    List<Received> on(String topic) { return received.stream().filter(m -> m.topic().equals(topic)).toList(); }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }
}
