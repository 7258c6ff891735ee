package io.argus.pipeline.base;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import java.util.Set;

/**
 * Label values that a client chooses are mapped into a bounded set before a series is made of them, or every new value
 * would be a new series for as long as the process runs. Vert.x labels its HTTP server series with the request's
 * method, and a client may send any token there ({@code MADEUP1 / HTTP/1.1}): methods other than the standard ones are
 * all {@code other}. (Paths are not labels; event-bus addresses are bounded where consumers are made: the SockJS
 * bridge registers only cameras being followed, and {@link EventBusMeters#forgetUnheard} drops the unheard ones.)
 */
public final class ClientChosenLabels {
    static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT");

    private ClientChosenLabels() {}

    /** To apply before Vert.x registers its meters (when the registry is made). */
    public static void bound(MeterRegistry registry) {
        registry.config().meterFilter(MeterFilter.replaceTagValues("method", m -> METHODS.contains(m) ? m : "other"));
    }
}
