package io.argus.pipeline.training;

import io.argus.detector.io.OwnerOnly;
import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.config.Names;
import io.argus.pipeline.config.TrainingConfig;
import io.argus.pipeline.inference.InferenceVerticle;
import io.argus.pipeline.inference.LoadedModel;
import io.argus.trainer.backends.TrainingBackends;
import io.argus.trainer.train.TrainingBackend;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
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
 * changed since the last run) or on demand ({@code {"action": "start"}} on {@code argus.control.training}). A run pins
 * the labelled frames ({@link DatasetVerticle}), trains from the serving version ({@link ModelRegistryVerticle}) on its
 * own thread at the lowest priority with a bounded CPU share ({@link FineTune}), scores serving and candidate weights on
 * the held-out frames, and hands the candidate to the registry with the {@link SwapDecision}: accepted ones are
 * swapped in, rejected ones are only recorded. One run at a time. Publishes {@code run-started}, {@code iteration}
 * (loss, loss scale), {@code evaluated} and {@code run-finished} on {@code argus.training.events}; answers
 * {@code status}, {@code runs}, {@code run}, {@code start}, {@code cancel}.
 */
public final class TrainerVerticle extends VerticleBase {
    private static final System.Logger LOG = System.getLogger("argus.training");
    private static final int KEEP_RUNS = 20;

    private final TrainingConfig config;
    private final InferenceVerticle model;
    private final ArrayDeque<RunRecord> runs = new ArrayDeque<>(); // newest first
    private final AtomicBoolean cancelled = new AtomicBoolean();
    private ExecutorService trainingThread;
    private BlockingLane lane;
    private MessageConsumer<JsonObject> consumer;
    private RunRecord running;
    private TrainingBackends.Choice device;
    private long timer = -1;
    private ZonedDateTime nextRunAt;
    private long lastTrainedRevision = -1;
    private int nextId = 1;
    private boolean stopping;

    private final TrainerGate gate;

    public TrainerVerticle(TrainingConfig config, InferenceVerticle model) {
        this(config, model, TrainerGate.HERE);
    }

    /** {@code gate}: in a cluster, whether this node is the one that fine-tunes the model now. */
    public TrainerVerticle(TrainingConfig config, InferenceVerticle model, TrainerGate gate) {
        this.config = config;
        this.model = model;
        this.gate = gate;
    }

    private Path runsDir() { return config.modelDir().resolve("runs"); }

