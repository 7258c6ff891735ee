package io.argus.pipeline.camera;

import io.argus.pipeline.recording.Recordings;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.Addresses.CameraNotice;
import io.argus.pipeline.base.ArgusMetrics;
import io.argus.pipeline.base.RequestRefused;
import io.argus.pipeline.base.ServiceCall;
import io.argus.pipeline.base.StartupProgress;
import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.config.CameraUrl;
import io.argus.pipeline.config.ConfigException;
import io.argus.pipeline.config.Names;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Owns this node's cameras: deploys a {@link CameraVerticle} per camera and is their {@link Cameras} (list, get, add,
 * remove, pause, resume). Announces each camera added or removed on {@link Addresses#CAMERA_EVENTS}.
 *
 * <p>In a cluster, cluster/CameraOwnership starts and stops the cameras whose lease this node holds with requests on
 * {@link Addresses#CAMERA_CONTROL} ({@code {"action": "add"|"pause"|"remove", "id", "camera"}}), answered here by the
 * same methods, failures with their HTTP status as the failure code.
 */
public final class CameraSupervisor extends VerticleBase implements Cameras {
    private final ArgusConfig config;
    private final ArgusMetrics metrics;
    private final Recordings recordings;
    private final StartupProgress progress;
    private final Map<String, Deployed> cameras = new LinkedHashMap<>();
    private final Set<String> pending = new HashSet<>();
    private MessageConsumer<JsonObject> consumer;

    private record Deployed(CameraVerticle verticle, String deploymentId) {}

    public CameraSupervisor(ArgusConfig config, ArgusMetrics metrics) {
        this(config, metrics, StartupProgress.NONE, Recordings.OFF);
    }

    /**
     * {@code progress}: told when the sample video is generated (the first start of the bundled config);
     * {@code recordings}: where each camera's packets go before decoding.
     */
    public CameraSupervisor(ArgusConfig config, ArgusMetrics metrics, StartupProgress progress, Recordings recordings) {
        this.config = config;
        this.metrics = metrics;
        this.progress = progress;
        this.recordings = recordings;
    }

    @Override
    public Future<?> start() {
        consumer = vertx.eventBus().localConsumer(Addresses.CAMERA_CONTROL, this::handle);
        Future<?> chain = Future.succeededFuture();
        for (CameraConfig c : config.cameras()) chain = chain.compose(v -> deploy(c));
        return chain;
    }

    @Override
    public Future<?> stop() {
        return consumer != null ? consumer.unregister() : Future.succeededFuture();
    }

    @Override
    public Future<List<CameraStatus>> list() {
        return ServiceCall.on(context, () -> {
            List<CameraStatus> out = new ArrayList<>();
            for (Deployed c : cameras.values()) out.add(CameraStatus.of(c.verticle().status()));
            return Future.succeededFuture(List.copyOf(out));
        });
    }

    @Override
    public Future<CameraStatus> get(String id) {
        return ServiceCall.on(context, () -> Future.succeededFuture(CameraStatus.of(deployed(id).verticle().status())));
    }

    @Override
    public Future<CameraStatus> pause(String id) {
        return ServiceCall.on(context, () -> {
            CameraVerticle v = deployed(id).verticle();
            v.pause();
            return Future.succeededFuture(CameraStatus.of(v.status().put("paused", true)));
        });
    }

    @Override
    public Future<CameraStatus> resume(String id) {
        return ServiceCall.on(context, () -> {
            CameraVerticle v = deployed(id).verticle();
            v.resume();
            return Future.succeededFuture(CameraStatus.of(v.status().put("paused", false)));
        });
    }

    @Override
    public Future<Void> remove(String id) {
        return ServiceCall.on(context, () -> {
            Deployed d = deployed(id);
            cameras.remove(id);
            return vertx.undeploy(d.deploymentId()).transform(r -> {
                recordings.stopped(id);
                vertx.eventBus().publish(Addresses.CAMERA_EVENTS, CameraNotice.removed(id).toJson());
                return Future.<Void>succeededFuture();
            });
        });
    }

    @Override
    public Future<CameraStatus> add(JsonObject definition) {
        return ServiceCall.on(context, () -> {
            CameraConfig c;
            try {
                c = CameraConfig.fromJson(definition != null ? definition : new JsonObject(), config.modelIds(),
                        config.file().toAbsolutePath().getParent());
            } catch (ConfigException | ClassCastException e) {
                return Future.failedFuture(new RequestRefused(400, e.getMessage()));
            }
            if (cameras.containsKey(c.id()) || pending.contains(c.id())) {
                return Future.failedFuture(RequestRefused.conflict("camera \"" + c.id() + "\" exists"));
            }
            return deploy(c).map(v -> CameraStatus.of(cameras.get(c.id()).verticle().status()))
                    .recover(e -> Future.failedFuture(new RequestRefused(400, e.getMessage(), e)));
        });
    }

    /** The camera {@code id} names: 400 when it is not a name ({@link Names}), 404 when none runs here. */
    private Deployed deployed(String id) {
        if (!Names.valid(id)) {
            throw new RequestRefused(400, "camera id: " + Names.expectation(Names.MAX) + ", found " + Names.quoted(id));
        }
        Deployed d = cameras.get(id);
        if (d == null) throw RequestRefused.notFound("no camera " + Names.quoted(id));
        return d;
    }

    /** A request of cluster/CameraOwnership on {@link Addresses#CAMERA_CONTROL}. */
    private void handle(Message<JsonObject> msg) {
        JsonObject body = msg.body();
        String action = body.getString("action", "");
        String id = body.getString("id");
        Future<?> answer = switch (action) {
            case "add" -> add(body.getJsonObject("camera", new JsonObject())).map(CameraStatus::json);
            case "pause" -> pause(id).map(CameraStatus::json);
            case "remove" -> remove(id).map(v -> new JsonObject().put("removed", id));
            default -> Future.failedFuture(new RequestRefused(400, "unknown action \"" + action + "\" (add, pause, remove)"));
        };
        answer.onComplete(ar -> {
            if (ar.succeeded()) msg.reply(ar.result());
            else msg.fail(RequestRefused.statusOf(ar.cause()), ar.cause().getMessage());
        });
    }

    private Future<Void> deploy(CameraConfig c) {
        pending.add(c.id());
        Future<CameraUrl> source = c.source().kind() == CameraUrl.Kind.SAMPLE
                ? vertx.executeBlocking(() -> c.source().withSampleFile(SampleVideo.ensure(config.cacheDir(), progress)))
                : Future.succeededFuture(c.source());
        return source.compose(src -> {
            CameraVerticle v = new CameraVerticle(c, config.model(c.model()), src, config.camera(), metrics,
                    recordings.sinkFor(c));
            return vertx.deployVerticle(v).map(depId -> {
                cameras.put(c.id(), new Deployed(v, depId));
                vertx.eventBus().publish(Addresses.CAMERA_EVENTS, CameraNotice.added(c.id()).toJson());
                return (Void) null;
            });
        }).eventually(() -> {
            pending.remove(c.id());
            return Future.succeededFuture();
        });
    }
}
