package io.argus.pipeline.events;

import io.argus.pipeline.config.ConfigNode;
import io.argus.pipeline.config.MqttSettings;
import io.argus.testkit.Waits;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * An {@link MqttOutputVerticle} deployed in a Vert.x of its own, fed as the events verticle feeds it: JSON on the
 * local event-bus addresses.
 */
final class RunningMqttOutput implements AutoCloseable {
    private static final AtomicInteger CLIENTS = new AtomicInteger();

    final Vertx vertx = Vertx.vertx();
    final MqttOutputVerticle verticle;
    private String deployment;

    RunningMqttOutput(MqttSettings settings) throws Exception {
        verticle = new MqttOutputVerticle(settings);
        deployment = await(vertx.deployVerticle(verticle));
    }

    /**
     * The {@code mqtt:} section for {@code broker}, read as the config file's would be: enabled, loopback, a client id
     * of its own, short reconnect delays; {@code overrides} on top.
     */
    static MqttSettings settings(Mosquitto broker, Path dir, JsonObject overrides) {
        JsonObject json = new JsonObject().put("enabled", true).put("host", "127.0.0.1").put("port", broker.port())
                .put("clientId", "argus-test-" + CLIENTS.incrementAndGet())
                .put("reconnect", new JsonObject().put("initialMs", 100).put("maxMs", 1000))
                .mergeIn(overrides, true);
        return MqttSettings.read(new ConfigNode("mqtt", json, Map.of(), new HashSet<>(), dir));
    }

    void event(Object e) { vertx.eventBus().send(MqttOutputVerticle.EVENTS_ADDRESS, e); }

    void count(JsonObject c) { vertx.eventBus().send(MqttOutputVerticle.COUNTS_ADDRESS, c); }

    MqttStats stats() { return verticle.stats(); }

    /** Waits until the stats satisfy {@code p}; fails naming {@code what}. */
    MqttStats await(Predicate<MqttStats> p, Duration timeout, String what) throws Exception {
        MqttStats[] s = {null};
        Waits.waitFor(() -> p.test(s[0] = stats()), timeout.toMillis(), 20, () -> what + ": " + s[0]);
        return s[0];
    }

    /** Stops the verticle gracefully (flush, "offline", DISCONNECT). */
    void undeploy() throws Exception {
        if (deployment == null) return;
        await(vertx.undeploy(deployment));
        deployment = null;
    }

    @Override
    public void close() throws Exception {
        try {
            undeploy();
        } finally {
            await(vertx.close());
        }
    }

    static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
}
