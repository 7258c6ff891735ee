package io.argus.pipeline.training;

import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.io.OwnerOnly;
import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.StartupProgress;
import io.argus.pipeline.config.Names;
import io.argus.pipeline.config.TrainingConfig;
import io.argus.pipeline.inference.InferenceVerticle;
import io.argus.pipeline.inference.LoadedModel;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The versions of the trained model and the only one who swaps them ({@link ModelRegistry} on disk, swaps through the
 * model's inference verticle, {@code argus.control.model.<id>}). Requests on {@code argus.control.registry}:
 * {@code versions}, {@code active}, {@code add} (a fine-tune's candidate with its held-out mAP before and after and
 * whether it is accepted: accepted ones are swapped in), {@code rollback}, {@code weights} (a kept version's file, for
 * another node), and the three ways weights from elsewhere are adopted: {@code upload} then {@code adopt-upload} or
 * {@code discard} (the body of {@code POST /api/models/:id/versions}, see {@link WeightsUpload}), {@code import} (a
 * file named in {@code training.importDir}, {@link ImportDir}) and, in-process only, {@code adopt} (weights another
 * node promoted, fetched by cluster/ModelVersionSync). Weights to adopt are checked against the network before they
 * are recorded ({@link WeightsCheck}): a refused adoption records nothing and leaves no file, and one whose swap
 * fails is forgotten. Copies and checks run on a lane of their own, so {@code versions} answers meanwhile. At start
 * it resumes the version that served last (with {@code training.resume}). One change at a time: a request while a
 * swap is under way gets 409. Publishes {@code swapped} and {@code rolled-back} on {@code argus.training.events}.
 */
public final class ModelRegistryVerticle extends VerticleBase {
    private static final System.Logger LOG = System.getLogger("argus.training.registry");
    /** Loading a large model (and building its GPU plans) may take a while. */
    private static final DeliveryOptions SWAP = new DeliveryOptions().setSendTimeout(300_000);

    /** Uploads staged at once (each holds a file and a connection). */
    static final int MAX_UPLOADS = 2;

    private final TrainingConfig config;
    private final InferenceVerticle model;
    private final StartupProgress progress;
    private final Map<String, Path> uploads = new HashMap<>(); // ticket to staged file, at most MAX_UPLOADS
    private BlockingLane lane;
    private BlockingLane intake; // copies and checks of weights to adopt: never in the way of the registry's lane
    private ModelRegistry registry; // on the lane's thread
    private WeightsCheck check;
    private Path dir;
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
        intake = new BlockingLane("argus-registry-intake-" + config.model(), Thread.NORM_PRIORITY - 1, context);
        LoadedModel serving = model.serving();
        check = new WeightsCheck(serving.model().spec(), config.maxWeightsBytes());
        dir = config.modelDir().resolve("versions");
        return lane.run(() -> {
                    OwnerOnly.privateDirectory(config.modelDir());
                    Path baseFile = serving.weightsFile();
                    if (baseFile == null) { // generated weights: training needs them as a file
                        OwnerOnly.privateDirectory(dir);
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
        uploads.values().forEach(WeightsIntake::discard);
        uploads.clear();
        lane.close();
        intake.close();
        return Future.succeededFuture();
    }

    private void handle(Message<JsonObject> msg) {
        JsonObject b = msg.body();
        String m = b.getString("model", config.model());
        if (!config.model().equals(m)) {
            msg.fail(404, "model " + Names.quoted(m) + " has no version history: online training is for \"" + config.model() + "\"");
            return;
        }
        String action = b.getString("action", "");
        Future<JsonObject> result;
        try {
            result = switch (action) {
                case "versions" -> lane.run(() -> registry.toJson().put("model", config.model()));
                case "active" -> lane.run(() -> registry.active().toJson().put("model", config.model()));
                case "add" -> change(() -> add(b));
                case "upload" -> Future.succeededFuture(upload());
                case "adopt-upload" -> change(() -> adoptUpload(b));
                case "discard" -> Future.succeededFuture(discard(b.getString("ticket")));
                case "import" -> change(() -> importFile(b.getString("file")));
                case "adopt" -> change(() -> adopt(b));
                case "weights" -> {
                    String version = ModelRegistry.requireVersion("version", b.getString("version"));
                    yield lane.run(() -> weightsOf(version));
                }
                case "rollback" -> change(this::rollback);
                default -> Future.failedFuture(new IllegalArgumentException("unknown action \"" + action
                        + "\" (versions, active, add, upload, adopt-upload, discard, import, adopt, weights, rollback)"));
            };
        } catch (RuntimeException e) {
            result = Future.failedFuture(e);
        }
        result.onComplete(ar -> {
            if (ar.succeeded()) msg.reply(ar.result());
            else msg.fail(DatasetVerticle.code(ar.cause()), ar.cause().getMessage());
        });
    }

    private Future<JsonObject> change(java.util.function.Supplier<Future<JsonObject>> work) {
        if (changing) return Future.failedFuture(new DatasetVerticle.Conflict("model " + config.model() + ": another version change is under way"));
        changing = true;
        Future<JsonObject> f;
        try {
            f = work.get();
        } catch (RuntimeException e) {
            f = Future.failedFuture(e); // refused before it began: the next change may come
        }
        return f.eventually(() -> {
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
     * A ticket for an upload ({@link WeightsUpload}): a new 0600 file in the registry's directory to stream the body
     * into, and the sizes weights of this network have. At most {@value #MAX_UPLOADS} at a time (429).
     */
    private JsonObject upload() {
        if (uploads.size() >= MAX_UPLOADS) {
            throw new RequestRefused(429, "model " + config.model() + ": " + uploads.size()
                    + " uploads of weights are under way (at most " + MAX_UPLOADS + "): try again when one has ended");
        }
        check.checkSize("body", check.longSize()); // the network's own weights above training.maxWeightsBytes: 413 now
        Path file;
        try {
            OwnerOnly.privateDirectory(dir);
            file = OwnerOnly.temporaryFile(dir, "upload-");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot stage an upload in " + dir + ": " + e.getMessage(), e);
        }
        String ticket = UUID.randomUUID().toString();
        uploads.put(ticket, file);
        return new JsonObject().put("ticket", ticket).put("file", file.toString())
                .put("sizes", new JsonArray().add(check.shortSize()).add(check.longSize()))
                .put("expected", check.expectedSize());
    }

    /** An upload that failed or was refused: its staged file goes. */
    private JsonObject discard(String ticket) {
        Path file = ticket != null ? uploads.remove(ticket) : null;
        if (file != null) intake.run(() -> {
            WeightsIntake.discard(file);
            return null;
        });
        return new JsonObject().put("discarded", file != null);
    }

    /** An upload that arrived whole ({@code ticket}, {@code sha256}, {@code bytes}): checked, then adopted. */
    private Future<JsonObject> adoptUpload(JsonObject b) {
        String ticket = b.getString("ticket");
        Path file = ticket != null ? uploads.remove(ticket) : null;
        if (file == null) return Future.failedFuture(new IllegalArgumentException("ticket: no upload " + Names.quoted(ticket) + " under way"));
        String sha256 = b.getString("sha256");
        if (sha256 == null || !sha256.matches("[0-9a-f]{64}")) {
            WeightsIntake.discard(file);
            return Future.failedFuture(new IllegalArgumentException("sha256: expected 64 hex digits, found " + Names.quoted(sha256)));
        }
        StagedWeights staged = new StagedWeights(file, sha256, b.getLong("bytes", -1L));
        return intake.run(() -> {
                    try {
                        check.checkFile("body", staged.file(), staged.bytes());
                        return staged;
                    } catch (RuntimeException e) {
                        WeightsIntake.discard(staged.file());
                        throw e;
                    }
                })
                .compose(s -> adoptStaged(s, null, "operator"));
    }

    /** A file an operator named in {@code training.importDir}: copied in, checked, then adopted. */
    private Future<JsonObject> importFile(String name) {
        if (name == null) return Future.failedFuture(new IllegalArgumentException("file: required (the name of a file in training.importDir)"));
        Path importDir = config.importDir();
        return intake.run(() -> WeightsIntake.copy("file", ImportDir.resolve(importDir, name), dir, check))
                .compose(s -> adoptStaged(s, null, "operator"));
    }

    /**
     * Weights of a version another node promoted, fetched into a local file by cluster/ModelVersionSync (in-process
     * only: this address takes no message from another node): {@code {"file", "version" (checked against the
     * content), "origin": "node <id>"}}.
     */
    private Future<JsonObject> adopt(JsonObject b) {
        String version = b.getString("version") != null ? ModelRegistry.requireVersion("version", b.getString("version")) : null;
        String file = b.getString("file");
        if (file == null) return Future.failedFuture(new IllegalArgumentException("file: required"));
        return intake.run(() -> WeightsIntake.copy("file", Path.of(file), dir, check))
                .compose(s -> adoptStaged(s, version, b.getString("origin", "operator")));
    }

    /** What adopting gave, and whether that version serves already. */
    private record Adoption(ModelRegistry.Adopted adopted, boolean serving) {}

    /**
     * Adopts staged, checked weights ({@code origin}: "node <id>" or "operator") and swaps them in; already serving
     * them: nothing to do. A version this adoption added and whose swap fails is forgotten (no record, no file).
     */
    private Future<JsonObject> adoptStaged(StagedWeights staged, String version, String origin) {
        String state = origin.equals("operator") ? "promoted by an operator" : "adopted from " + origin;
        return lane.run(() -> {
                    ModelRegistry.Adopted a = registry.adopt(staged, version, state);
                    return new Adoption(a, registry.active().version().equals(a.version().version()));
                })
                .compose(r -> {
                    ModelRegistry.Adopted a = r.adopted();
                    ModelRegistry.Version v = a.version();
                    if (r.serving()) return Future.succeededFuture(v.toJson().put("unchanged", true));
                    return swap(v.file(), v.version())
                            .recover(e -> a.added()
                                    ? lane.run(() -> {
                                        registry.forget(v.version());
                                        return null;
                                    }).transform(x -> Future.<JsonObject>failedFuture(e))
                                    : Future.failedFuture(e))
                            .compose(reply -> lane.run(() -> {
                                registry.activated(v.version());
                                return v.toJson().put("replaced", reply.getString("replaced"));
                            }))
                            .onSuccess(j -> publish("swapped", j.put("origin", origin)));
                });
    }

    /**
     * The weights file of a version kept here ({@link ModelRegistry#keptFile}: written by the registry, or the
     * configured base): {@code {"version", "file"}}; 404 for any other.
     */
    private JsonObject weightsOf(String version) {
        Path file = registry.keptFile(version);
        if (file == null) {
            throw new DatasetVerticle.NotFound("model " + config.model() + ": no weights kept for version " + Names.quoted(version));
        }
        return new JsonObject().put("version", version).put("file", file.toString());
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
