package io.argus.pipeline.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import io.argus.testkit.Tiers;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Credentials and TLS against a real Mosquitto: a wrong password is said clearly once and retried with backoff, the
 * right one (from a file) works; a TLS listener with a certificate of the test's own CA is trusted through caFile,
 * and not without it.
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 5)
class MqttSecurityTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    /** Held here: java.util.logging keeps loggers weakly, a collected one would lose the handler. */
    private static final Logger MQTT_LOG = Logger.getLogger("argus.events.mqtt");

    @TempDir
    Path tmp;
    final List<LogRecord> logs = new CopyOnWriteArrayList<>();
    final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) { logs.add(r); }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeEach
    void captureLogs() { MQTT_LOG.addHandler(capture); }

    @AfterEach
    void releaseLogs() { MQTT_LOG.removeHandler(capture); }

    @Test
    void wrongPasswordIsReportedAndRetriedRightPasswordWorks() throws Exception {
        Path passwords = tmp.resolve("passwords");
        run("mosquitto_passwd", "-c", "-b", passwords.toString(), "argus", "s3cret");
        run("mosquitto_passwd", "-b", passwords.toString(), "watcher", "w4tch");
        Path dir = tmp.resolve("broker");
        try (Mosquitto broker = Mosquitto.started(dir, "allow_anonymous false", "password_file " + passwords);
             MqttSubscriber sub = MqttSubscriber.persistent(broker, "auth-sub", "argus/#", "-u", "watcher", "-P", "w4tch")) {
            JsonObject wrong = new JsonObject().put("username", "argus").put("password", "guess")
                    .put("reconnect", new JsonObject().put("initialMs", 100).put("maxMs", 400));
            try (RunningMqttOutput argus = new RunningMqttOutput(RunningMqttOutput.settings(broker, tmp, wrong))) {
                argus.event(Scene.numbered(1));
                MqttStats s = argus.await(x -> x.reconnects() >= 3, WAIT, "retried");
                assertTrue(!s.connected() && s.outbox() == 1, "nothing went out: " + s);
            }
            List<String> warnings = messages(Level.WARNING, "cannot connect");
            assertEquals(1, warnings.size(), "the same reason once at WARNING, the retries quieter: " + warnings);
            assertTrue(warnings.getFirst().contains("refused: not authorized")
                    || warnings.getFirst().contains("refused: bad user name or password"), warnings.getFirst());
            assertTrue(warnings.getFirst().contains("retrying in"), warnings.getFirst());

            Path secret = Files.writeString(tmp.resolve("mqtt.secret"), "s3cret\n");
            JsonObject right = new JsonObject().put("username", "argus").put("passwordFile", secret.toString());
            try (RunningMqttOutput argus = new RunningMqttOutput(RunningMqttOutput.settings(broker, tmp, right))) {
                argus.event(Scene.numbered(2));
                argus.await(x -> x.connected() && x.confirmed() == 1, WAIT, "connected and acknowledged");
                assertTrue(sub.waitFor(m -> m.topic().equals("argus/door/events"), WAIT), sub.received.toString());
            }
        }
    }

    @Test
    void tlsWithTheBrokersCaFile() throws Exception {
        Path pki = Files.createDirectories(tmp.resolve("pki"));
        Path ca = pki.resolve("ca.pem");
        Path caKey = pki.resolve("ca.key");
        Path cert = pki.resolve("server.pem");
        Path key = pki.resolve("server.key");
        Path csr = pki.resolve("server.csr");
        Path san = Files.writeString(pki.resolve("san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
        run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", caKey.toString(), "-out", ca.toString(), "-days", "2", "-subj", "/CN=argus-test-ca");
        run("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", key.toString(), "-out", csr.toString(), "-subj", "/CN=localhost");
        run("openssl", "x509", "-req", "-in", csr.toString(), "-CA", ca.toString(), "-CAkey", caKey.toString(),
                "-CAcreateserial", "-out", cert.toString(), "-days", "2", "-extfile", san.toString());
        int tlsPort = Mosquitto.freePort();
        Path dir = tmp.resolve("broker");
        try (Mosquitto broker = Mosquitto.started(dir, "listener " + tlsPort + " 127.0.0.1", "cafile " + ca,
                "certfile " + cert, "keyfile " + key);
             MqttSubscriber sub = MqttSubscriber.persistent(broker, "tls-sub", "argus/#")) {
            JsonObject untrusted = new JsonObject().put("tls", true).put("port", tlsPort);
            try (RunningMqttOutput argus = new RunningMqttOutput(RunningMqttOutput.settings(broker, tmp, untrusted))) {
                argus.await(x -> x.reconnects() >= 1, WAIT, "retried");
                assertTrue(!argus.stats().connected());
            }
            List<String> refused = messages(Level.WARNING, "cannot connect");
            assertTrue(refused.size() == 1 && refused.getFirst().contains("TLS failed"), "without caFile: " + refused);

            JsonObject trusted = new JsonObject().put("tls", true).put("port", tlsPort).put("caFile", ca.toString());
            try (RunningMqttOutput argus = new RunningMqttOutput(RunningMqttOutput.settings(broker, tmp, trusted))) {
                argus.event(Scene.numbered(3));
                argus.await(x -> x.connected() && x.confirmed() == 1, WAIT, "connected over TLS and acknowledged");
                assertTrue(sub.waitFor(m -> m.topic().equals("argus/door/events")
                        && new JsonObject(m.payload()).getInteger("trackId") == 3, WAIT), sub.received.toString());
            }
            assertTrue(broker.logText().contains("on port " + tlsPort), "Argus used the TLS listener: " + broker.logText());
        }
    }

    private List<String> messages(Level level, String containing) {
        List<String> out = new ArrayList<>();
        for (LogRecord r : logs) if (r.getLevel() == level && r.getMessage().contains(containing)) out.add(r.getMessage());
        return out;
    }

    private static void run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) throw new IOException(String.join(" ", cmd) + ": " + out);
    }
}
