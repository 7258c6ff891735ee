package io.argus.pipeline.cluster;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.config.ConfigException;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The cluster-wide camera list as this node serves it. At start it adds this node's configured cameras to the list
 * ({@link CameraCatalog#seed}: a conflicting definition fails the start). Then it answers {@link
 * Addresses#CLUSTER_CAMERAS} requests, the REST camera routes in a cluster:
 * <ul>
 * <li>{@code list}, {@code get}: the list with each camera's owner node and epoch; for a camera running here, or
 *     (get) on another node, merged with its live status;</li>
 * <li>{@code add}, {@code remove}: change the list (the owner is then chosen by leases, {@link CameraOwnership});</li>
 * <li>{@code pause}, {@code resume}: relayed to the owner node;</li>
 * <li>{@code nodes}: the members, their addresses and the cameras each owns.</li>
 * </ul>
 * It also relays requests from other nodes to this node's camera supervisor ({@link Addresses#nodeCameras}).
 */
public final class ClusterCamerasVerticle extends VerticleBase {
    private static final DeliveryOptions RELAY = new DeliveryOptions().setSendTimeout(3000);

    private final ArgusConfig config;
    private final String node;
    private final Supplier<List<String>> members;
    private CameraCatalog catalog;
    private AsyncMap<String, String> leases;
    private NodeDirectory nodes;
    private CameraStates states;
    private MessageConsumer<JsonObject> control;
    private MessageConsumer<JsonObject> relay;

    public ClusterCamerasVerticle(ArgusConfig config, String node, Supplier<List<String>> members) {
        this.config = config;
        this.node = node;
        this.members = members;
    }

    @Override
    public Future<?> start() {
        ClusterMaps shared = ClusterMaps.of(vertx);
        return Future.all(shared.texts(CameraCatalog.MAP), shared.texts(Lease.MAP), shared.texts(NodeDirectory.MAP),
                        shared.texts(CameraStates.MAP))
                .compose(maps -> {
                    catalog = new CameraCatalog(maps.resultAt(0));
                    leases = maps.resultAt(1);
                    nodes = new NodeDirectory(maps.resultAt(2));
                    states = new CameraStates(maps.resultAt(3));
                    return catalog.seed(config.cameras());
                })
                .onSuccess(v -> {
                    control = vertx.eventBus().localConsumer(Addresses.CLUSTER_CAMERAS, this::handle);
                    relay = vertx.eventBus().consumer(Addresses.nodeCameras(node), this::relay);
                });
    }

    @Override
    public Future<?> stop() {
        return Future.join(control != null ? control.unregister() : Future.succeededFuture(),
                relay != null ? relay.unregister() : Future.succeededFuture());
    }

    private void handle(Message<JsonObject> msg) {
        JsonObject body = msg.body();
        String action = body.getString("action", "");
        String id = body.getString("id");
        Future<?> answer = switch (action) {
            case "list" -> list();
            case "get" -> get(id);
            case "add" -> add(body.getJsonObject("camera", new JsonObject()));
            case "remove" -> catalog.remove(id).compose(removed -> states.remove(id).map(removed)).compose(removed -> removed ? Future.succeededFuture(new JsonObject().put("removed", id))
                    : Future.failedFuture(failure(404, "no camera \"" + id + "\"")));
            case "pause", "resume" -> onOwner(id, body);
            case "nodes" -> nodes();
            default -> Future.failedFuture(failure(400, "unknown action \"" + action + "\" (list, get, add, remove, pause, resume, nodes)"));
        };
        answer.onComplete(ar -> {
            if (ar.succeeded()) {
                msg.reply(ar.result());
            } else if (ar.cause() instanceof ReplyException re) {
                msg.fail(re.failureCode(), re.getMessage());
            } else {
                msg.fail(500, String.valueOf(ar.cause().getMessage()));
            }
        });
    }

    private static ReplyException failure(int code, String message) {
        return new ReplyException(io.vertx.core.eventbus.ReplyFailure.RECIPIENT_FAILURE, code, message);
    }

    /** The live owner of each camera's lease (null: none now). */
    private record Owned(String owner, long epoch) {}

    private Owned owner(String leaseText, List<String> live) {
        if (leaseText == null) return new Owned(null, 0);
        Lease l = Lease.parse(leaseText);
        // Below minSize this node runs nothing and may be the small side of a split: its side's leases are stale (the
        // other side took them over), and its own cameras are stopped, so it knows no owner (ClusterPartitionTest).
        boolean quorum = live.size() >= config.cluster().minSize();
        return new Owned(quorum && !l.free() && live.contains(l.owner()) ? l.owner() : null, l.epoch());
    }

    private Future<JsonArray> list() {
        List<String> live = members.get();
        Future<JsonArray> local = vertx.eventBus().<JsonArray>request(Addresses.CAMERA_CONTROL, new JsonObject().put("action", "list"))
                .map(Message::body);
        return Future.all(catalog.entries(), leases.entries(), local, nodes.entries()).map(all -> {
            Map<String, JsonObject> cameras = all.resultAt(0);
            Map<String, String> leaseTexts = all.resultAt(1);
            Map<String, JsonObject> running = new java.util.HashMap<>();
            for (Object o : (JsonArray) all.resultAt(2)) running.put(((JsonObject) o).getString("id"), (JsonObject) o);
            Map<String, JsonObject> directory = all.resultAt(3);
            JsonArray out = new JsonArray();
            cameras.forEach((id, entry) -> {
                Owned o = owner(leaseTexts.get(id), live);
                JsonObject shown = entry.getJsonObject("public").copy();
                if (node.equals(o.owner()) && running.containsKey(id)) shown.mergeIn(running.get(id));
                out.add(owned(shown, o, directory));
            });
            return out;
        });
    }

    /**
     * A camera as listed: with its {@code owner} node (null while none holds it), {@code epoch}, and {@code ownerHttp},
     * the owner's HTTP address, where its snapshots are served.
     */
    private static JsonObject owned(JsonObject shown, Owned o, Map<String, JsonObject> directory) {
        JsonObject ownerEntry = o.owner() != null ? directory.get(o.owner()) : null;
        return shown.put("owner", o.owner()).put("epoch", o.epoch())
                .put("ownerHttp", ownerEntry != null ? ownerEntry.getString("http") : null);
    }

    private Future<JsonObject> get(String id) {
        List<String> live = members.get();
        return Future.all(catalog.get(id), leases.get(id), nodes.entries()).compose(all -> {
            JsonObject entry = all.resultAt(0);
            if (entry == null) return Future.failedFuture(failure(404, "no camera \"" + id + "\""));
            Owned o = owner(all.resultAt(1), live);
            Map<String, JsonObject> directory = all.resultAt(2);
            JsonObject shown = owned(entry.getJsonObject("public").copy(), o, directory);
            if (o.owner() == null) return Future.succeededFuture(shown);
            // the owner's live status (fps, frames...); the list entry alone when the owner cannot answer now
            return vertx.eventBus().<JsonObject>request(Addresses.nodeCameras(o.owner()), new JsonObject().put("action", "get").put("id", id), RELAY)
                    .map(reply -> owned(reply.body().mergeIn(shown), o, directory))
                    .otherwise(shown);
        });
    }

    private Future<JsonObject> add(JsonObject camera) {
        CameraConfig c;
        try {
            c = CameraConfig.fromJson(camera, config.modelIds(), config.file().toAbsolutePath().getParent());
        } catch (ConfigException | ClassCastException e) {
            return Future.failedFuture(failure(400, e.getMessage()));
        }
        return catalog.add(c).compose(added -> added
                ? Future.succeededFuture(c.toJson().put("owner", (String) null).put("epoch", 0))
                : Future.failedFuture(failure(409, "camera \"" + c.id() + "\" exists")));
    }

    /** Pause and resume act on the running camera: on its owner node. */
    private Future<Object> onOwner(String id, JsonObject request) {
        List<String> live = members.get();
        return Future.all(catalog.get(id), leases.get(id)).compose(all -> {
            if (all.resultAt(0) == null) return Future.failedFuture(failure(404, "no camera \"" + id + "\""));
            Owned o = owner(all.resultAt(1), live);
            if (o.owner() == null) return Future.failedFuture(failure(409, "camera \"" + id + "\" runs on no node at the moment"));
            // done on the owner, then kept cluster-wide: the camera stays paused when it moves to another node
            return vertx.eventBus().request(Addresses.nodeCameras(o.owner()), request, RELAY).map(Message::body)
                    .compose(body -> states.setPaused(id, "pause".equals(request.getString("action"))).map(v -> body));
        });
    }

    private Future<JsonArray> nodes() {
        List<String> live = members.get();
        return Future.all(nodes.entries(), leases.entries()).map(all -> {
            Map<String, JsonObject> directory = all.resultAt(0);
            Map<String, String> leaseTexts = all.resultAt(1);
            JsonArray out = new JsonArray();
            for (String m : live) {
                JsonArray owned = new JsonArray();
                new java.util.TreeMap<>(leaseTexts).forEach((camera, text) -> {
                    if (m.equals(owner(text, live).owner())) owned.add(camera);
                });
                JsonObject entry = directory.getOrDefault(m, new JsonObject().put("id", m)).copy();
                out.add(entry.put("self", m.equals(node)).put("cameras", owned));
            }
            return out;
        });
    }

    /** Another node's request for this node's cameras (get, pause, resume): answered by the local supervisor. */
    private void relay(Message<JsonObject> msg) {
        String action = msg.body().getString("action", "");
        if (!List.of("get", "pause", "resume").contains(action)) {
            msg.fail(400, "not relayed: " + action);
            return;
        }
        vertx.eventBus().request(Addresses.CAMERA_CONTROL, msg.body()).onComplete(ar -> {
            if (ar.succeeded()) msg.reply(ar.result().body());
            else if (ar.cause() instanceof ReplyException re) msg.fail(re.failureCode(), re.getMessage());
            else msg.fail(500, String.valueOf(ar.cause().getMessage()));
        });
    }
}
