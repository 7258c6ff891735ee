package io.argus.pipeline.training;

import io.argus.detector.darknet.WeightsFile;
import io.argus.pipeline.app.Addresses;
import io.argus.pipeline.app.StartupProgress;
import io.argus.pipeline.inference.InferenceVerticle;
import io.argus.pipeline.inference.LoadedModel;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The versions of the trained model and the only one who swaps them ({@link ModelRegistry} on disk, swaps through the
 * model's inference verticle, {@code argus.control.model.<id>}). Requests on {@code argus.control.registry}:
 * {@code versions}, {@code active}, {@code add} (a fine-tune's candidate with its held-out mAP before and after and
 * whether it is accepted: accepted ones are swapped in), {@code rollback}. At start it resumes the version that served
 * last (with {@code training.resume}). One change at a time: a request while a swap is under way gets 409.
 * Publishes {@code swapped} and {@code rolled-back} on {@code argus.training.events}.
 */
public final class ModelRegistryVerticle extends VerticleBase {
    private static final System.Logger LOG = System.getLogger("argus.training.registry");
    /** Loading a large model (and building its GPU plans) may take a while. */
    private static final DeliveryOptions SWAP = new DeliveryOptions().setSendTimeout(300_000);

    private final TrainingConfig config;
    private final InferenceVerticle model;
    private final StartupProgress progress;
    private BlockingLane lane;
    private ModelRegistry registry; // on the lane's thread
    private MessageConsumer<JsonObject> consumer;
    private boolean changing;

    public ModelRegistryVerticle(TrainingConfig config, InferenceVerticle model) {
        this(config, model, StartupProgress.NONE);
    }

    /** {@code progress}: told about resuming a trained version at start (loading and warming it up). */
    public ModelRegistryVerticle(TrainingConfig config, InferenceVerticle model, StartupProgress progress) {
        this.config = config;
        this.model = model;
        this.progress = progress;
    }

    @Override
    public Future<?> start() {
        lane = new BlockingLane("argus-registry-" + config.model(), Thread.NORM_PRIORITY, context);
        LoadedModel serving = model.serving();
        Path dir = config.modelDir().resolve("versions");
        return lane.run(() -> {
                    Path baseFile = serving.weightsFile();
                    if (baseFile == null) { // generated weights: training needs them as a file
                        Files.createDirectories(dir);
                        baseFile = dir.resolve("0-" + serving.version() + ".weights");
                        WeightsFile.write(baseFile, serving.model().spec(), serving.model().weights());
                    }
                    registry = ModelRegistry.open(dir, serving.version(), baseFile);
                    return registry.active();
                })
                .compose(active -> {
                    consumer = vertx.eventBus().localConsumer(Addresses.REGISTRY_CONTROL, this::handle);
                    if (!config.resume() || active.version().equals(serving.version())) return Future.succeededFuture();
                    LOG.log(Level.INFO, "model " + config.model() + ": resuming version " + active.version() + " (#"
                            + active.number() + ") from " + dir);
                    StartupProgress.Step step = progress.step("resuming version " + active.version() + " (#"
                            + active.number() + ") of \"" + config.model() + "\"");
                    return swap(active.file(), active.version())
                            .onSuccess(r -> step.done()).onFailure(step::failed).mapEmpty();
                });
    }

    @Override
    public Future<?> stop() {
        if (consumer != null) consumer.unregister();
        lane.close();
        return Future.succeededFuture();
    }

    private void handle(Message<JsonObject> msg) {
        JsonObject b = msg.body();
        String m = b.getString("model", config.model());
        if (!config.model().equals(m)) {
            msg.fail(404, "model \"" + m + "\" has no version history: online training is for \"" + config.model() + "\"");
            return;
        }
        String action = b.getString("action", "");
        Future<JsonObject> result = switch (action) {
            case "versions" -> lane.run(() -> registry.toJson().put("model", config.model()));
            case "active" -> lane.run(() -> registry.active().toJson().put("model", config.model()));
            case "add" -> change(() -> add(b));
            case "adopt" -> change(() -> adopt(b));
            case "weights" -> lane.run(() -> weightsOf(b.getString("version")));
            case "rollback" -> change(this::rollback);
            default -> Future.failedFuture(new IllegalArgumentException("unknown action \"" + action
                    + "\" (versions, active, add, adopt, weights, rollback)"));
        };
        result.onComplete(ar -> {
            if (ar.succeeded()) msg.reply(ar.result());
            else msg.fail(DatasetVerticle.code(ar.cause()), ar.cause().getMessage());
        });
    }

    private Future<JsonObject> change(java.util.function.Supplier<Future<JsonObject>> work) {
        if (changing) return Future.failedFuture(new DatasetVerticle.Conflict("model " + config.model() + ": another version change is under way"));
        changing = true;
        return work.get().eventually(() -> {
            changing = false;
            return Future.succeededFuture();
        });
    }

    /** Records a candidate; an accepted one is swapped in and becomes the active version. */
    private Future<JsonObject> add(JsonObject b) {
        boolean accepted = b.getBoolean("accepted", false);
        Path weights = Path.of(b.getString("file"));
        return lane.run(() -> registry.addCandidate(weights, b.getInteger("run"), b.getDouble("mapBefore"),
                        b.getDouble("mapAfter"), accepted))
                .compose(v -> {
                    if (!accepted) return Future.succeededFuture(v.toJson());
                    return swap(v.file(), v.version())
                            .compose(reply -> lane.run(() -> {
                                registry.activated(v.version());
                                return v.toJson().put("replaced", reply.getString("replaced"));
                            }))
                            .onSuccess(j -> publish("swapped", j));
                });
    }

    /**
     * Swaps in weights that come from elsewhere: {@code {"file", "version" (optional: checked against the content),
     * "origin": "node <id>" or "operator"}}. Another node's promoted version (cluster/ModelVersionSync) or an
     * operator's ({@code POST /api/models/:id/versions}). Already serving it: nothing to do.
     */
    private Future<JsonObject> adopt(JsonObject b) {
        Path weights = Path.of(b.getString("file"));
        String origin = b.getString("origin", "operator");
        String state = origin.equals("operator") ? "promoted by an operator" : "adopted from " + origin;
        return lane.run(() -> registry.adopt(weights, b.getString("version"), state))
                .compose(v -> lane.run(() -> registry.active().version().equals(v.version())).compose(serving -> {
                    if (serving) return Future.succeededFuture(v.toJson().put("unchanged", true));
                    return swap(v.file(), v.version())
                            .compose(reply -> lane.run(() -> {
                                registry.activated(v.version());
                                return v.toJson().put("replaced", reply.getString("replaced"));
                            }))
                            .onSuccess(j -> publish("swapped", j.put("origin", origin)));
                }));
    }

    /** The weights file of a version kept here: {@code {"version", "file"}}; 404 for one without a file. */
    private JsonObject weightsOf(String version) {
        ModelRegistry.Version v = version != null ? registry.get(version) : null;
        if (v == null || v.file() == null) {
            throw new DatasetVerticle.NotFound("model " + config.model() + ": no weights kept for version " + version);
        }
        return new JsonObject().put("version", v.version()).put("file", v.file().toString());
    }

    private Future<JsonObject> rollback() {
        return lane.run(() -> {
                    ModelRegistry.Version prev = registry.previous();
                    if (prev == null) {
                        throw new DatasetVerticle.Conflict("model " + config.model() + ": no previous version to roll back to (serving "
                                + registry.active().version() + ")");
                    }
                    return prev;
                })
                .compose(prev -> swap(prev.file(), prev.version())
                        .compose(reply -> lane.run(() -> {
                            registry.rolledBack();
                            return prev.toJson().put("replaced", reply.getString("replaced"));
                        })))
                .onSuccess(j -> publish("rolled-back", j));
    }

    private Future<JsonObject> swap(Path file, String version) {
        return vertx.eventBus().<JsonObject>request(Addresses.modelControl(config.model()),
                        new JsonObject().put("action", "swap").put("weights", file.toString()).put("version", version), SWAP)
                .map(Message::body);
    }

    private void publish(String event, JsonObject body) {
        vertx.eventBus().publish(Addresses.TRAINING_EVENTS, new JsonObject().put("type", "training").put("event", event)
                .put("model", config.model()).put("version", body));
    }
}
