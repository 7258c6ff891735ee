package io.argus.pipeline.training;

import io.argus.detector.io.OwnerOnly;
import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.ServiceCall;
import io.argus.pipeline.base.RequestRefused;
import io.argus.pipeline.config.Names;
import io.argus.pipeline.config.TrainingConfig;
import io.argus.pipeline.inference.InferenceVerticle;
import io.argus.pipeline.inference.LoadedModel;
import io.argus.trainer.backends.TrainingBackends;
import io.argus.trainer.train.TrainingBackend;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * Fine-tunes the trained model on its collected, labelled frames: on the cron {@code training.schedule} (when labels
 * changed since the last run) or on demand ({@link TrainingService#runNow}, which it is). A run pins the labelled
 * frames ({@link DatasetService}), trains from the serving version ({@link ModelRegistryService}) on its
 * own thread at the lowest priority with a bounded CPU share ({@link FineTune}), scores serving and candidate weights on
 * the held-out frames, and hands the candidate to the registry with the {@link SwapDecision}: accepted ones are
 * swapped in, rejected ones are only recorded. One run at a time. Publishes {@code run-started}, {@code iteration}
 * (loss, loss scale), {@code evaluated} and {@code run-finished} on {@code argus.training.events}.
 */
public final class TrainerVerticle extends VerticleBase implements TrainingService {
    private static final System.Logger LOG = System.getLogger("argus.training");
    static final int KEEP_RUNS = 20;

    private final TrainingConfig config;
    private final InferenceVerticle model;
    private final ArrayDeque<RunRecord> runs = new ArrayDeque<>(); // newest first
    private final AtomicBoolean cancelled = new AtomicBoolean();
    private ExecutorService trainingThread;
    private BlockingLane lane;
    private RunRecord running;
    private TrainingBackends.Choice device;
    private long timer = -1;
    private ZonedDateTime nextRunAt;
    private long lastTrainedRevision = -1;
    private int nextId = 1;
    private boolean stopping;
    /** Why the last attempt to start a run did not; null once one started (status and log say it). */
    private String waiting;

    private final TrainerGate gate;
    private final DatasetService dataset;
    private final ModelRegistryService registry;

    /**
     * @param gate     in a cluster, whether this node is the one that fine-tunes the model now
     * @param dataset  the labelled frames a run trains on
     * @param registry where a run starts from (the active version) and where its candidate goes
     */
    public TrainerVerticle(TrainingConfig config, InferenceVerticle model, TrainerGate gate, DatasetService dataset,
                           ModelRegistryService registry) {
        this.config = config;
        this.model = model;
        this.gate = gate;
        this.dataset = dataset;
        this.registry = registry;
    }

    private Path runsDir() { return config.modelDir().resolve("runs"); }

    @Override
    public Future<?> start() {
        // resolved once, at start: cuda without a usable GPU fails the deployment with the reason
        device = TrainingBackends.choose(config.backend(), "training.backend");
        // CUDA's absence is told once per process (the start says it); here it is a detail
        if (device.note() != null) {
            LOG.log(io.argus.gpu.CudaRuntime.claimFallbackNotice() ? Level.INFO : Level.DEBUG, device.note());
        }
        trainingThread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "argus-trainer-" + config.model());
            t.setDaemon(true);
            t.setPriority(Thread.MIN_PRIORITY); // a hint where the OS honours it; ThrottledBatches is the bound
            return t;
        });
        lane = new BlockingLane("argus-runs-" + config.model(), Thread.NORM_PRIORITY - 1, context);
        return lane.run(this::loadRuns).map(loaded -> {
            for (RunRecord r : loaded) {
                runs.addLast(r);
                nextId = Math.max(nextId, r.id() + 1);
            }
            if (!runs.isEmpty()) lastTrainedRevision = runs.peekFirst().labelsRevision();
            scheduleNext();
            return null;
        });
    }

    @Override
    public Future<?> stop() {
        stopping = true;
        cancelled.set(true);
        if (timer >= 0) vertx.cancelTimer(timer);
        ExecutorService t = trainingThread;
        t.shutdown();
        lane.close();
        return vertx.executeBlocking(() -> t.awaitTermination(20, TimeUnit.SECONDS));
    }

    private List<RunRecord> loadRuns() throws Exception {
        List<RunRecord> out = new ArrayList<>();
        if (!Files.isDirectory(runsDir())) return out;
        try (Stream<Path> dirs = Files.list(runsDir())) {
            for (Path d : dirs.toList()) {
                Path f = d.resolve("run.json");
                if (!Files.isRegularFile(f)) continue;
                try {
                    out.add(RunRecord.fromJson(new JsonObject(Files.readString(f))));
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, f + ": not a run record, ignored: " + e.getMessage());
                }
            }
        }
        out.sort(Comparator.comparingInt(RunRecord::id).reversed());
        return out.size() > KEEP_RUNS ? out.subList(0, KEEP_RUNS) : out;
    }

    @Override
    public Future<TrainingStatus> status() {
        return ServiceCall.on(context, () -> Future.succeededFuture(currentStatus()));
    }

    @Override
    public Future<List<RunRecord>> runs(int limit) {
        return ServiceCall.on(context, () -> {
            List<RunRecord> out = new ArrayList<>();
            for (RunRecord r : runs) {
                if (out.size() >= limit) break;
                out.add(r.copy());
            }
            return Future.succeededFuture(List.copyOf(out));
        });
    }

    @Override
    public Future<RunRecord> run(int id) {
        return ServiceCall.on(context, () -> {
            if (id < 0) {
                throw new IllegalArgumentException("run id: expected a run number (0-" + Integer.MAX_VALUE + "), found " + Names.quoted(String.valueOf(id)));
            }
            Optional<RunRecord> r = runs.stream().filter(x -> x.id() == id).findFirst();
            return r.isPresent() ? Future.succeededFuture(r.get().copy())
                    : Future.failedFuture(RequestRefused.notFound("no run " + id + " (the last " + KEEP_RUNS + " are kept)"));
        });
    }

    @Override
    public Future<RunRecord> runNow() {
        return ServiceCall.on(context, () -> startRun("manual").map(RunRecord::copy));
    }

    @Override
    public Future<RunRecord> cancel() {
        return ServiceCall.on(context, () -> {
            if (running == null) return Future.failedFuture(RequestRefused.conflict("no run in progress"));
            cancelled.set(true);
            return Future.succeededFuture(running.copy());
        });
    }

    private TrainingStatus currentStatus() {
        LoadedModel serving = model.serving();
        return new TrainingStatus(config.model(), serving != null ? serving.version() : null,
                config.schedule() != null ? config.schedule().expression() : null,
                config.schedule() != null ? config.schedule().describe() : "on demand only",
                nextRunAt != null ? nextRunAt.toInstant().toEpochMilli() : null, gate.elsewhere(),
                running != null ? running.copy() : null, config.backendWord(),
                device.kind().name().toLowerCase(java.util.Locale.ROOT),
                device.cuda() ? config.cuda().modeName() : "fp32", config.iterations(), config.batch(),
                config.learningRate(), config.cpuShare(), config.minTrainFrames(), config.minValFrames(),
                config.minValObjectsPerClass(), config.mapTolerance(), config.collect().enabled(),
                config.teacher() != null ? config.teacher().cfg().getFileName().toString() : null, lastTrainedRevision,
                waiting);
    }

    /** Arms the timer for the schedule's next time. */
    private void scheduleNext() {
        if (config.schedule() == null || stopping) return;
        ZonedDateTime now = ZonedDateTime.now();
        Optional<ZonedDateTime> next = config.schedule().next(now);
        if (next.isEmpty()) {
            nextRunAt = null;
            return;
        }
        nextRunAt = next.get();
        long delay = Math.max(1, Duration.between(now, nextRunAt).toMillis());
        timer = vertx.setTimer(delay, t -> {
            timer = -1;
            onSchedule();
            scheduleNext();
        });
    }

    /** A scheduled time: runs when nothing runs and the labels changed since the last run. */
    private void onSchedule() {
        if (running != null) return;
        dataset.labelsRevision().onSuccess(revision -> {
            if (revision == lastTrainedRevision || running != null) return;
            startRun("schedule").onFailure(e -> LOG.log(Level.DEBUG, "scheduled run skipped: " + e.getMessage()));
        });
    }

    /** Starts a run; completes (with its record) once it started, or fails with why it cannot. */
    private Future<RunRecord> startRun(String trigger) {
        if (running != null) return Future.failedFuture(RequestRefused.conflict("run " + running.id() + " is in progress"));
        String away = gate.elsewhere();
        if (away != null) return Future.failedFuture(RequestRefused.conflict(away));
        if (stopping) return Future.failedFuture(RequestRefused.conflict("stopping"));
        LoadedModel serving = model.serving();
        RunRecord placeholder = new RunRecord(0, config.model(), trigger, serving.version(), config.iterations(), -1, 0, 0, 0);
        running = placeholder; // taken now: a second request gets 409 while the data is gathered
        cancelled.set(false);
        return dataset.pin().compose(snap -> {
                    List<Path> train = snap.train(), val = snap.val();
                    if (train.size() < config.minTrainFrames() || val.size() < config.minValFrames()) {
                        return Future.failedFuture(RequestRefused.conflict(waitFor("not enough labelled frames: "
                                + train.size() + " for training (need " + config.minTrainFrames() + "), " + val.size()
                                + " held out (need " + config.minValFrames() + ")")));
                    }
                    // the swap gate would refuse any candidate: no run until the held-out frames can tell
                    String fewObjects = SwapDecision.waiting(snap.valObjectsPerClass(), config.minValObjectsPerClass());
                    if (fewObjects != null) return Future.failedFuture(RequestRefused.conflict(waitFor(fewObjects)));
                    waiting = null;
                    int id = nextId++;
                    Path dir = runsDir().resolve(Integer.toString(id));
                    return registry.active()
                            .compose(active -> lane.run(() -> {
                                OwnerOnly.privateDirectory(dir.getParent());
                                OwnerOnly.privateDirectory(dir);
                                DatasetStore.write(dir.resolve("train.txt"), lines(train));
                                DatasetStore.write(dir.resolve("val.txt"), lines(val));
                                return active;
                            }))
                            .map(active -> {
                                RunRecord r = new RunRecord(id, config.model(), trigger, active.version(),
                                        config.iterations(), snap.labelsRevision(), train.size(), val.size(),
                                        snap.valObjects());
                                running = r;
                                runs.addFirst(r);
                                while (runs.size() > KEEP_RUNS) runs.removeLast();
                                FineTune.Inputs in = new FineTune.Inputs(model.modelConfig().cfg(),
                                        serving.model().spec().net().width(), serving.model().spec().net().height(),
                                        serving.model().names(), active.file(),
                                        dir.resolve("train.txt"), dir.resolve("val.txt"),
                                        dir.resolve("candidate.weights"), config.seed() + id);
                                publish("run-started", new JsonObject().put("run", r.json.copy()));
                                train(r, in, snap.valObjectsPerClass());
                                return r;
                            });
                })
                .onFailure(e -> {
                    if (running == placeholder) running = null;
                    dataset.unpin();
                });
    }

    /** Notes why no run starts, logged once per new reason (a schedule retries on every label change). */
    private String waitFor(String why) {
        if (!why.equals(waiting)) LOG.log(Level.INFO, "fine-tunes of " + config.model() + ": " + why);
        waiting = why;
        return why;
    }

    private void train(RunRecord r, FineTune.Inputs in, java.util.Map<String, Integer> heldOutPerClass) {
        Promise<FineTune.Result> done = Promise.promise();
        FineTune.Listener listener = new FineTune.Listener() {
            @Override
            public void onStart(TrainingBackend backend, int trainImages, int valImages) {
                String kind = backend.kind(), precision = backend.precision(), name = backend.name();
                context.runOnContext(v -> r.started(kind, precision, name));
            }

            @Override
            public void onIteration(io.argus.trainer.train.IterationStats s) {
                context.runOnContext(v -> {
                    r.iteration(s);
                    publish("iteration", new JsonObject().put("run", r.id()).put("iteration", s.iteration())
                            .put("of", s.maxBatches()).put("loss", RunRecord.round(s.lossPerImage().total()))
                            .put("lossScale", s.lossScale()).put("learningRate", s.learningRate())
                            .put("applied", s.applied()).put("skippedSteps", s.skipped()));
                });
            }
        };
        try {
            trainingThread.execute(() -> {
                try {
                    FineTune.Result res = FineTune.run(config, device, in, listener, cancelled::get);
                    context.runOnContext(v -> done.complete(res));
                } catch (Throwable e) {
                    context.runOnContext(v -> done.fail(e));
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            done.fail(new IllegalStateException("stopping"));
        }
        done.future()
                .compose(res -> {
                    r.evaluated(res.before(), res.after(), res.busySeconds(), res.sleptSeconds(), res.lossScale(), res.skipped());
                    SwapDecision d = SwapDecision.decide(res.before().map50(), res.after().map50(), config.mapTolerance(),
                            res.before().truths(), heldOutPerClass, config.minValObjectsPerClass());
                    publish("evaluated", new JsonObject().put("run", r.id()).put("mapBefore", res.before().map50())
                            .put("mapAfter", res.after().map50()).put("accept", d.accept()).put("reason", d.reason()));
                    // the trainer moved to another node meanwhile (this one was cut off): never promote here
                    String moved = gate.elsewhere();
                    boolean accept = d.accept() && moved == null;
                    String reason = moved == null ? d.reason() : "discarded: " + moved;
                    return registry.addCandidate(in.candidate(), r.id(), res.before().map50(), res.after().map50(), accept)
                            .map(v -> {
                                r.finish(accept ? "swapped" : "rejected", reason, v.version().version());
                                return r;
                            });
                })
                .onFailure(e -> {
                    String why = e instanceof java.util.concurrent.CancellationException ? "cancelled" : String.valueOf(e.getMessage());
                    r.failed(why);
                    if (!(e instanceof java.util.concurrent.CancellationException)) {
                        LOG.log(Level.WARNING, "fine-tune run " + r.id() + " of " + config.model() + " failed", e);
                    }
                })
                .onComplete(ar -> {
                    running = null;
                    lastTrainedRevision = r.labelsRevision();
                    dataset.unpin();
                    JsonObject snapshot = r.json.copy();
                    lane.run(() -> {
                        Files.deleteIfExists(in.candidate());
                        DatasetStore.write(in.candidate().resolveSibling("run.json"), snapshot.encodePrettily());
                        return null;
                    }).onFailure(e -> LOG.log(Level.WARNING, "fine-tune run " + r.id() + " of " + config.model()
                            + ": its record was not saved (" + e.getMessage() + "); it is lost at the next start"));
                    LOG.log(Level.INFO, "fine-tune run " + r.id() + " of " + config.model() + ": " + r.state()
                            + (r.json.getString("reason") != null ? " (" + r.json.getString("reason") + ")" : ""));
                    publish("run-finished", new JsonObject().put("run", snapshot));
                });
    }

    /** A list file as Files.write(List) wrote it: one line each, each ended by a newline. */
    private static String lines(List<Path> files) {
        StringBuilder b = new StringBuilder();
        for (Path p : files) b.append(p).append('\n');
        return b.toString();
    }

    private void publish(String event, JsonObject body) {
        vertx.eventBus().publish(Addresses.TRAINING_EVENTS, Addresses.TrainingEvent.of(event, config.model())
                .with(body).toJson());
    }
}
