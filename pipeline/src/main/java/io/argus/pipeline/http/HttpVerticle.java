package io.argus.pipeline.http;

import static io.argus.pipeline.http.JsonReplies.WAIT_SECONDS;
import static io.argus.pipeline.http.JsonReplies.answer;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.ArgusMetrics;
import io.argus.pipeline.base.EventBusMeters;
import io.argus.pipeline.camera.CameraStatus;
import io.argus.pipeline.camera.Cameras;
import io.argus.pipeline.camera.SourceProbe;
import io.argus.pipeline.publish.EpochFilter;
import io.argus.pipeline.cluster.SnapshotQuery;
import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.Names;
import io.argus.pipeline.inference.InferenceVerticle;
import io.argus.pipeline.publish.Snapshots;
import io.argus.pipeline.publish.WebSocketGateway;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.healthchecks.HealthChecks;
import io.vertx.ext.healthchecks.Status;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.StaticHandler;
import io.vertx.ext.web.healthchecks.HealthCheckHandler;
import io.vertx.micrometer.PrometheusScrapingHandler;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The HTTP face: REST for cameras and models, {@code /health}, {@code /ready}, {@code /metrics} (Prometheus),
 * {@code /ws} (the WebSocket gateway), {@code /eventbus} (SockJS event-bus bridge, detections and snapshots out),
 * JPEG snapshots and the dashboard (classpath {@code webroot/}). Every route answers from an in-process service
 * ({@link ApiServices}: the cameras, events, online training...); nothing here blocks.
 *
 * <p>Access (see {@link AccessToken} for when there is a token): open are {@code /health}, {@code /ready},
 * {@code /metrics} (probes and Prometheus scrapes), {@code GET /api/info} (so the page can tell it needs a token) and
 * the dashboard's static files, with {@code /?token=} to log a browser in; everything else under {@code /api},
 * {@code /ws} and {@code /eventbus} needs the token. A route added here is protected unless listed as open;
 * AuthRoutesTest checks every route against that list. Before any route, {@link OriginCheck} refuses what a page of
 * another site (or one reached by DNS rebinding) sends; request bodies under {@code /api} are JSON
 * ({@link JsonContentType}); connections are bounded in number and in the time to a request head
 * ({@link ConnectionLimits}), SockJS sessions likewise ({@link EventBusBridge}).
 */
public final class HttpVerticle extends VerticleBase {
    private final ArgusConfig config;
    private final ArgusMetrics metrics;
    private final Snapshots snapshots;
    private final ApiServices services;
    private final List<InferenceVerticle> models;
    private final BooleanSupplier ready;
    private final TokenAuth auth = new TokenAuth(null, new FailedAttempts());
    private AccessToken access;
    private TokenFileWatch watch;
    private Router router;
    private WebSocketGateway gateway;
    private ConnectionLimits limits;
    private ArgusMetrics.Group meters;
    private HttpServer server;

    public HttpVerticle(ArgusConfig config, ArgusMetrics metrics, Snapshots snapshots, ApiServices services,
                        BooleanSupplier ready) {
        this.config = config;
        this.metrics = metrics;
        this.snapshots = snapshots;
        this.services = services;
        this.models = services.models();
        this.ready = ready;
    }

    /** The port actually bound (useful with port 0). */
    public int port() { return server.actualPort(); }

    public WebSocketGateway gateway() { return gateway; }

    /** The token policy in force (decided at start). */
    public AccessToken access() { return access; }

    /** Every route, in order: for the test that checks each one's access. */
    public List<Route> routes() { return router.getRoutes(); }

    @Override
    public Future<?> start() {
        return vertx.executeBlocking(this::resolveAccess).compose(v -> listen());
    }

    /** Reads or creates the token file (blocking: on a worker) and starts following it. */
    private Void resolveAccess() throws IOException {
        access = AccessToken.resolve(config.http(), config.cacheDir());
        auth.token(access.token());
        if (access.kind() == AccessToken.Kind.FILE) {
            watch = new TokenFileWatch(vertx, access.file(), Files.getLastModifiedTime(access.file()).toMillis(), auth::token);
        }
        return null;
    }

