package io.argus.pipeline.cluster;

import io.argus.pipeline.config.Names;
import io.vertx.core.Future;
import io.vertx.core.shareddata.AsyncMap;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * One of the cluster's maps as Argus uses it: every value sealed before it is put ({@link Sealer}: AES-GCM, bound to
 * the map and the key) and opened, parsed and validated after it is read. A value that fails any of these is ignored
 * as if absent, counted and logged once ({@link InvalidValues}); so is a key that is not a name. Nothing a stranger
 * writes into the map can then throw out of a survey, a listing or an HTTP answer, nor be taken for a node's word.
 *
 * <p>The plain {@link AsyncMap} view answers valid values only. Code that must act on what is actually stored (a
 * lease holder rewriting a broken lease; a claim of a camera whose lease is garbage) reads {@link Stored} values and
 * compares-and-sets against them ({@link #replace(String, Stored, Object)}).
 *
 * <p>Compare-and-set of plain values ({@link #replaceIfPresent(String, Object, Object)}): sealing draws a fresh nonce,
 * so equal plain values have different sealed forms; the map compares the sealed form last read or written at that
 * key when its plain value is the expected one, and reads the key again only when that fails.
 */
public final class SealedMap<V> implements AsyncMap<String, V> {
    private static final System.Logger LOG = System.getLogger("argus.cluster");
    /** Larger stored values are not opened: no node writes anything near this, and opening costs every survey. */
    static final int MAX_SEALED_CHARS = 256 * 1024;
    /** Sealed forms remembered for compare-and-set, per map instance (bounded: keys come from the cluster). */
    private static final int REMEMBERED = 4096;

    /** How a map's values are read and written, and what makes one valid. */
    public interface Format<V> {
        /** What the keys are, for messages: "camera id", "node id", "model id". */
        String keyKind();

        /** The value of {@code plain} at {@code key}; throws (any RuntimeException) with the reason when invalid. */
        V read(String key, String plain);

        /** The plain text that is sealed and stored for {@code value}. */
        String write(V value);
    }

    /**
     * What is stored at a key: the sealed form exactly as stored (for compare-and-set), and the value, or why there is
     * no valid one ({@code problem}).
     */
    public record Stored<V>(String key, Object sealed, V value, String problem) {
        public boolean valid() { return problem == null; }
    }

    private final String name;
    private final AsyncMap<Object, Object> raw;
    private final Sealer sealer;
    private final Format<V> format;
    private final InvalidValues invalid;
    private final Map<String, Stored<V>> lastSeen = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Stored<V>> eldest) { return size() > REMEMBERED; }
    };
    private boolean warnedWhole;

    SealedMap(String name, AsyncMap<Object, Object> raw, Sealer sealer, Format<V> format, InvalidValues invalid) {
        this.name = name;
        this.raw = raw;
        this.sealer = sealer;
        this.format = format;
        this.invalid = invalid;
    }

    public String name() { return name; }

    // ---- what is stored -------------------------------------------------------------------------------------------

    /** What is stored at {@code key}, valid or not; null when nothing is. */
    public Future<Stored<V>> read(String key) {
        return raw.get(key).map(stored -> stored == null ? forget(key) : open(key, stored));
    }

    /**
     * Everything stored whose key is a name: valid values and invalid ones (each with its problem). Should the map not
     * be readable whole (a stranger's value of a class no node knows fails the whole read), it is read key by key.
     */
    public Future<Map<String, Stored<V>>> readAll() {
        return raw.entries().map(this::openAll).recover(e -> {
            synchronized (this) {
                if (!warnedWhole) LOG.log(Level.WARNING, "cluster map {0} cannot be read whole ({1}): reading it key by key", name, e.getMessage());
                warnedWhole = true;
            }
            return raw.keys().compose(keys -> {
                List<Future<Void>> reads = new ArrayList<>();
                Map<String, Stored<V>> out = new TreeMap<>();
                for (Object k : keys) {
                    if (!validKey(k)) continue;
                    String key = (String) k;
                    reads.add(raw.get(key).map(stored -> {
                        if (stored != null) synchronized (out) { out.put(key, open(key, stored)); }
                        return (Void) null;
                    }).recover(x -> {
                        synchronized (out) { out.put(key, rejected(key, null, "cannot be read: " + x.getClass().getSimpleName())); }
                        return Future.succeededFuture();
                    }));
                }
                return Future.join(reads).map(v -> out);
            });
        });
    }

    /**
     * Replaces exactly what was read ({@code expected}, valid or not) by {@code next}; false when the stored value
     * changed meanwhile (or was removed).
     */
    public Future<Boolean> replace(String key, Stored<V> expected, V next) {
        String sealed = seal(key, next);
        return raw.replaceIfPresent(key, expected.sealed(), sealed).map(ok -> {
            if (ok) remember(key, sealed, next);
            return ok;
        });
    }

    /** Removes exactly what was read ({@code expected}, valid or not); false when it changed meanwhile. */
    public Future<Boolean> remove(String key, Stored<V> expected) {
        return raw.removeIfPresent(key, expected.sealed()).map(ok -> {
            if (ok) forget(key);
            return ok;
        });
    }

    /** Puts {@code value} unless something is stored at {@code key}; completes with what is stored (null: put). */
    public Future<Stored<V>> putIfAbsentStored(String key, V value) {
        String sealed = seal(key, value);
        return raw.putIfAbsent(key, sealed).map(previous -> {
            if (previous == null) {
                remember(key, sealed, value);
                return null;
            }
            return open(key, previous);
        });
    }

    // ---- AsyncMap: valid values only ------------------------------------------------------------------------------

    @Override
    public Future<V> get(String key) { return read(key).map(SealedMap::validValue); }

    @Override
    public Future<Void> put(String key, V value) {
        String sealed = seal(key, value);
        return raw.put(key, sealed).onSuccess(v -> remember(key, sealed, value));
    }

    @Override
    public Future<Void> put(String key, V value, long ttl) {
        String sealed = seal(key, value);
        return raw.put(key, sealed, ttl).onSuccess(v -> remember(key, sealed, value));
    }

    /** As {@link AsyncMap#putIfAbsent}; an invalid value stored at the key fails the future (nothing was put). */
    @Override
    public Future<V> putIfAbsent(String key, V value) {
        return putIfAbsentStored(key, value).compose(this::previousValue);
    }

    @Override
    public Future<V> putIfAbsent(String key, V value, long ttl) {
        String sealed = seal(key, value);
        return raw.putIfAbsent(key, sealed, ttl).compose(previous -> {
            if (previous == null) {
                remember(key, sealed, value);
                return Future.succeededFuture();
            }
            return previousValue(open(key, previous));
        });
    }

    @Override
    public Future<V> remove(String key) {
        return raw.remove(key).map(previous -> {
            forget(key);
            return previous == null ? null : validValue(open(key, previous));
        });
    }

    @Override
    public Future<Boolean> removeIfPresent(String key, V value) {
        return read(key).compose(s -> s != null && s.valid() && Objects.equals(s.value(), value)
                ? remove(key, s) : Future.succeededFuture(false));
    }

    @Override
    public Future<V> replace(String key, V value) {
        String sealed = seal(key, value);
        return raw.replace(key, sealed).map(previous -> {
            if (previous != null) remember(key, sealed, value);
            return previous == null ? null : validValue(open(key, previous));
        });
    }

    /**
     * Compare-and-set on plain values: replaces the value at {@code key} by {@code next} when it is (validly) {@code
     * expected}. Atomic: the final compare-and-set is on the sealed form that was found to hold {@code expected}.
     */
    @Override
    public Future<Boolean> replaceIfPresent(String key, V expected, V next) {
        Stored<V> known;
        synchronized (this) {
            known = lastSeen.get(key);
        }
        Future<Boolean> fast = known != null && Objects.equals(known.value(), expected)
                ? replace(key, known, next) : Future.succeededFuture(false);
        return fast.compose(ok -> ok ? Future.succeededFuture(true) : read(key).compose(s ->
                s != null && s.valid() && Objects.equals(s.value(), expected) && (known == null || !s.sealed().equals(known.sealed()))
                        ? replace(key, s, next) : Future.succeededFuture(false)));
    }

    @Override
    public Future<Void> clear() {
        synchronized (this) {
            lastSeen.clear();
        }
        return raw.clear();
    }

    @Override
    public Future<Integer> size() { return raw.size(); }

    @Override
    public Future<Set<String>> keys() { return entries().map(m -> Set.copyOf(m.keySet())); }

    @Override
    public Future<List<V>> values() { return entries().map(m -> List.copyOf(m.values())); }

    /** The valid entries (sorted by key). */
    @Override
    public Future<Map<String, V>> entries() {
        return readAll().map(all -> {
            Map<String, V> out = new TreeMap<>();
            all.forEach((k, s) -> {
                if (s.valid()) out.put(k, s.value());
            });
            return out;
        });
    }

    // ---- sealing --------------------------------------------------------------------------------------------------

    private String seal(String key, V value) {
        Names.require(format.keyKind(), key, Names.DERIVED_MAX);
        return sealer.seal(name, key, format.write(value));
    }

    private Map<String, Stored<V>> openAll(Map<Object, Object> entries) {
        Map<String, Stored<V>> out = new TreeMap<>();
        entries.forEach((k, v) -> {
            if (validKey(k)) out.put((String) k, open((String) k, v));
        });
        return out;
    }

    private boolean validKey(Object k) {
        if (k instanceof String s && Names.valid(s, Names.DERIVED_MAX)) return true;
        invalid.key(name, k, format.keyKind());
        return false;
    }

    private Stored<V> open(String key, Object stored) {
        if (stored instanceof String s && s.length() > MAX_SEALED_CHARS) {
            return rejected(key, stored, "too large (" + s.length() + " characters, at most " + MAX_SEALED_CHARS + ")");
        }
        String plain;
        try {
            plain = sealer.open(name, key, stored);
        } catch (Sealer.NotSealed e) {
            return rejected(key, stored, e.getMessage());
        }
        V value;
        try {
            value = format.read(key, plain);
        } catch (RuntimeException e) {
            // sealed with this cluster's key, so written by a node: one of another version, or a bug; the reason is
            // the validator's, which names fields, not credentials
            return rejected(key, stored, "sealed by a node of this cluster but not valid: " + reason(e));
        }
        Stored<V> s = new Stored<>(key, stored, value, null);
        synchronized (this) {
            lastSeen.put(key, s);
        }
        return s;
    }

    private Stored<V> rejected(String key, Object stored, String problem) {
        invalid.value(name, key, problem, stored);
        forget(key);
        return new Stored<>(key, stored, null, problem);
    }

    private static String reason(RuntimeException e) {
        if (e instanceof io.vertx.core.json.DecodeException) return "not JSON";
        String m = e.getMessage();
        return m == null ? e.getClass().getSimpleName() : m;
    }

    private synchronized void remember(String key, String sealed, V value) {
        lastSeen.put(key, new Stored<>(key, sealed, value, null));
    }

    private synchronized Stored<V> forget(String key) {
        lastSeen.remove(key);
        return null;
    }

    private static <V> V validValue(Stored<V> s) { return s != null && s.valid() ? s.value() : null; }

    private Future<V> previousValue(Stored<V> s) {
        if (s == null) return Future.succeededFuture();
        if (s.valid()) return Future.succeededFuture(s.value());
        return Future.failedFuture(new IllegalStateException("cluster map " + name + ", key " + Names.quoted(s.key())
                + ": holds an invalid value (" + s.problem() + "), nothing was put"));
    }

    @Override
    public String toString() { return "SealedMap[" + name + "]"; }
}
