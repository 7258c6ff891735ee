package io.argus.pipeline.camera;

import io.argus.pipeline.config.ArgusConfig.Reconnect;
import java.util.random.RandomGenerator;

/**
 * Reconnect delays: initial, initial x multiplier, ... capped at max, each spread uniformly by +-jitter so cameras
 * that dropped together do not reconnect together. {@link #reset()} after a connection that delivered frames.
 */
public final class Backoff {
    private final Reconnect policy;
    private final RandomGenerator random;
    private double base;

    public Backoff(Reconnect policy, RandomGenerator random) {
        this.policy = policy;
        this.random = random;
        this.base = policy.initialMs();
    }

    /** The next delay in ms; grows the base for the one after. */
    public long next() {
        double spread = policy.jitter() * base;
        double d = base + (spread > 0 ? random.nextDouble(-spread, spread) : 0);
        base = Math.min(policy.maxMs(), base * policy.multiplier());
        return Math.max(0, Math.round(d));
    }

    public void reset() { base = policy.initialMs(); }
}
