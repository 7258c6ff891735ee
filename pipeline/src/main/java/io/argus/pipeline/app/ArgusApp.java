package io.argus.pipeline.app;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.ArgusMetrics;
import io.argus.pipeline.base.ClientChosenLabels;
import io.argus.pipeline.base.EventBusMeters;
import io.argus.pipeline.base.NativeMemoryMeters;
import io.argus.pipeline.base.StartupProgress;
import io.argus.pipeline.camera.CameraOverlay;
import io.argus.pipeline.camera.CameraSupervisor;
import io.argus.pipeline.recording.RecordingVerticle;
import io.argus.pipeline.camera.Cameras;
import io.argus.pipeline.cluster.CameraOwnership;
import io.argus.pipeline.cluster.ModelVersionSync;
import io.argus.pipeline.cluster.TrainerSingleton;
import io.argus.pipeline.training.TrainerGate;
import io.argus.pipeline.cluster.ClusterCamerasVerticle;
import io.argus.pipeline.cluster.ClusterChanges;
import io.argus.pipeline.cluster.ClusterEventBus;
import io.argus.pipeline.config.ClusterConfig;
import io.argus.pipeline.cluster.ClusterKeys;
import io.argus.pipeline.cluster.ClusterMaps;
import io.argus.pipeline.config.SecretSetting;
import io.argus.pipeline.cluster.InvalidValues;
import io.argus.pipeline.cluster.HazelcastSettings;
import io.argus.pipeline.cluster.HeldLeases;
import io.argus.pipeline.cluster.NodeRecordings;
import io.argus.pipeline.cluster.NodeSnapshots;
import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.ConfigLoader;
import io.argus.pipeline.frames.FrameCodec;
import io.argus.pipeline.http.ApiServices;
import io.argus.pipeline.http.HttpVerticle;
import io.argus.pipeline.inference.InferenceVerticle;
import io.argus.pipeline.config.ModelConfig;
import io.argus.pipeline.events.EventQueries;
import io.argus.pipeline.events.EventsVerticle;
import io.argus.pipeline.events.MqttMeters;
import io.argus.pipeline.events.MqttOutputVerticle;
import io.argus.pipeline.publish.Provenance;
import io.argus.pipeline.publish.Snapshots;
import io.argus.pipeline.training.DatasetService;
import io.argus.pipeline.training.DatasetVerticle;
import io.argus.pipeline.training.ModelRegistryService;
import io.argus.pipeline.training.ModelRegistryVerticle;
import io.argus.pipeline.training.TrainerVerticle;
import io.argus.pipeline.training.TrainingService;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.micrometer.VertxPrometheusOptions;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.bytedeco.ffmpeg.global.avutil;
import org.bytedeco.javacv.FFmpegFrameGrabber;

/**
 * The running application: one Vert.x instance with, in deployment order, an {@link InferenceVerticle} per model
 * (ready once its model is loaded), with online training the {@link ModelRegistryVerticle} (which may resume a
 * fine-tuned version), the {@link CameraSupervisor} (a camera verticle per camera), with online training the
 * {@link DatasetVerticle} and {@link TrainerVerticle}, and the {@link HttpVerticle}. Any failure on the way stops everything and fails the start with the reason.
 *
 * <p>With {@code cluster.enabled} (docs/cluster.md) Vert.x runs clustered over Hazelcast; the camera supervisor then
 * starts no camera by itself: the {@link ClusterCamerasVerticle} adds the configured cameras to the cluster-wide list
 * and the {@link CameraOwnership} verticle starts those whose lease this node holds.
 */
public final class ArgusApp {
    private static final System.Logger LOG = System.getLogger("argus");

    private final Vertx vertx;
    private final ArgusConfig config;
    private final ArgusMetrics metrics;
    private final Snapshots snapshots;
    private final StartupProgress progress;
    private final List<InferenceVerticle> models = new ArrayList<>();
    private final HazelcastClusterManager cluster; // null on a single node
    private final HeldLeases leases;               // null on a single node
    private HttpVerticle http;
    private MqttOutputVerticle mqtt;   // null unless mqtt.enabled
    private CameraSupervisor cameras;
    private RecordingVerticle recordings;
    private ClusterCamerasVerticle clusterCameras;  // null on a single node
    private ClusterChanges clusterChanges;           // null on a single node
    private EventsVerticle events;
    /** The runtime changes to the camera list (single node; null in a cluster) and the cameras they leave to run. */
    private CameraOverlay overlay;
    private CameraOverlay.Effective effective;
    private DurableCameras durable;
    private ModelRegistryVerticle registry;         // null, with dataset and trainer, unless training.enabled
    private DatasetVerticle dataset;
    private TrainerVerticle trainer;
    private String camerasDeployment;
    private CameraOwnership ownership;
    private String ownershipDeployment;
    private volatile boolean ready;

