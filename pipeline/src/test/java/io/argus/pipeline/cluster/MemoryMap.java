package io.argus.pipeline.cluster;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.shareddata.AsyncMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * A cluster map in memory for the unit tests of camera ownership, with the compare-and-set semantics of Hazelcast's
 * maps. Every call answers at once (a test runs a whole exchange in one thread, no Vert.x), or is held back while
 * {@link #deferring} until {@link #flush} (a call in flight), or never while {@link #unreachable} (a hung member).
 * Shared by the nodes of a test, as the cluster's map is.
 */
final class MemoryMap implements AsyncMap<Object, Object> {
    final Map<Object, Object> values = new TreeMap<>();
    /** While true, every call waits forever. */
    boolean unreachable;
    /** While true, every call waits for {@link #flush}, which makes it then. */
    boolean deferring;
    private final List<Runnable> deferred = new ArrayList<>();

    /** Makes the calls held back, in order, and answers them; from now on calls answer at once. */
    void flush() {
        deferring = false;
        List<Runnable> now = new ArrayList<>(deferred);
        deferred.clear();
        now.forEach(Runnable::run);
    }

    private <T> Future<T> call(Supplier<T> operation) {
        if (unreachable) return Promise.<T>promise().future();
        if (!deferring) return Future.succeededFuture(operation.get());
        Promise<T> p = Promise.promise();
        deferred.add(() -> p.complete(operation.get()));
        return p.future();
    }

    @Override
    public Future<Object> get(Object k) { return call(() -> values.get(k)); }

    @Override
    public Future<Void> put(Object k, Object v) {
        return call(() -> {
            values.put(k, v);
            return null;
        });
    }

    @Override
    public Future<Void> put(Object k, Object v, long ttl) { return put(k, v); }

    @Override
    public Future<Object> putIfAbsent(Object k, Object v) { return call(() -> values.putIfAbsent(k, v)); }

    @Override
    public Future<Object> putIfAbsent(Object k, Object v, long ttl) { return putIfAbsent(k, v); }

    @Override
    public Future<Object> remove(Object k) { return call(() -> values.remove(k)); }

    @Override
    public Future<Boolean> removeIfPresent(Object k, Object v) { return call(() -> values.remove(k, v)); }

    @Override
    public Future<Object> replace(Object k, Object v) { return call(() -> values.replace(k, v)); }

    @Override
    public Future<Boolean> replaceIfPresent(Object k, Object oldValue, Object newValue) {
        return call(() -> {
            boolean same = values.containsKey(k) && Objects.equals(values.get(k), oldValue);
            if (same) values.put(k, newValue);
            return same;
        });
    }

    @Override
    public Future<Void> clear() {
        return call(() -> {
            values.clear();
            return null;
        });
    }

    @Override
    public Future<Integer> size() { return call(values::size); }

    @Override
    public Future<Set<Object>> keys() { return call(() -> Set.copyOf(values.keySet())); }

    @Override
    public Future<List<Object>> values() { return call(() -> new ArrayList<>(values.values())); }

    @Override
    public Future<Map<Object, Object>> entries() { return call(() -> new TreeMap<>(values)); }
}
