package io.argus.pipeline.events;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The {@code argus_mqtt_*} Prometheus series of an {@link MqttOutputVerticle}, read from its {@link MqttStats} when
 * scraped. Remove the returned meters from the registry when the verticle is undeployed.
 */
public final class MqttMeters {
    private MqttMeters() {}

    public static List<Meter> register(MeterRegistry registry, MqttOutputVerticle mqtt) {
        return List.of(
                counter(registry, "argus.mqtt.published", "PUBLISH packets written, repeats after a reconnect included", mqtt, s -> s.published()),
                counter(registry, "argus.mqtt.confirmed", "Messages acknowledged by the broker (QoS 1) or written (QoS 0)", mqtt, s -> s.confirmed()),
                counter(registry, "argus.mqtt.dropped", "Messages dropped because the outbox was full", mqtt, s -> s.dropped()),
                counter(registry, "argus.mqtt.resent", "Messages published again after a lost connection", mqtt, s -> s.resent()),
                counter(registry, "argus.mqtt.rejected", "Events or counts that could not be published (malformed)", mqtt, s -> s.rejected()),
                counter(registry, "argus.mqtt.reconnects", "Connection attempts to the broker after the first", mqtt, s -> s.reconnects()),
                Gauge.builder("argus.mqtt.outbox", mqtt, v -> v.stats().outbox())
                        .description("Messages waiting for the broker or its acknowledgement").register(registry),
                Gauge.builder("argus.mqtt.up", mqtt, v -> v.stats().connected() ? 1 : 0)
                        .description("1 while connected to the MQTT broker").register(registry));
    }

    private static Meter counter(MeterRegistry registry, String name, String description, MqttOutputVerticle mqtt,
                                 ToDoubleFunction<MqttStats> value) {
        return FunctionCounter.builder(name, mqtt, v -> value.applyAsDouble(v.stats())).description(description)
                .register(registry);
    }
}