    private ArgusApp(Runtime rt, ArgusConfig config, StartupProgress progress) {
        this.vertx = rt.vertx;
        this.config = config;
        this.metrics = rt.metrics;
        this.progress = progress;
        this.cluster = rt.cluster;
        this.leases = rt.cluster != null ? new HeldLeases(rt.cluster.getNodeId()) : null;
        this.snapshots = new Snapshots(config.snapshots(), vertx.eventBus());
    }

    /** Reads the YAML config (with environment overrides) and starts. */
    public static CompletableFuture<ArgusApp> start(Path configFile, Map<String, String> env) {
        return start(configFile, env, StartupProgress.NONE);
    }

    /** As {@link #start(Path, Map)}, telling {@code progress} about each slow step of the start. */
    public static CompletableFuture<ArgusApp> start(Path configFile, Map<String, String> env, StartupProgress progress) {
        Runtime rt = newRuntime();
        Future<ArgusConfig> loaded = ConfigLoader.load(rt.vertx, configFile, env);
        // A clustered node reads its config with a plain Vert.x, which then gives way to the clustered one (null here).
        return settle(rt, loaded.compose(cfg -> cfg.cluster().enabled() ? Future.succeededFuture((ArgusApp) null)
                        : new ArgusApp(rt, cfg, progress).deploy()))
                .thenCompose(app -> app != null ? CompletableFuture.completedFuture(app)
                        : rt.vertx.close().toCompletionStage().thenCompose(v -> startClustered(loaded.result(), progress)));
    }

    /** Starts with an already checked configuration (tests, benchmarks). */
    public static CompletableFuture<ArgusApp> start(ArgusConfig config) {
        return start(config, StartupProgress.NONE);
    }

    /** As {@link #start(ArgusConfig)}, telling {@code progress} about each slow step of the start. */
    public static CompletableFuture<ArgusApp> start(ArgusConfig config, StartupProgress progress) {
        if (config.cluster().enabled()) return startClustered(config, progress);
        Runtime rt = newRuntime();
        return settle(rt, new ArgusApp(rt, config, progress).deploy());
    }