    private Future<?> listen() {
        if (watch != null) watch.start();
        boolean clustered = config.cluster().enabled();
        // In a cluster the camera routes and the gateway follow the cluster-wide list (docs/cluster.md).
        Cameras cameras = services.cameras();
        gateway = new WebSocketGateway(vertx, config.websocket(), metrics, cameras,
                clustered ? Addresses.CLUSTER_CAMERA_EVENTS : Addresses.CAMERA_EVENTS, new EpochFilter(2L * config.cluster().leaseMs()),
                models.stream().flatMap(m -> m.serving().model().names().stream()).toList());
        router = Router.router(vertx);
        ArgusConfig.Http http = config.http();
        limits = new ConnectionLimits(vertx, http.limits().maxConnections(), http.limits().requestHeadTimeoutMs());
        // first, so that it sees every request: its head has come, the connection's deadline stops (ConnectionLimits)
        router.route().handler(limits::headArrived);
        // first of the checks: a page of another site, or reached by DNS rebinding, goes no further
        router.route().handler(new OriginCheck(http.allowedOrigins(), http.allowedHosts(), () -> !auth.enabled()));
        // open: the page's own information, before the guard below
        router.get("/api/info").handler(rc -> json(rc, 200, new JsonObject().put("auth", auth.enabled())
                .put("snapshotsFps", config.snapshots().fps())));
        router.route("/api/*").handler(auth::required);
        router.route("/api/*").handler(JsonContentType::check);
        TrainingRoutes.mountUpload(router, vertx, services.registry()); // weights as the body: streamed, above the 64 KB limit below
        router.route("/api/*").handler(BodyHandler.create().setBodyLimit(64 * 1024).setHandleFileUploads(false));
        router.get("/api/cameras").handler(rc -> answer(rc, cameras.list(), WAIT_SECONDS, HttpVerticle::described, 200));
        router.post("/api/cameras").handler(rc -> addCamera(rc, cameras));
        router.get("/api/cameras/:id").handler(rc -> onCamera(rc, id -> answer(rc, cameras.get(id), WAIT_SECONDS, CameraStatus::json, 200)));
        router.delete("/api/cameras/:id").handler(rc -> onCamera(rc, id -> answer(rc, cameras.remove(id), WAIT_SECONDS,
                v -> new JsonObject().put("removed", id), 200)));
        router.post("/api/cameras/:id/pause").handler(rc -> onCamera(rc, id -> answer(rc, cameras.pause(id), WAIT_SECONDS, CameraStatus::json, 200)));
        router.post("/api/cameras/:id/resume").handler(rc -> onCamera(rc, id -> answer(rc, cameras.resume(id), WAIT_SECONDS, CameraStatus::json, 200)));
        router.get("/api/nodes").handler(clustered ? rc -> answer(rc, services.clusterCameras().nodes(), WAIT_SECONDS, n -> n, 200)
                : this::standaloneNode);
        // in a cluster a snapshot not made here is asked of the camera's node, over the event bus (OwnerSnapshots)
        OwnerSnapshots owners = clustered ? new OwnerSnapshots(vertx, cameras) : null;
        router.get("/api/cameras/:id/snapshot.jpg").handler(rc -> {
            String id = PathIds.name(rc, "id", "camera id");
            if (id != null) snapshot(rc, cameras, owners, SnapshotQuery.latest(id), snapshots.latest(id));
        });
        router.getWithRegex("/api/cameras/([^/]+)/snapshots/([0-9]{1,18})\\.jpg")
                .setName("/api/cameras/:id/snapshots/:frame.jpg") // regex routes are named after their paths (AuthRoutesTest)
                .handler(rc -> {
                    String id = PathIds.name(rc, "param0", "camera id");
                    long frame = Long.parseLong(rc.pathParam("param1"));
                    if (id != null) snapshot(rc, cameras, owners, SnapshotQuery.frame(id, frame), snapshots.get(id, frame));
                });
        router.get("/api/models").handler(rc -> answer(rc, Future.all(models.stream().map(InferenceVerticle::status).toList()),
                WAIT_SECONDS, all -> new JsonArray(all.list()), 200));
        TrainingRoutes.mount(router, vertx, services.dataset(), services.training(), services.registry());
        EventRoutes.mount(router, services.events(), owners, services.mqtt());
        // in a cluster a camera's recordings are on the nodes that ran it: asked of each over the event bus
        MemberRecordings memberRecordings = clustered ? new MemberRecordings(vertx, services.clusterCameras().nodeId(),
                services.clusterCameras()::memberIds, services.recordings()) : null;
        RecordingRoutes.mount(router, services.recordings(), services.events(), memberRecordings);
        router.get("/api/clients").handler(rc -> json(rc, 200, gateway.clients()));
        router.route("/api/*").handler(rc -> json(rc, 404, new JsonObject().put("error", "no such endpoint: "
                + rc.request().method() + " " + Names.quoted(rc.request().path()))));   // quoted and cut: never a 10 KB echo

        router.get("/health").handler(HealthCheckHandler.createWithHealthChecks(liveness()));
        router.get("/ready").handler(HealthCheckHandler.createWithHealthChecks(readiness()));
        router.get("/metrics").handler(rc -> {
            EventBusMeters.forgetUnheard(metrics.registry()); // an address nobody listens on any more has no series
            rc.next();
        }).handler(PrometheusScrapingHandler.create((PrometheusMeterRegistry) metrics.registry()));
        router.get("/ws").handler(auth::required).handler(gateway::handle);
        router.route("/eventbus/*").handler(auth::required);
        new EventBusBridge(vertx, auth, gateway::follows, 2L * config.cluster().leaseMs(), http.limits()).mount(router);
        router.get("/").handler(auth::login);
        router.route("/*").handler(StaticHandler.create("webroot").setIndexPage("index.html"));
        router.route().failureHandler(this::failure);

        HttpServerOptions options = new HttpServerOptions().setHost(http.host()).setPort(http.port())
                .setMaxWebSocketFrameSize(64 * 1024).setMaxWebSocketMessageSize(256 * 1024)
                .setWebSocketClosingTimeout(2) // a client that never reads will not answer our close either
                .setIdleTimeout(http.limits().idleTimeoutMs()).setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
                // HTTP/1.x from the first byte: with clear-text HTTP/2 on, a connection that sends nothing never
                // becomes one, and so has no deadline (ConnectionLimits); browsers use HTTP/2 over TLS only anyway
                .setHttp2ClearTextEnabled(false);
        if (http.sendBufferBytes() > 0) options.setSendBufferSize(http.sendBufferBytes());
        meters = metrics.group();
        metrics.gauge(meters, "argus.http.connections", "Open HTTP connections (WebSockets included)", limits::open);
        String closed = "HTTP connections the server closed before a request: over http.maxConnections, or no "
                + "complete request head in time";
        metrics.functionCounter(meters, "argus.http.connections.closed", closed, limits::refused, "reason", "max_connections");
        metrics.functionCounter(meters, "argus.http.connections.closed", closed, limits::timedOut, "reason", "head_timeout");
        return gateway.start()
                .compose(v -> vertx.createHttpServer(options).connectionHandler(limits::opened).requestHandler(router).listen())
                .recover(e -> Future.failedFuture(new IllegalStateException("http: cannot listen on "
                        + config.http().host() + ":" + config.http().port() + ": " + e.getMessage(), e)))
                .onSuccess(s -> server = s);
    }