    @Override
    public Future<?> start() {
        // resolved once, at start: cuda without a usable GPU fails the deployment with the reason
        device = TrainingBackends.choose(config.backend(), "training.backend");
        if (device.note() != null) LOG.log(Level.INFO, device.note());
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
            consumer = vertx.eventBus().localConsumer(Addresses.TRAINING_CONTROL, this::handle);
            scheduleNext();
            return null;
        });
    }

    @Override
    public Future<?> stop() {
        stopping = true;
        cancelled.set(true);
        if (timer >= 0) vertx.cancelTimer(timer);
        if (consumer != null) consumer.unregister();
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

    private void handle(Message<JsonObject> msg) {
        JsonObject b = msg.body();
        String action = b.getString("action", "");
        switch (action) {
            case "status" -> msg.reply(status());
            case "runs" -> {
                JsonArray a = new JsonArray();
                int limit = b.getInteger("limit", KEEP_RUNS);
                for (RunRecord r : runs) {
                    if (a.size() >= limit) break;
                    a.add(r.json);
                }
                msg.reply(a);
            }
            case "run" -> {
                Object raw = b.getValue("id");
                if (!(raw instanceof Integer id) || id < 0) {
                    msg.fail(400, "run id: expected a run number (0-" + Integer.MAX_VALUE + "), found " + Names.quoted(String.valueOf(raw)));
                    return;
                }
                Optional<RunRecord> r = runs.stream().filter(x -> x.id() == id).findFirst();
                if (r.isPresent()) msg.reply(r.get().json);
                else msg.fail(404, "no run " + id + " (the last " + KEEP_RUNS + " are kept)");
            }
            case "start" -> startRun("manual").onComplete(ar -> {
                if (ar.succeeded()) msg.reply(ar.result().json);
                else msg.fail(DatasetVerticle.code(ar.cause()), ar.cause().getMessage());
            });
            case "cancel" -> {
                if (running == null) {
                    msg.fail(409, "no run in progress");
                } else {
                    cancelled.set(true);
                    msg.reply(running.json);
                }
            }
            default -> msg.fail(400, "unknown action \"" + action + "\" (status, runs, run, start, cancel)");
        }
    }

    private JsonObject status() {
        LoadedModel serving = model.serving();
        return new JsonObject().put("enabled", true).put("model", config.model())
                .put("serving", serving != null ? serving.version() : null)
                .put("schedule", config.schedule() != null ? config.schedule().expression() : null)
                .put("scheduleText", config.schedule() != null ? config.schedule().describe() : "on demand only")
                .put("nextRunAt", nextRunAt != null ? nextRunAt.toInstant().toEpochMilli() : null)
                .put("trainerHere", gate.elsewhere() == null).put("trainerElsewhere", gate.elsewhere())
                .put("running", running != null ? running.json : null)
                .put("backend", config.backendWord()).put("runsOn", device.kind().name().toLowerCase(java.util.Locale.ROOT))
                .put("precision", device.cuda() ? config.cuda().modeName() : "fp32")
                .put("iterations", config.iterations()).put("batch", config.batch())
                .put("learningRate", config.learningRate()).put("cpuShare", config.cpuShare())
                .put("minTrainFrames", config.minTrainFrames()).put("minValFrames", config.minValFrames())
                .put("mapTolerance", config.mapTolerance()).put("collecting", config.collect().enabled())
                .put("teacher", config.teacher() != null ? config.teacher().cfg().getFileName().toString() : null)
                .put("lastTrainedRevision", lastTrainedRevision);
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
        request(Addresses.DATASET_CONTROL, new JsonObject().put("action", "revision")).onSuccess(r -> {
            long revision = r.getLong("labelsRevision");
            if (revision == lastTrainedRevision || running != null) return;
            startRun("schedule").onFailure(e -> LOG.log(Level.DEBUG, "scheduled run skipped: " + e.getMessage()));
        });
    }

    /** Starts a run; completes (with its record) once it started, or fails with why it cannot. */
    private Future<RunRecord> startRun(String trigger) {
        if (running != null) return Future.failedFuture(new DatasetVerticle.Conflict("run " + running.id() + " is in progress"));
        String away = gate.elsewhere();
        if (away != null) return Future.failedFuture(new DatasetVerticle.Conflict(away));
        if (stopping) return Future.failedFuture(new DatasetVerticle.Conflict("stopping"));
        LoadedModel serving = model.serving();
        RunRecord placeholder = new RunRecord(0, config.model(), trigger, serving.version(), config.iterations(), -1, 0, 0, 0);
        running = placeholder; // taken now: a second request gets 409 while the data is gathered
        cancelled.set(false);
        Future<JsonObject> pinned = request(Addresses.DATASET_CONTROL, new JsonObject().put("action", "pin"));
        return pinned.compose(snap -> {
                    JsonArray train = snap.getJsonArray("train"), val = snap.getJsonArray("val");
                    if (train.size() < config.minTrainFrames() || val.size() < config.minValFrames()) {
                        return Future.failedFuture(new DatasetVerticle.Conflict("not enough labelled frames: " + train.size()
                                + " for training (need " + config.minTrainFrames() + "), " + val.size()
                                + " held out (need " + config.minValFrames() + ")"));
                    }
                    int id = nextId++;
                    Path dir = runsDir().resolve(Integer.toString(id));
                    return request(Addresses.REGISTRY_CONTROL, new JsonObject().put("action", "active"))
                            .compose(active -> lane.run(() -> {
                                OwnerOnly.privateDirectory(dir.getParent());
                                OwnerOnly.privateDirectory(dir);
                                DatasetStore.write(dir.resolve("train.txt"), lines(train));
                                DatasetStore.write(dir.resolve("val.txt"), lines(val));
                                return active;
                            }))
                            .map(active -> {
                                RunRecord r = new RunRecord(id, config.model(), trigger, active.getString("version"),
                                        config.iterations(), snap.getLong("labelsRevision"), train.size(), val.size(),
                                        snap.getInteger("valObjects"));
                                running = r;
                                runs.addFirst(r);
                                while (runs.size() > KEEP_RUNS) runs.removeLast();
                                FineTune.Inputs in = new FineTune.Inputs(model.modelConfig().cfg(),
                                        serving.model().spec().net().width(), serving.model().spec().net().height(),
                                        serving.model().names(), Path.of(active.getString("file")),
                                        dir.resolve("train.txt"), dir.resolve("val.txt"),
                                        dir.resolve("candidate.weights"), config.seed() + id);
                                publish("run-started", new JsonObject().put("run", r.json.copy()));
                                train(r, in);
                                return r;
                            });
                })
                .onFailure(e -> {
                    if (running == placeholder) running = null;
                    request(Addresses.DATASET_CONTROL, new JsonObject().put("action", "unpin"));
                });
    }

    private void train(RunRecord r, FineTune.Inputs in) {
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
                            res.before().truths());
                    publish("evaluated", new JsonObject().put("run", r.id()).put("mapBefore", res.before().map50())
                            .put("mapAfter", res.after().map50()).put("accept", d.accept()).put("reason", d.reason()));
                    // the trainer moved to another node meanwhile (this one was cut off): never promote here
                    String moved = gate.elsewhere();
                    boolean accept = d.accept() && moved == null;
                    String reason = moved == null ? d.reason() : "discarded: " + moved;
                    return request(Addresses.REGISTRY_CONTROL, new JsonObject().put("action", "add")
                            .put("file", in.candidate().toString()).put("run", r.id())
                            .put("mapBefore", res.before().map50()).put("mapAfter", res.after().map50())
                            .put("accepted", accept))
                            .map(v -> {
                                r.finish(accept ? "swapped" : "rejected", reason, v.getString("version"));
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
                    request(Addresses.DATASET_CONTROL, new JsonObject().put("action", "unpin"));
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

    private Future<JsonObject> request(String address, JsonObject body) {
        // a swap behind a registry request may load a large model
        return vertx.eventBus().<JsonObject>request(address, body, new DeliveryOptions().setSendTimeout(300_000))
                .map(Message::body);
    }

    /** A list file as Files.write(List) wrote it: one line each, each ended by a newline. */
    private static String lines(JsonArray a) {
        StringBuilder b = new StringBuilder();
        for (Object o : a) b.append((String) o).append('\n');
        return b.toString();
    }

    private void publish(String event, JsonObject body) {
        vertx.eventBus().publish(Addresses.TRAINING_EVENTS, body.put("type", "training").put("event", event)
                .put("model", config.model()));
    }
}
