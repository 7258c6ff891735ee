package io.argus.pipeline.cluster;

import io.argus.pipeline.base.Addresses;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;
import java.lang.System.Logger.Level;
import java.nio.file.Path;

/**
 * Every node serves the version of a model that was promoted last anywhere in the cluster. When this node's registry
 * swaps in a version of its own (a fine-tune that validated better, an operator's promotion, a rollback), this
 * verticle announces it on {@value #ADDRESS} ({@link VersionAnnouncement}: the version, this node's id, the weights'
 * size and full SHA-256); the other nodes fetch the weights from this node over the clustered event bus, chunk by
 * chunk ({@link WeightsServer}, {@link WeightsDownload}), check size and hash, and swap them in through their own
 * registry (action {@code adopt}), which keeps them for rollbacks. The event bus is the channel whose members proved
 * the cluster secret: no HTTP, no API token between nodes. Weights cross the network, frames never do. The last
 * announcement per model is also kept in {@value #LATEST}: a node that starts (or was down at the promotion) adopts
 * the version promoted last, fetched from the node that announced it.
 *
 * <p>One version is fetched at a time; announcements that arrive meanwhile leave only the newest waiting (what
 * another node announces is bounded here, whatever it sends).
 */
public final class ModelVersionSync extends VerticleBase {
    private static final System.Logger LOG = System.getLogger("argus.cluster.models");
    /** Clustered: a version was promoted on a node. */
    static final String ADDRESS = "argus.cluster.model-versions";
    /** Shared map: model id to the last announcement. */
    static final String LATEST = "argus.model-versions";
    private static final DeliveryOptions ADOPT = new DeliveryOptions().setSendTimeout(300_000);
    private static final DeliveryOptions REGISTRY = new DeliveryOptions().setSendTimeout(10_000);

    private final String model;
    private final String node;
    private final Path downloads;
    private MessageConsumer<JsonObject> local;
    private MessageConsumer<Object> announcements;
    private MessageConsumer<Object> weights;
    private AsyncMap<String, String> latest;
    /** Whether a version is being fetched and adopted; the newest announcement that came meanwhile. */
    private boolean adopting;
    private VersionAnnouncement waiting;

    /**
     * @param model     the model trained here, whose versions follow the cluster
     * @param downloads where fetched weights land before the registry copies them in
     */
    public ModelVersionSync(String model, String node, Path downloads) {
        this.model = model;
        this.node = node;
        this.downloads = downloads;
    }

    @Override
    public Future<?> start() {
        local = vertx.eventBus().localConsumer(Addresses.TRAINING_EVENTS, this::onLocalEvent);
        announcements = vertx.eventBus().consumer(ADDRESS, m -> onAnnouncement(m.body(), "an announcement"));
        weights = vertx.eventBus().consumer(WeightsServer.address(node), new WeightsServer(vertx, model)::answer);
        return Future.join(local.completion(), announcements.completion(), weights.completion())
                .compose(v -> ClusterMaps.of(vertx).texts(LATEST))
                .onSuccess(map -> {
                    latest = map;
                    // promoted while this node was away: catch up (in the background; the node is ready meanwhile)
                    map.get(model).onSuccess(text -> {
                        if (text == null) return;
                        Object body;
                        try {
                            body = new JsonObject(text);
                        } catch (RuntimeException e) {
                            body = text;
                        }
                        onAnnouncement(body, LATEST);
                    });
                });
    }

    @Override
    public Future<?> stop() {
        return Future.join(local.unregister(), announcements.unregister(), weights.unregister());
    }

    /** This node's registry swapped: announce it, unless the version came from another node. */
    private void onLocalEvent(Message<JsonObject> m) {
        JsonObject e = m.body();
        String event = e.getString("event", "");
        JsonObject version = e.getJsonObject("version");
        if (!(event.equals("swapped") || event.equals("rolled-back")) || version == null) return;
        if (version.getString("origin", "").startsWith("node ")) return; // adopted: its origin announced it
        String promoted = version.getString("version");
        // the file the other nodes will be served (WeightsServer asks the registry the same way), hashed whole
        vertx.eventBus().<JsonObject>request(Addresses.REGISTRY_CONTROL, new JsonObject().put("action", "weights").put("model", model)
                        .put("version", promoted), REGISTRY)
                .compose(kept -> vertx.executeBlocking(() -> WeightsDigest.of(Path.of(kept.body().getString("file"))), false))
                .onSuccess(digest -> {
                    VersionAnnouncement a = new VersionAnnouncement(model, promoted, node, digest.size(), digest.sha256(), event,
                            System.currentTimeMillis());
                    LOG.log(Level.INFO, "model {0}: version {1} ({2} here) announced to the cluster", model, promoted, event);
                    vertx.eventBus().publish(ADDRESS, a.toJson());
                    if (latest != null) latest.put(model, a.toJson().encode());
                })
                .onFailure(x -> LOG.log(Level.WARNING, "model {0}: version {1} ({2} here) not announced: {3}", model, promoted, event,
                        x.getMessage()));
    }

    /** Another node promoted a version (or did before this node started): checked, then adopted in turn. */
    private void onAnnouncement(Object body, String from) {
        VersionAnnouncement a;
        try {
            a = VersionAnnouncement.from(body);
        } catch (IllegalArgumentException e) {
            LOG.log(Level.WARNING, "model {0}: {1} refused: {2}", model, from, e.getMessage());
            return;
        }
        if (node.equals(a.node()) || !model.equals(a.model())) return;
        if (adopting) {
            waiting = a;
            return;
        }
        adopting = true;
        adopt(a).onComplete(ar -> {
            adopting = false;
            VersionAnnouncement next = waiting;
            waiting = null;
            if (next != null) onAnnouncement(next.toJson(), "an announcement");
        });
    }

    /** Fetches the announced version's weights and swaps them in here, unless it serves already. */
    private Future<Boolean> adopt(VersionAnnouncement a) {
        long began = System.currentTimeMillis();
        JsonObject active = new JsonObject().put("action", "active").put("model", model);
        return vertx.eventBus().<JsonObject>request(Addresses.REGISTRY_CONTROL, active)
                .compose(serving -> {
                    if (a.version().equals(serving.body().getString("version"))) return Future.succeededFuture(false);
                    return WeightsDownload.fetch(vertx, a, downloads).compose(file -> {
                        JsonObject adopt = new JsonObject().put("action", "adopt").put("model", model).put("file", file.toString())
                                .put("version", a.version()).put("origin", "node " + a.node());
                        return vertx.eventBus().<JsonObject>request(Addresses.REGISTRY_CONTROL, adopt, ADOPT)
                                .eventually(() -> vertx.fileSystem().delete(file.toString()).recover(x -> Future.succeededFuture()))
                                .map(true);
                    });
                })
                .onSuccess(adopted -> {
                    if (adopted) {
                        LOG.log(Level.INFO, "model {0}: serving version {1} from node {2} ({3} bytes, {4} ms after the announcement"
                                + " arrived)", model, a.version(), a.node(), Long.toString(a.size()),
                                Long.toString(System.currentTimeMillis() - began));
                    }
                })
                .onFailure(e -> LOG.log(Level.WARNING, "model {0}: version {1} of node {2} not adopted: {3}", model, a.version(),
                        a.node(), e.getMessage()));
    }
}
