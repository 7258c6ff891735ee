package io.argus.pipeline.cluster;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.Addresses.TrainingEvent;
import io.argus.pipeline.training.ModelRegistryService;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Every node serves the version of a model that was promoted last anywhere in the cluster. When this node's registry
 * swaps in a version of its own (a fine-tune that validated better, an operator's promotion, a rollback), this
 * verticle announces it on {@value #ADDRESS} ({@link VersionAnnouncement}: the version, this node's id, the weights'
 * size and full SHA-256); the other nodes fetch the weights from this node over the clustered event bus, chunk by
 * chunk ({@link WeightsServer}, {@link WeightsDownload}), check size and hash, and swap them in through their own
 * registry ({@link ModelRegistryService#adopt}), which keeps them for rollbacks. The event bus is the channel whose members proved
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
    static final String ADDRESS = Addresses.MODEL_VERSIONS;
    /** Shared map: model id to the last announcement. */
    static final String LATEST = "argus.model-versions";
    /** Adopting may load a large model. */
    private static final long ADOPT_SECONDS = 300;
    /** The registry answers from its own thread, which may be busy copying a version in. */
    private static final long REGISTRY_SECONDS = 10;

    private final ModelRegistryService registry;
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
     * @param registry  the versions of the model trained here, which follow the cluster
     * @param downloads where fetched weights land before the registry copies them in
     */
    public ModelVersionSync(ModelRegistryService registry, String node, Path downloads) {
        this.registry = registry;
        this.model = registry.model();
        this.node = node;
        this.downloads = downloads;
    }

    @Override
    public Future<?> start() {
        local = vertx.eventBus().localConsumer(Addresses.TRAINING_EVENTS, this::onLocalEvent);
        announcements = vertx.eventBus().consumer(ADDRESS, m -> onAnnouncement(m.body(), "an announcement"));
        weights = vertx.eventBus().consumer(Addresses.nodeWeights(node), new WeightsServer(vertx, model,
                version -> registry.weights(version).timeout(REGISTRY_SECONDS, TimeUnit.SECONDS))::answer);
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
        TrainingEvent e = TrainingEvent.from(m.body());
        String event = e.event();
        JsonObject version = e.details().getValue("version") instanceof JsonObject v ? v : null;
        if (!(event.equals("swapped") || event.equals("rolled-back")) || version == null) return;
        if (version.getString("origin", "").startsWith("node ")) return; // adopted: its origin announced it
        String promoted = version.getString("version");
        // the file the other nodes will be served (WeightsServer asks the registry the same way), hashed whole
        registry.weights(promoted).timeout(REGISTRY_SECONDS, TimeUnit.SECONDS)
                .compose(kept -> vertx.executeBlocking(() -> WeightsDigest.of(kept), false))
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
        return registry.active()
                .compose(serving -> {
                    if (a.version().equals(serving.version())) return Future.succeededFuture(false);
                    return WeightsDownload.fetch(vertx, a, downloads).compose(file -> {
                        return registry.adopt(file, a.version(), "node " + a.node()).timeout(ADOPT_SECONDS, TimeUnit.SECONDS)
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
