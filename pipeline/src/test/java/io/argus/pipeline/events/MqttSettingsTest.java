package io.argus.pipeline.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.config.ConfigException;
import io.argus.pipeline.config.ConfigNode;
import io.argus.pipeline.config.MqttSettings;
import io.argus.testkit.Budget;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The mqtt: section: defaults, environment overrides, and errors that name the key. */
@Budget(seconds = 5)
class MqttSettingsTest {
    @TempDir
    Path tmp;

    private MqttSettings read(JsonObject json, Map<String, String> env) {
        return MqttSettings.read(new ConfigNode("mqtt", json, env, new HashSet<>(), tmp));
    }

    private MqttSettings read(JsonObject json) { return read(json, Map.of()); }

    private void assertError(JsonObject json, String key, String reason) {
        ConfigException e = assertThrows(ConfigException.class, () -> read(json));
        assertEquals(key, e.key(), e.getMessage());
        assertTrue(e.getMessage().contains(reason), e.getMessage());
    }

    @Test
    void defaults() {
        MqttSettings s = read(new JsonObject());
        assertFalse(s.enabled());
        assertEquals(1883, s.port());
        assertEquals(1, s.qos());
        assertEquals(10_000, s.outbox());
        assertEquals("argus", s.topicPrefix());
        String clientId = read(new JsonObject().put("enabled", true)).clientId();
        assertTrue(clientId.startsWith("argus-") && clientId.length() > 6, "argus- and the host name: " + clientId);
        assertEquals(1000, s.reconnect().initialMs());
        assertEquals(30_000, s.reconnect().maxMs());
        assertEquals(8883, read(new JsonObject().put("tls", true)).port(), "TLS has its own default port");
    }

    @Test
    void topics() {
        MqttSettings s = read(new JsonObject().put("topicPrefix", "site/argus"));
        assertEquals("site/argus/door/events", s.eventsTopic("door"));
        assertEquals("site/argus/door/porch/person/count", s.countTopic("door", "porch", "person"));
        assertEquals("site/argus/door/porch/a_b_c_d/count", s.countTopic("door", "porch", "a/b+c#d"), "no level split, no wildcard");
        assertEquals("site/argus/available", s.availabilityTopic());
    }

    @Test
    void environmentOverrides() {
        MqttSettings s = read(new JsonObject().put("host", "broker"),
                Map.of("ARGUS_MQTT_ENABLED", "true", "ARGUS_MQTT_PORT", "1884", "ARGUS_MQTT_RECONNECT_MAX_MS", "5000"));
        assertTrue(s.enabled());
        assertEquals(1884, s.port());
        assertEquals(5000, s.reconnect().maxMs());
    }

    @Test
    void thePasswordStaysOutOfToString() throws Exception {
        MqttSettings s = read(new JsonObject().put("username", "argus").put("password", "hunter2"));
        assertEquals("hunter2", s.password());
        assertFalse(s.toString().contains("hunter2"), s.toString());
        Path file = Files.writeString(tmp.resolve("secret"), "x\n");
        assertEquals(file, read(new JsonObject().put("username", "u").put("passwordFile", "secret")).passwordFile(),
                "relative to the config file's directory");
    }

    @Test
    void badValuesNameTheKey() throws Exception {
        assertError(new JsonObject().put("qos", 2), "mqtt.qos", "expected an integer in 0..1, found 2");
        assertError(new JsonObject().put("port", "mqtt"), "mqtt.port", "expected an integer");
        assertError(new JsonObject().put("outbox", 0), "mqtt.outbox", "found 0");
        assertError(new JsonObject().put("topicPrefix", "argus/#"), "mqtt.topicPrefix", "wildcards");
        assertError(new JsonObject().put("topicPrefix", "/argus"), "mqtt.topicPrefix", "single '/'");
        assertError(new JsonObject().put("topicPrefix", "$SYS"), "mqtt.topicPrefix", "belong to the broker");
        assertError(new JsonObject().put("enabled", true).put("host", " "), "mqtt.host", "required");
        assertError(new JsonObject().put("password", "x"), "mqtt.username", "a password needs a user name");
        Files.writeString(tmp.resolve("secret"), "x");
        assertError(new JsonObject().put("username", "u").put("password", "x").put("passwordFile", "secret"),
                "mqtt.passwordFile", "not both");
        assertError(new JsonObject().put("username", "u").put("passwordFile", "missing"), "mqtt.passwordFile", "no such file");
        Files.writeString(tmp.resolve("ca.pem"), "x");
        assertError(new JsonObject().put("caFile", "ca.pem"), "mqtt.caFile", "tls: true");
        assertError(new JsonObject().put("reconnect", new JsonObject().put("initialMs", 500).put("maxMs", 100)),
                "mqtt.reconnect.maxMs", "must be >= initialMs");
        assertError(new JsonObject().put("outbx", 5), "mqtt.outbx", "unknown key");
    }
}
