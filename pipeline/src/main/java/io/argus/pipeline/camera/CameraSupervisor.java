package io.argus.pipeline.camera;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.ArgusMetrics;
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
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Owns the set of cameras: deploys a {@link CameraVerticle} per camera and answers control requests on
 * {@link Addresses#CAMERA_CONTROL} ({@code {"action": "list"|"get"|"add"|"remove"|"pause"|"resume", "id": ...,
 * "camera": {...}}}). Failures reply with an HTTP-like code (400, 404, 409) and the reason.
 */
public final class CameraSupervisor extends VerticleBase {
    private final ArgusConfig config;
    private final ArgusMetrics metrics;
    private final StartupProgress progress;
    private final Map<String, Deployed> cameras = new LinkedHashMap<>();
    private final Set<String> pending = new HashSet<>();
    private MessageConsumer<JsonObject> consumer;

    private record Deployed(CameraVerticle verticle, String deploymentId) {}

    /** Actions on one camera named by {@code id}: a name ({@link Names}), checked before it is looked up. */
    private static final Set<String> ACTIONS_ON_ONE = Set.of("get", "pause", "resume", "remove");

    public CameraSupervisor(ArgusConfig config, ArgusMetrics metrics) {
        this(config, metrics, StartupProgress.NONE);
    }

    /** {@code progress}: told when the sample video is generated (the first start of the bundled config). */
    public CameraSupervisor(ArgusConfig config, ArgusMetrics metrics, StartupProgress progress) {
        this.config = config;
        this.metrics = metrics;
        this.progress = progress;
    }

    @Override
    public Future<?> start() {
        consumer = vertx.eventBus().localConsumer(Addresses.CAMERA_CONTROL, this::handle);
        Future<?> chain = Future.succeededFuture();
        for (CameraConfig c : config.cameras()) chain = chain.compose(v -> add(c));
        return chain;
    }

    @Override
    public Future<?> stop() {
        return consumer != null ? consumer.unregister() : Future.succeededFuture();
    }

    private void handle(Message<JsonObject> msg) {
        JsonObject body = msg.body();
        String action = body.getString("action", "");
        String id = body.getString("id");
        if (ACTIONS_ON_ONE.contains(action) && !Names.valid(id)) {
            msg.fail(400, "camera id: " + Names.expectation(Names.MAX) + ", found " + Names.quoted(id));
            return;
        }
        Deployed d = id != null ? cameras.get(id) : null;
        switch (action) {
            case "list" -> {
                JsonArray a = new JsonArray();
                for (Deployed c : cameras.values()) a.add(c.verticle().status());
                msg.reply(a);
            }
            case "get" -> {
                if (d == null) notFound(msg, id);
                else msg.reply(d.verticle().status());
            }
            case "pause", "resume" -> {
                if (d == null) {
                    notFound(msg, id);
                } else {
                    if (action.equals("pause")) d.verticle().pause();
                    else d.verticle().resume();
                    msg.reply(d.verticle().status().put("paused", action.equals("pause")));
                }
            }
            case "remove" -> {
                if (d == null) {
                    notFound(msg, id);
                } else {
                    cameras.remove(id);
                    vertx.undeploy(d.deploymentId()).onComplete(r -> {
                        vertx.eventBus().publish(Addresses.CAMERA_EVENTS, new JsonObject().put("event", "removed").put("id", id));
                        msg.reply(new JsonObject().put("removed", id));
                    });
                }
            }
            case "add" -> {
                CameraConfig c;
                try {
                    c = CameraConfig.fromJson(body.getJsonObject("camera", new JsonObject()), config.modelIds(), config.file().toAbsolutePath().getParent());
                } catch (ConfigException | ClassCastException e) {
                    msg.fail(400, e.getMessage());
                    return;
                }
                if (cameras.containsKey(c.id()) || pending.contains(c.id())) {
                    msg.fail(409, "camera \"" + c.id() + "\" exists");
                    return;
                }
                add(c).onSuccess(v -> msg.reply(cameras.get(c.id()).verticle().status()))
                        .onFailure(e -> msg.fail(400, e.getMessage()));
            }
            default -> msg.fail(400, "unknown action \"" + action + "\" (list, get, add, remove, pause, resume)");
        }
    }

    private static void notFound(Message<?> msg, String id) {
        msg.fail(404, "no camera " + Names.quoted(id));
    }

    private Future<Void> add(CameraConfig c) {
        pending.add(c.id());
        Future<CameraUrl> source = c.source().kind() == CameraUrl.Kind.SAMPLE
                ? vertx.executeBlocking(() -> c.source().withSampleFile(SampleVideo.ensure(config.cacheDir(), progress)))
                : Future.succeededFuture(c.source());
        return source.compose(src -> {
            CameraVerticle v = new CameraVerticle(c, config.model(c.model()), src, config.camera(), metrics);
            return vertx.deployVerticle(v).map(depId -> {
                cameras.put(c.id(), new Deployed(v, depId));
                vertx.eventBus().publish(Addresses.CAMERA_EVENTS, new JsonObject().put("event", "added").put("id", c.id()));
                return (Void) null;
            });
        }).eventually(() -> {
            pending.remove(c.id());
            return Future.succeededFuture();
        });
    }
}
