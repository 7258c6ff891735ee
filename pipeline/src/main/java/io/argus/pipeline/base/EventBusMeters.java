package io.argus.pipeline.base;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Of Vert.x's event-bus series, only the two that show a backlog or a leak: {@code vertx_eventbus_pending{address,
 * side}} (messages delivered to a consumer's queue and not yet handled: a consumer that falls behind grows it) and
 * {@code vertx_eventbus_handlers{address}} (registered consumers: a subscription never unregistered grows it). The
 * soak (scripts/soak.sh, docs/reliability.md) needs them to say the queues stay flat.
 *
 * <p>The event-bus domain used to be off entirely: its per-message counters (sent, received, delivered, bytes) at 30
 * frames/s per camera say nothing an operator acts on. Those stay denied here, so /metrics shows no new noise; a denied
 * meter is a no-op, so what remains per message is Micrometer's lookup of the (cached) no-op meter.
 *
 * <p>Vert.x never removes an address's series, so every address that ever had a consumer would stay in /metrics:
 * a removed camera's, and any a client could make consumers for. {@link #forgetUnheard} removes those of addresses
 * with no consumer left (a consumer registered there later brings them back).
 */
public final class EventBusMeters {
    /**
     * Micrometer's registry logger, held so that its filter stays (java.util.logging keeps loggers weakly); slf4j
     * passes Micrometer's records to it under this name.
     */
    private static final java.util.logging.Logger MICROMETER =
            java.util.logging.Logger.getLogger("io.micrometer.core.instrument.MeterRegistry");

    private EventBusMeters() {}

    /**
     * Drops Micrometer's "This Gauge has been already registered" warning for Vert.x's event-bus gauges. Vert.x
     * registers an address's {@code handlers} and {@code pending} gauges again for every consumer of the address and
     * keeps counting in the gauge registered first (the registration it asks for is ignored, by design), so a second
     * consumer of one address, which Argus has (camera events go to several verticles), warned on every start of
     * something no one can act on. Any other double registration still warns.
     */
    public static void quietExpectedDoubleRegistration() {
        MICROMETER.setFilter(r -> {
            String m = r.getMessage();
            return m == null || !(m.startsWith("This Gauge has been already registered")
                    && m.contains("MeterId{name='vertx.eventbus."));
        });
    }

    /** To apply before Vert.x registers its meters (when the registry is made). */
    public static void keepBacklogOnly(MeterRegistry registry) {
        quietExpectedDoubleRegistration();
        registry.config().meterFilter(MeterFilter.deny(id -> {
            String n = id.getName();
            return n.startsWith("vertx.eventbus.") && !n.equals("vertx.eventbus.pending")
                    && !n.equals("vertx.eventbus.handlers");
        }));
    }

    /**
     * Removes the {@code handlers} and {@code pending} series of every address whose consumers are all gone (handlers 0,
     * nothing pending). Vert.x keeps counting in the objects behind them and registers them again with the next
     * consumer, so the numbers stay right.
     */
    public static void forgetUnheard(MeterRegistry registry) {
        Set<String> unheard = new HashSet<>();
        for (Meter m : registry.find("vertx.eventbus.handlers").meters()) {
            if (m instanceof Gauge g && g.value() == 0 && m.getId().getTag("address") != null) unheard.add(m.getId().getTag("address"));
        }
        if (unheard.isEmpty()) return;
        List<Meter> pending = List.copyOf(registry.find("vertx.eventbus.pending").meters());
        for (Meter m : pending) {
            if (unheard.contains(m.getId().getTag("address")) && m instanceof Gauge g && g.value() != 0) {
                unheard.remove(m.getId().getTag("address")); // still draining: look again next time
            }
        }
        for (Meter m : List.copyOf(registry.find("vertx.eventbus.handlers").meters())) {
            if (unheard.contains(m.getId().getTag("address"))) registry.remove(m);
        }
        for (Meter m : pending) {
            if (unheard.contains(m.getId().getTag("address"))) registry.remove(m);
        }
    }
}
