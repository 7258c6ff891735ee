package io.argus.pipeline.cluster;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;
import io.vertx.core.shareddata.Shareable;

/**
 * The one way Argus opens a cluster map: sealed with the cluster's key and validated by the map's format
 * ({@link SealedMap}, {@link ClusterValues}), invalid values counted in {@link InvalidValues}. A clustered node
 * installs one on its Vert.x at start; code that runs clustered or alone asks {@link #of} and, alone, uses Vert.x's
 * local maps as before (nothing leaves the process there).
 */
public final class ClusterMaps implements Shareable {
    private static final String LOCAL_MAP = "argus.cluster.maps";
    private static final String KEY = "maps";

    private final Vertx vertx;
    private final Sealer sealer;
    private final InvalidValues invalid;

    public ClusterMaps(Vertx vertx, ClusterKeys keys, InvalidValues invalid) {
        this.vertx = vertx;
        this.sealer = keys.sealer();
        this.invalid = invalid;
    }

    /** Every map Argus keeps in the cluster (for the metrics' series). */
    public static Iterable<String> names() { return ClusterValues.MAPS; }

    /** Makes these the maps of {@code vertx}'s verticles ({@link #of}). */
    public ClusterMaps install() {
        vertx.sharedData().getLocalMap(LOCAL_MAP).put(KEY, this);
        return this;
    }

    /** The maps installed on {@code vertx}; null on a single node. */
    public static ClusterMaps of(Vertx vertx) {
        return (ClusterMaps) vertx.sharedData().getLocalMap(LOCAL_MAP).get(KEY);
    }

    /** {@code map} of JSON texts, sealed and validated. */
    public Future<SealedMap<String>> texts(String map) {
        SealedMap.Format<String> format = ClusterValues.texts(map);
        return vertx.sharedData().<Object, Object>getAsyncMap(map).map(raw -> new SealedMap<>(map, raw, sealer, format, invalid));
    }

    /** {@code map} of JSON objects, sealed and validated. */
    public Future<SealedMap<JsonObject>> objects(String map) {
        SealedMap.Format<JsonObject> format = ClusterValues.objects(map);
        return vertx.sharedData().<Object, Object>getAsyncMap(map).map(raw -> new SealedMap<>(map, raw, sealer, format, invalid));
    }

    /**
     * The scene rules kept for every node (a camera's zones and lines changed over REST): sealed in a cluster, a local
     * map alone.
     */
    public static Future<AsyncMap<String, JsonObject>> sceneRules(Vertx vertx) { return jsonOrLocal(vertx, ClusterValues.SCENE_RULES_MAP); }

    /** The counts kept for a camera's next owner: sealed in a cluster, a local map alone. */
    public static Future<AsyncMap<String, JsonObject>> counts(Vertx vertx) { return jsonOrLocal(vertx, ClusterValues.COUNTS_MAP); }

    private static Future<AsyncMap<String, JsonObject>> jsonOrLocal(Vertx vertx, String map) {
        ClusterMaps maps = of(vertx);
        return maps == null ? vertx.sharedData().getAsyncMap(map) : maps.objects(map).map(m -> m);
    }

    /** What was ignored so far. */
    public InvalidValues invalid() { return invalid; }

    /** Shared as is: it holds no state a verticle changes (the sealer and counters are thread-safe). */
    @Override
    public Shareable copy() { return this; }
}