    @Override
    public Future<?> stop() {
        if (watch != null) watch.stop();
        if (meters != null) meters.close();
        if (limits != null) limits.stop();
        if (gateway != null) gateway.stop();
        return server != null ? server.close() : Future.succeededFuture();
    }

    /** {@code use} on the camera of the path, whose id is checked first (a name, never a path: 400 otherwise). */
    private static void onCamera(RoutingContext rc, java.util.function.Consumer<String> use) {
        String id = PathIds.name(rc, "id", "camera id");
        if (id != null) use.accept(id);
    }

    private static JsonArray described(List<CameraStatus> cameras) {
        JsonArray a = new JsonArray();
        for (CameraStatus c : cameras) a.add(c.json());
        return a;
    }

    /** {@code GET /api/nodes} without a cluster: this node alone, with its cameras. */
    private void standaloneNode(RoutingContext rc) {
        services.cameras().list().timeout(WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS).onComplete(ar -> {
            if (ar.failed()) {
                json(rc, 500, new JsonObject().put("error", String.valueOf(ar.cause().getMessage())));
                return;
            }
            JsonArray ids = new JsonArray();
            for (CameraStatus c : ar.result()) ids.add(c.id());
            json(rc, 200, new JsonArray().add(new JsonObject().put("id", "standalone").put("self", true)
                    .put("http", config.http().host() + ":" + port()).put("cameras", ids)));
        });
    }