    /**
     * Joins the cluster (a clustered Vert.x over Hazelcast), then deploys as a single node would. The cluster secret
     * is resolved first (on loopback without one configured, generated into the cache directory: a file, so not on an
     * event loop); what it protects is derived from it ({@link ClusterKeys}): the Hazelcast cluster name, the key
     * sealing the cluster maps, and the event bus's mutual TLS.
     */
    private static CompletableFuture<ArgusApp> startClustered(ArgusConfig config, StartupProgress progress) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return new ClusterKeys(SecretSetting.resolve(config.cluster(), config.cacheDir()));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e.getMessage(), e);
            }
        }).thenCompose(keys -> startClustered(config, keys, progress));
    }

    private static CompletableFuture<ArgusApp> startClustered(ArgusConfig config, ClusterKeys keys, StartupProgress progress) {
        ClusterConfig c = config.cluster();
        HazelcastClusterManager manager = new HazelcastClusterManager(HazelcastSettings.of(c, keys));
        PrometheusMeterRegistry registry = newRegistry();
        // every series says which node it comes from: its cluster address, stable across restarts (its Hazelcast id
        // is not, and is known only after joining, when Vert.x has registered its first meters)
        registry.config().commonTags("node", c.announcedHost() + ":" + c.port());
        VertxOptions options = new VertxOptions().setMetricsOptions(metricsOptions());
        ClusterEventBus.configure(options.getEventBusOptions(), c, keys);
        StartupProgress.Step step = progress.step("joining the cluster " + c.name() + " at " + String.join(", ", c.members()));
        CompletableFuture<ArgusApp> result = new CompletableFuture<>();
        Vertx.builder().with(options).withMetrics(new MicrometerMetricsFactory(registry)).withClusterManager(manager)
                .buildClustered().onComplete(ar -> {
                    if (ar.failed()) {
                        step.failed(ar.cause());
                        result.completeExceptionally(new IllegalStateException("cluster: cannot join " + c.name() + " at "
                                + String.join(", ", c.members()) + " from " + c.host() + ":" + c.port() + ": " + ar.cause().getMessage(), ar.cause()));
                        return;
                    }
                    step.done();
                    new ClusterMaps(ar.result(), keys, new InvalidValues(registry, ClusterMaps.names())).install();
                    Runtime rt = new Runtime(ar.result(), new ArgusMetrics(registry), manager);
                    settle(rt, new ArgusApp(rt, config, progress).deploy()).whenComplete((app, e) -> {
                        if (e != null) result.completeExceptionally(e);
                        else result.complete(app);
                    });
                });
        return result;
    }

    /**
     * The start's outcome for callers outside Vert.x; on failure Vert.x is closed first. (A Vert.x future continued
     * after close would be scheduled on a terminated event loop and never complete.)
     */
    private static CompletableFuture<ArgusApp> settle(Runtime rt, Future<ArgusApp> started) {
        CompletableFuture<ArgusApp> result = new CompletableFuture<>();
        started.onComplete(ar -> {
            if (ar.succeeded()) {
                result.complete(ar.result());
            } else {
                rt.vertx.close().toCompletionStage().whenComplete((v, x) -> result.completeExceptionally(ar.cause()));
            }
        });
        return result;
    }

    /** {@code cluster}: null on a single node. */
    private record Runtime(Vertx vertx, ArgusMetrics metrics, HazelcastClusterManager cluster) {}

    /** The registry every meter goes to, with the product's own process-wide gauges. */
    private static PrometheusMeterRegistry newRegistry() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        EventBusMeters.keepBacklogOnly(registry);
        ClientChosenLabels.bound(registry);
        NativeMemoryMeters.register(registry);
        return registry;
    }

    private static Runtime newRuntime() {
        PrometheusMeterRegistry registry = newRegistry();
        Vertx vertx = Vertx.builder().with(new VertxOptions().setMetricsOptions(metricsOptions()))
                .withMetrics(new MicrometerMetricsFactory(registry)).build();
        return new Runtime(vertx, new ArgusMetrics(registry), null);
    }

    private static MicrometerMetricsOptions metricsOptions() {
        // the event-bus domain is on for its pending and handlers gauges only (EventBusMeters denies the rest)
        return new MicrometerMetricsOptions().setEnabled(true).setJvmMetricsEnabled(true)
                .addLabels(io.vertx.micrometer.Label.EB_ADDRESS) // pending per consumer address: which one falls behind
                .setPrometheusOptions(new VertxPrometheusOptions().setEnabled(true));
    }

    private Future<ArgusApp> deploy() {
        for (String e : config.unusedEnv()) LOG.log(Level.WARNING, "environment variable {0} matches no config key", e);
        for (String w : config.warnings()) LOG.log(Level.WARNING, "{0} ({1})", w, config.file());
        FrameCodec.register(vertx.eventBus());
        return vertx.executeBlocking(() -> {
                    // the cache holds tokens, zones and camera pictures: created the owner's only, before anything lands there
                    try {
                        io.argus.detector.io.OwnerOnly.directories(config.cacheDir());
                    } catch (java.io.IOException e) {
                        throw new IllegalStateException("cacheDir: cannot create " + config.cacheDir() + " (" + e + ")", e);
                    }
                    io.argus.gpu.KernelCompiler.useDefaultCacheDir(config.cacheDir().resolve("kernels"));
                    loadFfmpeg();
                    avutil.av_log_set_level(ffmpegLogLevel(config.camera().ffmpegLogLevel()));
                    tellWhenAutoRunsOnTheCpu();
                    readOverlay();
                    return null;
                })
                .compose(v -> {
                    List<Future<String>> deployments = new ArrayList<>();
                    for (ModelConfig m : config.models()) {
                        InferenceVerticle iv = new InferenceVerticle(m, snapshots, metrics, progress,
                                leases != null ? leases : Provenance.STANDALONE,
                                config.tracking().enabled() ? config.tracking().tracker() : null);
                        models.add(iv);
                        deployments.add(vertx.deployVerticle(iv));
                    }
                    return Future.all(deployments);
                })
                .compose(v -> {
                    if (!learnsOnline()) return Future.succeededFuture();
                    registry = new ModelRegistryVerticle(config.training(), trained(), progress);
                    return vertx.deployVerticle(registry);
                })
                // before the cameras, which hand it their packets (docs/recording.md)
                .compose(v -> {
                    // in a cluster the cameras are the file's (and those added at run time, as they start here)
                    recordings = new RecordingVerticle(clustered() ? config : config.withCameras(effective.cameras()));
                    return vertx.deployVerticle(recordings);
                })
                .compose(v -> {
                    // made before the events verticle, which asks them (it hears of cameras until they start)
                    cameras = new CameraSupervisor(config.withCameras(clustered() ? List.of() : effective.cameras()), metrics, progress,
                            recordings);
                    java.util.function.Function<JsonObject, io.argus.pipeline.config.CameraConfig> readCamera = body ->
                            io.argus.pipeline.config.CameraConfig.fromJson(body, config.modelIds(), config.file().toAbsolutePath().getParent());
                    if (clustered()) {
                        clusterChanges = new ClusterChanges(vertx, cluster.getNodeId(), config.cacheDir(), config.cameras(), readCamera);
                        clusterCameras = new ClusterCamerasVerticle(config, cluster.getNodeId(), cluster::getNodes, cameras, clusterChanges);
                    }
                    // events before cameras: the events verticle follows each camera from its first detection message
                    events = new EventsVerticle(config.events(), clustered() ? config.cameras() : effective.cameras(),
                            config.cacheDir().resolve("scenes"), cameras, knownCameras(), snapshots, metrics, this::classesOf, recordings);
                    Map<String, io.argus.pipeline.config.CameraConfig> inFile = new java.util.HashMap<>();
                    for (var c : config.cameras()) inFile.put(c.id(), c);
                    durable = new DurableCameras(vertx, knownCameras(), events, overlay, CameraOverlay.file(config.cacheDir()), clusterChanges,
                            inFile, readCamera);
                    return vertx.deployVerticle(events);
                })
                // MQTT: this node's cameras' events and counts, once per cluster (docs/tracking.md)
                .compose(v -> {
                    if (!config.mqtt().enabled()) return Future.succeededFuture();
                    mqtt = new MqttOutputVerticle(config.mqtt(), Addresses.EVENTS_LOCAL, Addresses.COUNTS_LOCAL);
                    return vertx.deployVerticle(mqtt).onSuccess(id -> MqttMeters.register(metrics.registry(), mqtt));
                })
                // in a cluster the supervisor runs only the cameras whose lease this node holds (CameraOwnership)
                .compose(v -> vertx.deployVerticle(cameras))
                .compose(id -> {
                    camerasDeployment = id;
                    // cameras paused at run time stay paused across a restart
                    return clustered() ? Future.succeededFuture(id) : durable.pauseKept(effective.paused()).map(id);
                })
                .compose(id -> {
                    if (!learnsOnline()) return Future.succeededFuture();
                    // in a cluster one node at a time fine-tunes a model (TrainerSingleton); alone, this one does
                    TrainerGate gate = TrainerGate.HERE;
                    Future<?> singleton = Future.succeededFuture();
                    if (clustered()) {
                        TrainerSingleton s = new TrainerSingleton(config.training().model(), cluster.getNodeId(), config.cluster(), cluster::getNodes);
                        gate = s;
                        singleton = vertx.deployVerticle(s);
                    }
                    TrainerGate trainerGate = gate;
                    dataset = new DatasetVerticle(config.training(), trained(), cameras);
                    trainer = new TrainerVerticle(config.training(), trained(), trainerGate, dataset, registry);
                    return singleton.compose(x -> vertx.deployVerticle(dataset)).compose(d -> vertx.deployVerticle(trainer));
                })
                .compose(v -> clustered() ? vertx.deployVerticle(clusterCameras) : Future.succeededFuture())
                // the other nodes ask this one for its cameras' snapshots over the event bus, never over HTTP
                .compose(v -> clustered() ? vertx.deployVerticle(new NodeSnapshots(cluster.getNodeId(), snapshots, events::picture))
                        : Future.succeededFuture())
                // and for the recordings this node made, of cameras it runs or ran (docs/recording.md)
                .compose(v -> clustered() ? vertx.deployVerticle(new NodeRecordings(cluster.getNodeId(), NodeRecordings.Held.of(recordings)))
                        : Future.succeededFuture())
                .compose(v -> {
                    http = new HttpVerticle(config, metrics, snapshots, new ApiServices(models, durable, clusterCameras,
                            clustered() ? new RecordedRules(events, clusterChanges) : events, mqtt, dataset, trainer, registry,
                            recordings), this::ready);
                    return vertx.deployVerticle(http);
                })
                .compose(v -> {
                    if (!clustered()) return Future.succeededFuture();
                    ClusterConfig c = config.cluster();
                    JsonObject self = new JsonObject().put("id", cluster.getNodeId()).put("cluster", c.announcedHost() + ":" + c.port())
                            .put("http", httpAddress()).put("weight", c.weight());
                    ownership = new CameraOwnership(c, config, cluster::getNodes, leases, self);
                    ArgusMetrics.Group g = metrics.group();
                    metrics.gauge(g, "argus.cluster.members", "Cluster members this node sees (itself included)", () -> cluster.getNodes().size());
                    metrics.gauge(g, "argus.cluster.cameras.held", "Camera leases this node holds", leases::size);
                    return vertx.deployVerticle(ownership).onSuccess(id -> ownershipDeployment = id);
                })
                // a version promoted on any node is served by every node (fetched over the event bus, checked by its hash)
                .compose(v -> clustered() && learnsOnline()
                        ? vertx.deployVerticle(new ModelVersionSync(registry, cluster.getNodeId(),
                                config.training().modelDir().resolve("incoming")))
                        : Future.succeededFuture())
                .map(v -> {
                    ready = true;
                    // a person watching a start (argus run) reads it on the progress's own last line; the log says it
                    // for everyone else (services, embedding, tests) and at FINE beside a console, not twice
                    LOG.log(progress == StartupProgress.NONE ? Level.INFO : Level.DEBUG, "argus ready: http://{0}:{1}/ ({2})",
                            config.http().host(), Integer.toString(http.port()), contents());
                    return this;
                });
    }

    /** What a ready app runs, in words: "1 model, 2 cameras". */
    public String contents() {
        int cameras = clustered() ? config.cameras().size() : effective.cameras().size();
        return models.size() + (models.size() == 1 ? " model, " : " models, ") + cameras + (cameras == 1 ? " camera" : " cameras");
    }

    /**
     * Loads FFmpeg's natives (extracted to JavaCPP's cache on a first start). JavaCV's own error says only "Failed to
     * load class"; the root cause names the missing system library, and {@code argus doctor} names its package.
     */
    private void loadFfmpeg() throws FFmpegFrameGrabber.Exception {
        StartupProgress.Step step = progress.step("loading FFmpeg");
        try {
            FFmpegFrameGrabber.tryLoad();
            step.done();
        } catch (FFmpegFrameGrabber.Exception | RuntimeException | LinkageError e) {
            step.failed(e);
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) root = root.getCause();
            throw new FFmpegFrameGrabber.Exception("cannot load FFmpeg: " + root.getMessage()
                    + " (`argus doctor` names the system package to install)", e);
        }
    }

    /**
     * Says once, before any model loads, that backend auto runs on the CPU and why: said later, by the model's
     * backend in the middle of its progress line, it cut that line in two; said by each model and the trainer, it was
     * the same fact several times (the others stay quiet: {@link io.argus.gpu.CudaRuntime#claimFallbackNotice}).
     */
    private void tellWhenAutoRunsOnTheCpu() {
        boolean auto = config.models().stream()
                .anyMatch(m -> m.backend() == io.argus.detector.backends.Detector.Backend.AUTO)
                || learnsOnline()
                && config.training().backend() == io.argus.trainer.backends.TrainingBackends.Kind.AUTO;
        if (!auto) return;
        String problem = io.argus.gpu.CudaRuntime.problem();
        if (problem != null && io.argus.gpu.CudaRuntime.claimFallbackNotice()) {
            LOG.log(Level.INFO, "backend auto runs on the CPU: CUDA is not usable ({0})", problem);
        }
    }

    private boolean learnsOnline() { return config.training().enabled(); }

    private boolean clustered() { return cluster != null; }

    /** Where other nodes' users reach this node's HTTP: the announced cluster host when HTTP listens on every address. */
    private String httpAddress() {
        String host = config.http().host();
        if (host.equals("0.0.0.0") || host.equals("::")) host = config.cluster().announcedHost();
        return host + ":" + http.port();
    }

    /** This node's id in the cluster; null on a single node. */
    public String nodeId() { return cluster != null ? cluster.getNodeId() : null; }

    /** Who knows every camera: this node's own alone, the cluster-wide list in a cluster. */
    private Cameras knownCameras() { return clusterCameras != null ? clusterCameras : cameras; }

    /** The inference verticle of the model that learns online. */
    private InferenceVerticle trained() {
        return models.stream().filter(m -> m.id().equals(config.training().model())).findFirst().orElseThrow();
    }

    static int ffmpegLogLevel(String level) {
        return switch (level) {
            case "error" -> avutil.AV_LOG_ERROR;
            case "warning" -> avutil.AV_LOG_WARNING;
            case "info" -> avutil.AV_LOG_INFO;
            case "debug" -> avutil.AV_LOG_DEBUG;
            default -> avutil.AV_LOG_QUIET;
        };
    }

    public Vertx vertx() { return vertx; }

    public ArgusConfig config() { return config; }

    public ArgusMetrics metrics() { return metrics; }

    public int httpPort() { return http.port(); }

    public List<InferenceVerticle> models() { return List.copyOf(models); }

    public HttpVerticle http() { return http; }

    /** The cameras as the REST API sees them: this node's, or in a cluster the cluster-wide list; changes last. */
    public Cameras cameras() { return durable; }

    /**
     * Reads the runtime changes to the camera list ({@link CameraOverlay}) and applies them to the config file's
     * cameras (single node; in a cluster the list lives in the cluster's maps). What the overlay changed is logged;
     * changes the config file superseded are dropped from it. Blocking: on a worker.
     */
    private void readOverlay() {
        if (clustered()) return;
        java.nio.file.Path file = CameraOverlay.file(config.cacheDir());
        overlay = CameraOverlay.read(file);
        effective = overlay.effective(config.cameras(), body -> io.argus.pipeline.config.CameraConfig.fromJson(body,
                config.modelIds(), config.file().toAbsolutePath().getParent()));
        for (String note : effective.notes()) LOG.log(Level.WARNING, note + " (" + file + ")");
        if (effective.changed()) overlay.write(file);
    }

    /** A model's class names, null for a model this node does not run. */
    private List<String> classesOf(String model) {
        for (InferenceVerticle m : models) {
            if (m.id().equals(model) && m.serving() != null) return m.serving().model().names();
        }
        return null;
    }

    /** The recent events, counts, zones and lines. */
    public EventQueries events() { return events; }

    /** The online trainer's collected frames; null when online training is off. */
    public DatasetService dataset() { return dataset; }

    /** The online trainer's runs; null when online training is off. */
    public TrainingService training() { return trainer; }

    /** The versions of the model that learns online; null when online training is off. */
    public ModelRegistryService registry() { return registry; }

    /** The dashboard's address and token policy, for {@code argus run} to print (never log it: it may carry the token). */
    public io.argus.pipeline.http.DashboardAddress dashboard() {
        return io.argus.pipeline.http.DashboardAddress.of(config.http().host(), http.port(), http.access());
    }

    /** Started, and in a cluster with at least {@code cluster.minSize} members in sight. */
    public boolean ready() { return ready && (ownership == null || ownership.quorum()); }

    /**
     * Stops the cameras first (no frame is sent to a stopped batcher), then everything else. In a cluster the camera
     * leases are released before, so other nodes take the cameras at once, and the node leaves the cluster last.
     */
    public CompletableFuture<Void> close() {
        ready = false;
        Future<Void> released = ownershipDeployment != null ? vertx.undeploy(ownershipDeployment) : Future.succeededFuture();
        Future<Void> cameras = released.transform(ar -> camerasDeployment != null ? vertx.undeploy(camerasDeployment) : Future.succeededFuture());
        // CompletionStages, not Vert.x continuations: those would be scheduled on event loops that close terminates.
        return cameras.toCompletionStage().toCompletableFuture().handle((v, e) -> (Void) null)
                .thenCompose(v -> vertx.close().toCompletionStage())
                .whenComplete((v, e) -> snapshots.close());
    }

    /** Blocking close for tests and the CLI (never on an event loop). */
    public void closeAndWait() throws Exception {
        close().get(30, TimeUnit.SECONDS);
    }
}
