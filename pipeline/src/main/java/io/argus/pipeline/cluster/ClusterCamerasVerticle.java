package io.argus.pipeline.cluster;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.Addresses.NodeCameraRequest;
import io.argus.pipeline.base.RequestRefused;
import io.argus.pipeline.base.ServiceCall;
import io.argus.pipeline.camera.CameraStatus;
import io.argus.pipeline.camera.Cameras;
import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.config.ConfigException;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The cluster-wide camera list as this node serves it. At start it merges this node's copy of the run-time changes
 * into the cluster's record ({@link ClusterChanges#restore}), then adds this node's configured cameras to the list, less
 * those the record removed or defined anew ({@link CameraCatalog#seed}: a conflicting definition fails the start). Then it is the {@link Cameras} of the REST
 * camera routes in a cluster:
 * <ul>
 * <li>{@code list}, {@code get}: the list with each camera's owner node and epoch; for a camera running here, or
 *     (get) on another node, merged with its live status;</li>
 * <li>{@code add}, {@code remove}: change the list (the owner is then chosen by leases, {@link CameraOwnership});</li>
 * <li>{@code pause}, {@code resume}: relayed to the owner node;</li>
 * <li>{@link #nodes}: the members, their addresses and the cameras each owns.</li>
 * </ul>
 * It also answers other nodes' requests for this node's cameras ({@link Addresses#nodeCameras}) from the local
 * {@link Cameras} (camera/CameraSupervisor).
 */
public final class ClusterCamerasVerticle extends VerticleBase implements Cameras {
    private static final DeliveryOptions RELAY = new DeliveryOptions().setSendTimeout(3000);

    private final ArgusConfig config;
    private final String node;
    private final Supplier<List<String>> members;
    private final Cameras here;
    private final ClusterChanges changes;
    private CameraCatalog catalog;
    private AsyncMap<String, String> leases;
    private NodeDirectory nodes;
    private CameraStates states;
    private MessageConsumer<JsonObject> relay;

    /** {@code here}: this node's own cameras (camera/CameraSupervisor); {@code changes}: the cluster's record of run-time changes. */
    public ClusterCamerasVerticle(ArgusConfig config, String node, Supplier<List<String>> members, Cameras here, ClusterChanges changes) {
        this.config = config;
        this.node = node;
        this.members = members;
        this.here = here;
        this.changes = changes;
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
                    return changes.restore(catalog, states, (id, pause) -> onOwner(new NodeCameraRequest(pause
                            ? NodeCameraRequest.Action.PAUSE : NodeCameraRequest.Action.RESUME, id)));
                })
                .compose(unseeded -> catalog.seed(config.cameras(), unseeded))
                .onSuccess(v -> relay = vertx.eventBus().consumer(Addresses.nodeCameras(node), this::relay));
    }

    @Override
    public Future<?> stop() {
        return relay != null ? relay.unregister() : Future.succeededFuture();
    }

    @Override
    public Future<List<CameraStatus>> list() {
        return ServiceCall.on(context, this::listed);
    }

    @Override
    public Future<CameraStatus> get(String id) {
        return ServiceCall.on(context, () -> described(id));
    }

    @Override
    public Future<CameraStatus> add(JsonObject definition) {
        return ServiceCall.on(context, () -> added(definition != null ? definition : new JsonObject()));
    }

    @Override
    public Future<Void> remove(String id) {
        return ServiceCall.on(context, () -> catalog.remove(id).compose(removed -> states.remove(id).map(removed))
                .compose(removed -> removed ? Future.<Void>succeededFuture()
                        : Future.failedFuture(RequestRefused.notFound("no camera \"" + id + "\""))));
    }

    @Override
    public Future<CameraStatus> pause(String id) {
        return ServiceCall.on(context, () -> onOwner(new NodeCameraRequest(NodeCameraRequest.Action.PAUSE, id)));
    }

    @Override
    public Future<CameraStatus> resume(String id) {
        return ServiceCall.on(context, () -> onOwner(new NodeCameraRequest(NodeCameraRequest.Action.RESUME, id)));
    }

    /** This node's id in the cluster. */
    public String nodeId() { return node; }

    /** The node ids of the cluster's members now, this node's included. */
    public List<String> memberIds() { return members.get(); }

    /** The members, their addresses and the cameras each owns ({@code GET /api/nodes} in a cluster). */
    public Future<JsonArray> nodes() {
        return ServiceCall.on(context, this::members);
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

    private Future<List<CameraStatus>> listed() {
        List<String> live = members.get();
        return Future.all(catalog.entries(), leases.entries(), here.list(), nodes.entries()).map(all -> {
            Map<String, JsonObject> cameras = all.resultAt(0);
            Map<String, String> leaseTexts = all.resultAt(1);
            Map<String, JsonObject> running = new java.util.HashMap<>();
            for (CameraStatus c : all.<List<CameraStatus>>resultAt(2)) running.put(c.id(), c.json());
            Map<String, JsonObject> directory = all.resultAt(3);
            List<CameraStatus> out = new ArrayList<>();
            cameras.forEach((id, entry) -> {
                Owned o = owner(leaseTexts.get(id), live);
                JsonObject shown = entry.getJsonObject("public").copy();
                if (node.equals(o.owner()) && running.containsKey(id)) shown.mergeIn(running.get(id));
                out.add(CameraStatus.of(owned(shown, o, directory)));
            });
            return List.copyOf(out);
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

    private Future<CameraStatus> described(String id) {
        List<String> live = members.get();
        return Future.all(catalog.get(id), leases.get(id), nodes.entries()).compose(all -> {
            JsonObject entry = all.resultAt(0);
            if (entry == null) return Future.failedFuture(RequestRefused.notFound("no camera \"" + id + "\""));
            Owned o = owner(all.resultAt(1), live);
            Map<String, JsonObject> directory = all.resultAt(2);
            JsonObject shown = owned(entry.getJsonObject("public").copy(), o, directory);
            if (o.owner() == null) return Future.succeededFuture(CameraStatus.of(shown));
            // the owner's live status (fps, frames...); the list entry alone when the owner cannot answer now
            NodeCameraRequest get = new NodeCameraRequest(NodeCameraRequest.Action.GET, id);
            return vertx.eventBus().<JsonObject>request(Addresses.nodeCameras(o.owner()), get.toJson(), RELAY)
                    .map(reply -> owned(reply.body().mergeIn(shown), o, directory))
                    .otherwise(shown)
                    .map(CameraStatus::of);
        });
    }

    private Future<CameraStatus> added(JsonObject camera) {
        CameraConfig c;
        try {
            c = CameraConfig.fromJson(camera, config.modelIds(), config.file().toAbsolutePath().getParent());
        } catch (ConfigException | ClassCastException e) {
            return Future.failedFuture(new RequestRefused(400, e.getMessage()));
        }
        return catalog.add(c).compose(added -> added
                ? Future.succeededFuture(CameraStatus.of(c.toJson().put("owner", (String) null).put("epoch", 0)))
                : Future.failedFuture(RequestRefused.conflict("camera \"" + c.id() + "\" exists")));
    }

    /** Pause and resume act on the running camera: on its owner node. */
    private Future<CameraStatus> onOwner(NodeCameraRequest request) {
        String id = request.camera();
        List<String> live = members.get();
        return Future.all(catalog.get(id), leases.get(id)).compose(all -> {
            if (all.resultAt(0) == null) return Future.failedFuture(RequestRefused.notFound("no camera \"" + id + "\""));
            Owned o = owner(all.resultAt(1), live);
            if (o.owner() == null) {
                return Future.failedFuture(RequestRefused.conflict("camera \"" + id + "\" runs on no node at the moment"));
            }
            // done on the owner, then kept cluster-wide: the camera stays paused when it moves to another node
            return vertx.eventBus().<JsonObject>request(Addresses.nodeCameras(o.owner()), request.toJson(), RELAY)
                    .map(Message::body)
                    .compose(body -> states.setPaused(id, request.action() == NodeCameraRequest.Action.PAUSE)
                            .map(v -> CameraStatus.of(body)));
        });
    }

    private Future<JsonArray> members() {
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
        NodeCameraRequest request;
        try {
            request = NodeCameraRequest.from(msg.body());
        } catch (IllegalArgumentException e) {
            msg.fail(400, e.getMessage());
            return;
        }
        Future<CameraStatus> answer = switch (request.action()) {
            case GET -> here.get(request.camera());
            case PAUSE -> here.pause(request.camera());
            case RESUME -> here.resume(request.camera());
        };
        answer.onComplete(ar -> {
            if (ar.succeeded()) msg.reply(ar.result().json());
            else msg.fail(RequestRefused.statusOf(ar.cause()), String.valueOf(ar.cause().getMessage()));
        });
    }
}
