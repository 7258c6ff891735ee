package io.argus.pipeline.events;

import io.argus.pipeline.config.MqttSettings;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;

/**
 * An Argus node that only publishes to MQTT, in a JVM of its own so a test can kill it (SIGKILL) as a crashed process
 * dies: its connection closes without DISCONNECT. Args: the broker's port, a directory. Prints {@link #CONNECTED} once
 * connected and one event acknowledged, then waits to be killed.
 */
public final class MqttChildNode {
    static final String CONNECTED = "CONNECTED";

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        JsonObject json = new JsonObject().put("enabled", true).put("host", "127.0.0.1").put("port", port)
                .put("clientId", "argus-child").put("keepAliveSeconds", 5);
        MqttSettings settings = MqttSettings.read(new io.argus.pipeline.config.ConfigNode("mqtt", json,
                java.util.Map.of(), new java.util.HashSet<>(), Path.of(args[1])));
        RunningMqttOutput argus = new RunningMqttOutput(settings);
        argus.event(Scene.numbered(1));
        argus.await(s -> s.connected() && s.confirmed() == 1, java.time.Duration.ofSeconds(30), "connected");
        System.out.println(CONNECTED);
        System.out.flush();
        Thread.currentThread().join();   // up until the test kills this process
    }
}
