package io.argus.pipeline.cluster;

import io.argus.pipeline.config.ClusterConfig;
import io.vertx.core.eventbus.EventBusOptions;

/**
 * The clustered event bus's options: host, port, the public host, and mutual TLS, always: with the operator's
 * certificates when {@code cluster.tls} is set, else with the identity derived from the secret
 * ({@link DerivedIdentity}).
 */
public final class ClusterEventBus {
    private ClusterEventBus() {}

    public static void configure(EventBusOptions options, ClusterConfig c, ClusterKeys keys) {
        options.setHost(c.host()).setPort(c.eventBusPort());
        if (c.publicHost() != null) options.setClusterPublicHost(c.publicHost());
        if (c.tls() != null) c.tls().applyTo(options);
        else keys.identity().applyTo(options);
    }
}