    private void addCamera(RoutingContext rc, Cameras cameras) {
        JsonObject body;
        try {
            Buffer b = rc.body().buffer();
            if (b == null || b.length() == 0) throw new DecodeException("empty body");
            body = new JsonObject(b);
        } catch (DecodeException | ClassCastException e) {
            json(rc, 400, new JsonObject().put("error", "body: expected a JSON object like {\"id\": \"cam2\", \"url\": \"rtsp://...\"} ("
                    + e.getMessage() + ")"));
            return;
        }
        // One bounded look at the input first, off the event loop (SourceProbe): a file that is not video or a missing
        // device is refused here rather than retried forever; a probe that overruns lets the camera in unprobed.
        java.nio.file.Path baseDir = config.file().toAbsolutePath().getParent();
        JsonObject definition = body;
        vertx.executeBlocking(() -> SourceProbe.refusal(definition, baseDir), false)
                .timeout(SourceProbe.TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .onComplete(probe -> {
                    if (probe.succeeded() && probe.result() != null) JsonReplies.error(rc, 400, probe.result());
                    else answer(rc, cameras.add(definition), WAIT_SECONDS, CameraStatus::json, 201);
                });
    }

    /**
     * A snapshot kept here, else (in a cluster) the camera's owner's; when there is none, a camera Argus does not know
     * is told apart from a known one that has no snapshot yet (both 404, with what to do).
     */
    private static void snapshot(RoutingContext rc, Cameras cameras, OwnerSnapshots owners, SnapshotQuery query, Snapshots.Snapshot s) {
        if (s != null) {
            jpeg(rc, s);
            return;
        }
        cameras.get(query.camera()).timeout(WAIT_SECONDS, TimeUnit.SECONDS).onComplete(ar -> {
            if (ar.failed() && io.argus.pipeline.base.RequestRefused.statusOf(ar.cause()) == 404) {
                json(rc, 404, new JsonObject().put("error", "no camera " + Names.quoted(query.camera())
                        + " (GET /api/cameras lists them)").put("field", "camera id"));
            } else if (owners != null) {
                owners.pass(rc, query, () -> noSnapshot(rc, query));
            } else {
                noSnapshot(rc, query);
            }
        });
    }

    private static void noSnapshot(RoutingContext rc, SnapshotQuery query) {
        json(rc, 404, new JsonObject().put("error", "camera " + Names.quoted(query.camera()) + " has no snapshot "
                + (query.frame() != null ? "of frame " + query.frame() + " (kept: the last few)" : "yet (none taken since it started, or it is paused)")));
    }

    private static void jpeg(RoutingContext rc, Snapshots.Snapshot s) {
        rc.response().putHeader("content-type", "image/jpeg").putHeader("cache-control", "no-store")
                .putHeader("x-argus-frame", Long.toString(s.frame())).end(Buffer.buffer(s.jpeg()));
    }

    private static void json(RoutingContext rc, int status, Object body) {
        String text = body instanceof JsonObject o ? o.encode() : body instanceof JsonArray a ? a.encode() : String.valueOf(body);
        rc.response().setStatusCode(status).putHeader("content-type", "application/json").end(text);
    }

    private void failure(RoutingContext rc) {
        int status = rc.statusCode() > 0 ? rc.statusCode() : 500;
        String reason = rc.failure() != null ? String.valueOf(rc.failure().getMessage()) : "request failed";
        if (!rc.response().ended()) json(rc, status, new JsonObject().put("error", reason));
    }

    /** Liveness: every inference thread alive. */
    private HealthChecks liveness() {
        HealthChecks hc = HealthChecks.create(vertx);
        hc.register("inference", p -> {
            JsonObject data = new JsonObject();
            boolean ok = true;
            for (InferenceVerticle m : models) {
                data.put(m.id(), m.stats().alive());
                ok &= m.stats().alive();
            }
            p.complete(ok ? Status.OK(data) : Status.KO(data));
        });
        return hc;
    }

    /** Readiness: models loaded, cameras deployed, HTTP listening. */
    private HealthChecks readiness() {
        HealthChecks hc = HealthChecks.create(vertx);
        hc.register("pipeline", p -> p.complete(ready.getAsBoolean() ? Status.OK() : Status.KO()));
        hc.register("models", p -> {
            boolean ok = models.stream().allMatch(m -> m.stats().loaded());
            p.complete(ok ? Status.OK() : Status.KO());
        });
        return hc;
    }
}
