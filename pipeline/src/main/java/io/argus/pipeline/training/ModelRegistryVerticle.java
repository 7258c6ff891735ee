package io.argus.pipeline.training;

import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.io.OwnerOnly;
import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.RequestRefused;
import io.argus.pipeline.base.ServiceCall;
import io.argus.pipeline.base.StartupProgress;
import io.argus.pipeline.config.Names;
import io.argus.pipeline.config.TrainingConfig;
import io.argus.pipeline.inference.InferenceVerticle;
import io.argus.pipeline.inference.LoadedModel;
import io.argus.pipeline.inference.ModelControl;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The versions of the trained model and the only one who swaps them ({@link ModelRegistry} on disk, swaps through the
 * model's {@link ModelControl}). It is the {@link ModelRegistryService}: the versions, the active one, a fine-tune's
 * candidate with its held-out mAP before and after and whether it is accepted (accepted ones are swapped in), a
 * rollback, a kept version's weights (for another node), and the three ways weights from elsewhere are adopted: an
 * upload then its adoption or discard (the body of {@code POST /api/models/:id/versions}, see {@link WeightsUpload}),
 * an import (a file named in {@code training.importDir}, {@link ImportDir}) and an adoption of weights another node
 * promoted, fetched by cluster/ModelVersionSync. Weights to adopt are checked against the network before they
 * are recorded ({@link WeightsCheck}): a refused adoption records nothing and leaves no file, and one whose swap
 * fails is forgotten. Copies and checks run on a lane of their own, so {@code versions} answers meanwhile. At start
 * it resumes the version that served last (with {@code training.resume}). One change at a time: a request while a
 * swap is under way gets 409. Publishes {@code swapped} and {@code rolled-back} on {@code argus.training.events}.
 */
public final class ModelRegistryVerticle extends VerticleBase implements ModelRegistryService {
    private static final System.Logger LOG = System.getLogger("argus.training.registry");
    /** Loading a large model (and building its GPU plans) may take a while; a swap that takes longer has failed. */
    private static final long SWAP_SECONDS = 300;

    /** Uploads staged at once (each holds a file and a connection). */
    static final int MAX_UPLOADS = 2;

    private final TrainingConfig config;
    private final InferenceVerticle model;
    private final ModelControl control;
    private final StartupProgress progress;
    private final Map<String, Path> uploads = new HashMap<>(); // ticket to staged file, at most MAX_UPLOADS
    private BlockingLane lane;
    private BlockingLane intake; // copies and checks of weights to adopt: never in the way of the registry's lane
    private ModelRegistry registry; // on the lane's thread
    private WeightsCheck check;
    private Path dir;
    private boolean changing;

    public ModelRegistryVerticle(TrainingConfig config, InferenceVerticle model) {
        this(config, model, StartupProgress.NONE);
    }

    /** {@code progress}: told about resuming a trained version at start (loading and warming it up). */
    public ModelRegistryVerticle(TrainingConfig config, InferenceVerticle model, StartupProgress progress) {
        this.config = config;
        this.model = model;
        this.control = model;
        this.progress = progress;
    }

    @Override
    public String model() { return config.model(); }

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
        uploads.values().forEach(WeightsIntake::discard);
        uploads.clear();
        lane.close();
        intake.close();
        return Future.succeededFuture();
    }

    @Override
    public Future<VersionHistory> versions() {
        return ServiceCall.on(context, () -> lane.run(() -> registry.history().withModel(config.model())));
    }

    @Override
    public Future<ModelRegistry.Version> active() {
        return ServiceCall.on(context, () -> lane.run(() -> registry.active()));
    }

    @Override
    public Future<VersionChange> addCandidate(Path weights, int run, double mapBefore, double mapAfter, boolean accepted) {
        return ServiceCall.on(context, () -> change(() -> add(weights, run, mapBefore, mapAfter, accepted)));
    }

    @Override
    public Future<UploadTicket> upload() {
        return ServiceCall.on(context, () -> Future.succeededFuture(stageUpload()));
    }

    @Override
    public Future<VersionChange> adoptUpload(String ticket, String sha256, long bytes) {
        return ServiceCall.on(context, () -> change(() -> adoptUploaded(ticket, sha256, bytes)));
    }

    @Override
    public Future<Boolean> discard(String ticket) {
        return ServiceCall.on(context, () -> Future.succeededFuture(discardUpload(ticket)));
    }

    @Override
    public Future<VersionChange> importFile(String name) {
        return ServiceCall.on(context, () -> change(() -> importNamed(name)));
    }

    @Override
    public Future<VersionChange> adopt(Path file, String version, String origin) {
        return ServiceCall.on(context, () -> {
            if (version != null) ModelRegistry.requireVersion("version", version);
            return change(() -> adoptFetched(file, version, origin));
        });
    }

    @Override
    public Future<Path> weights(String version) {
        return ServiceCall.on(context, () -> lane.run(() -> weightsOf(ModelRegistry.requireVersion("version", version))));
    }

    @Override
    public Future<VersionChange> rollback() {
        return ServiceCall.on(context, () -> change(this::rollBack));
    }

    private Future<VersionChange> change(java.util.function.Supplier<Future<VersionChange>> work) {
        if (changing) return Future.failedFuture(RequestRefused.conflict("model " + config.model() + ": another version change is under way"));
        changing = true;
        Future<VersionChange> f;
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
    private Future<VersionChange> add(Path weights, int run, double mapBefore, double mapAfter, boolean accepted) {
        return lane.run(() -> registry.addCandidate(weights, run, mapBefore, mapAfter, accepted))
                .compose(v -> {
                    if (!accepted) return Future.succeededFuture(new VersionChange(v, null, false, null));
                    return swap(v.file(), v.version())
                            .compose(swapped -> lane.run(() -> {
                                registry.activated(v.version());
                                return new VersionChange(v, swapped.replaced(), false, null);
                            }))
                            .onSuccess(c -> publish("swapped", c));
                });
    }

    /**
     * A ticket for an upload ({@link WeightsUpload}): a new 0600 file in the registry's directory to stream the body
     * into, and the sizes weights of this network have. At most {@value #MAX_UPLOADS} at a time (429).
     */
    private UploadTicket stageUpload() {
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
        return new UploadTicket(ticket, file, check.shortSize(), check.longSize(), check.expectedSize());
    }

    /** An upload that failed or was refused: its staged file goes. */
    private boolean discardUpload(String ticket) {
        Path file = ticket != null ? uploads.remove(ticket) : null;
        if (file != null) intake.run(() -> {
            WeightsIntake.discard(file);
            return null;
        });
        return file != null;
    }

    /** An upload that arrived whole ({@code ticket}, {@code sha256}, {@code bytes}): checked, then adopted. */
    private Future<VersionChange> adoptUploaded(String ticket, String sha256, long bytes) {
        Path file = ticket != null ? uploads.remove(ticket) : null;
        if (file == null) return Future.failedFuture(new IllegalArgumentException("ticket: no upload " + Names.quoted(ticket) + " under way"));
        if (sha256 == null || !sha256.matches("[0-9a-f]{64}")) {
            WeightsIntake.discard(file);
            return Future.failedFuture(new IllegalArgumentException("sha256: expected 64 hex digits, found " + Names.quoted(sha256)));
        }
        StagedWeights staged = new StagedWeights(file, sha256, bytes);
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
    private Future<VersionChange> importNamed(String name) {
        if (name == null) return Future.failedFuture(new IllegalArgumentException("file: required (the name of a file in training.importDir)"));
        Path importDir = config.importDir();
        return intake.run(() -> WeightsIntake.copy("file", ImportDir.resolve(importDir, name), dir, check))
                .compose(s -> adoptStaged(s, null, "operator"));
    }

    /**
     * Weights of a version another node promoted, fetched into a local file by cluster/ModelVersionSync
     * ({@code version}: checked against the content; {@code origin}: "node <id>").
     */
    private Future<VersionChange> adoptFetched(Path file, String version, String origin) {
        if (file == null) return Future.failedFuture(new IllegalArgumentException("file: required"));
        return intake.run(() -> WeightsIntake.copy("file", file, dir, check))
                .compose(s -> adoptStaged(s, version, origin != null ? origin : "operator"));
    }

    /** What adopting gave, and whether that version serves already. */
    private record Adoption(ModelRegistry.Adopted adopted, boolean serving) {}

    /**
     * Adopts staged, checked weights ({@code origin}: "node <id>" or "operator") and swaps them in; already serving
     * them: nothing to do. A version this adoption added and whose swap fails is forgotten (no record, no file).
     */
    private Future<VersionChange> adoptStaged(StagedWeights staged, String version, String origin) {
        String state = origin.equals("operator") ? "promoted by an operator" : "adopted from " + origin;
        return lane.run(() -> {
                    ModelRegistry.Adopted a = registry.adopt(staged, version, state);
                    return new Adoption(a, registry.active().version().equals(a.version().version()));
                })
                .compose(r -> {
                    ModelRegistry.Adopted a = r.adopted();
                    ModelRegistry.Version v = a.version();
                    if (r.serving()) return Future.succeededFuture(new VersionChange(v, null, true, null));
                    return swap(v.file(), v.version())
                            .recover(e -> a.added()
                                    ? lane.run(() -> {
                                        registry.forget(v.version());
                                        return null;
                                    }).transform(x -> Future.<ModelControl.Swapped>failedFuture(e))
                                    : Future.failedFuture(e))
                            .compose(swapped -> lane.run(() -> {
                                registry.activated(v.version());
                                return new VersionChange(v, swapped.replaced(), false, origin);
                            }))
                            .onSuccess(c -> publish("swapped", c));
                });
    }

    /**
     * The weights file of a version kept here ({@link ModelRegistry#keptFile}: written by the registry, or the
     * configured base); 404 for any other.
     */
    private Path weightsOf(String version) {
        Path file = registry.keptFile(version);
        if (file == null) {
            throw RequestRefused.notFound("model " + config.model() + ": no weights kept for version " + Names.quoted(version));
        }
        return file;
    }

    private Future<VersionChange> rollBack() {
        return lane.run(() -> {
                    ModelRegistry.Version prev = registry.previous();
                    if (prev == null) {
                        throw RequestRefused.conflict("model " + config.model() + ": no previous version to roll back to (serving "
                                + registry.active().version() + ")");
                    }
                    return prev;
                })
                .compose(prev -> swap(prev.file(), prev.version())
                        .compose(swapped -> lane.run(() -> {
                            registry.rolledBack();
                            return new VersionChange(prev, swapped.replaced(), false, null);
                        })))
                .onSuccess(c -> publish("rolled-back", c));
    }

    private Future<ModelControl.Swapped> swap(Path file, String version) {
        return control.swap(file, version).timeout(SWAP_SECONDS, TimeUnit.SECONDS);
    }

    /** {@code swapped} or {@code rolled-back} on the training events, the change as the REST API shows it. */
    private void publish(String event, VersionChange change) {
        vertx.eventBus().publish(Addresses.TRAINING_EVENTS, Addresses.TrainingEvent.of(event, config.model())
                .with("version", change.toJson()).toJson());
    }
}
