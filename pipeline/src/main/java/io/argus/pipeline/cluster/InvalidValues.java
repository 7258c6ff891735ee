package io.argus.pipeline.cluster;

import io.argus.pipeline.config.Names;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.System.Logger.Level;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What this node found in the cluster's maps that it could not use: a value that does not open with the cluster's key,
 * does not parse, or does not validate, and keys that are not names. Each is ignored where it is read; here it is
 * counted ({@code argus_cluster_invalid_values_total{map=...}} in {@code /metrics}) and logged once per map and key
 * with the reason, never the value (it may hold a camera's credentials, or be whatever a stranger wrote). A survey
 * reads every value every round: a value is counted once however often it is read again, and again when it changes.
 * Thread-safe: the maps are read on several event loops.
 */
public final class InvalidValues {
    private static final System.Logger LOG = System.getLogger("argus.cluster");
    /** Bounds what is remembered per key: the keys come from whoever can write the maps. */
    static final int MAX_REMEMBERED = 4096;

    private final MeterRegistry registry;
    private final Map<String, Counter> counters = new HashMap<>();
    private final Map<String, Long> totals = new HashMap<>();
    /** map + key -> a fingerprint of the invalid value last counted there (its hash and length). */
    private final Map<String, Long> lastCounted = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) { return size() > MAX_REMEMBERED; }
    };
    private final Set<String> logged = new HashSet<>();
    private boolean loggedEnough;

    /** @param registry where the counter goes; null: counted here only (tests) */
    public InvalidValues(MeterRegistry registry, Iterable<String> maps) {
        this.registry = registry;
        for (String m : maps) counter(m); // every map's series from the start, at 0: an alert needs no series to appear
    }

    /** A value at {@code key} of {@code map} that is ignored, and why (in words, never the value). */
    public synchronized void value(String map, String key, String reason, Object stored) {
        long fingerprint = fingerprint(stored);
        Long before = lastCounted.put(map + "\u0000" + key, fingerprint);
        if (before != null && before == fingerprint) return; // the same value read again by a later survey
        count(map);
        log(map + "\u0000" + key, "cluster map {0}, key {1}: value ignored: {2}", map, Names.quoted(key), reason);
    }

    /** A key of {@code map} that is no name (and so names no camera, node or model): ignored. */
    public synchronized void key(String map, Object key, String what) {
        String shown = key instanceof String s ? Names.quoted(s) : "of type " + (key == null ? "null" : key.getClass().getSimpleName());
        long fingerprint = fingerprint(key);
        Long before = lastCounted.put(map + "\u0001" + fingerprint, fingerprint);
        if (before != null) return;
        count(map);
        // keyed by the map only: invalid keys are whatever a stranger chose, one log line per map is enough
        log(map + "\u0001", "cluster map {0}: key {1} ignored: not a {2} ({3}); further invalid keys of this map are only counted",
                map, shown, what, Names.expectation(Names.DERIVED_MAX));
    }

    /** Values and keys of {@code map} ignored so far. */
    public synchronized long total(String map) { return totals.getOrDefault(map, 0L); }

    private void count(String map) {
        totals.merge(map, 1L, Long::sum);
        Counter c = counter(map);
        if (c != null) c.increment();
    }

    private Counter counter(String map) {
        if (registry == null) return null;
        return counters.computeIfAbsent(map, m -> Counter.builder("argus.cluster.invalid.values")
                .description("Values and keys read from a cluster map and ignored: not sealed with this cluster's key, not"
                        + " parseable, or not valid (logged once per map and key)")
                .tag("map", m).register(registry));
    }

    private void log(String once, String format, Object... args) {
        if (logged.contains(once)) return;
        if (logged.size() >= MAX_REMEMBERED) {
            if (!loggedEnough) LOG.log(Level.WARNING, "cluster maps: " + MAX_REMEMBERED + " invalid values logged; further ones are only counted");
            loggedEnough = true;
            return;
        }
        logged.add(once);
        LOG.log(Level.WARNING, format, args);
    }

    private static long fingerprint(Object stored) {
        if (stored == null) return 0;
        long length = stored instanceof String s ? s.length() : -1;
        return (length << 32) ^ (stored.hashCode() & 0xffffffffL);
    }
}
