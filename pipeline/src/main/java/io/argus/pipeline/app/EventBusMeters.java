package io.argus.pipeline.app;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;

/**
 * Of Vert.x's event-bus series, only the two that show a backlog or a leak: {@code vertx_eventbus_pending{address,
 * side}} (messages delivered to a consumer's queue and not yet handled: a consumer that falls behind grows it) and
 * {@code vertx_eventbus_handlers{address}} (registered consumers: a subscription never unregistered grows it). The
 * soak (scripts/soak.sh, docs/reliability.md) needs them to say the queues stay flat.
 *
 * <p>The event-bus domain used to be off entirely: its per-message counters (sent, received, delivered, bytes) at 30
 * frames/s per camera say nothing an operator acts on. Those stay denied here, so /metrics shows no new noise; a denied
 * meter is a no-op, so what remains per message is Micrometer's lookup of the (cached) no-op meter.
 */
public final class EventBusMeters {
    private EventBusMeters() {}

    /** To apply before Vert.x registers its meters (when the registry is made). */
    public static void keepBacklogOnly(MeterRegistry registry) {
        registry.config().meterFilter(MeterFilter.deny(id -> {
            String n = id.getName();
            return n.startsWith("vertx.eventbus.") && !n.equals("vertx.eventbus.pending")
                    && !n.equals("vertx.eventbus.handlers");
        }));
    }
}
