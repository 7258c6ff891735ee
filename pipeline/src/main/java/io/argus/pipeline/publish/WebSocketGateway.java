package io.argus.pipeline.publish;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.ArgusMetrics;
import io.argus.pipeline.camera.CameraStatus;
import io.argus.pipeline.camera.Cameras;
import io.argus.pipeline.config.ArgusConfig.WebSocketSettings;
import io.micrometer.core.instrument.Counter;
import io.argus.pipeline.base.RequestRefused;
import io.argus.pipeline.config.Names;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code /ws}: detection messages (and optionally snapshot notices) to WebSocket clients, each with its own filter
 * and bounded queue ({@link ClientSession}). Listens on {@code argus.detections.<id>} / {@code argus.snapshots.<id>}
 * of every camera (following camera added/removed events: this node's cameras, or in a cluster the cluster-wide
 * list, whose detections arrive from every node). In a cluster an {@link EpochFilter} drops a former owner's late
 * messages. Lives on the HTTP verticle's event loop.
 *
 * Tracked-object events and count changes come from two clustered addresses ({@code argus.events}, {@code argus.counts})
 * for all cameras; clients get them with {@code events: true}.
 *
 * <p>Client to server: {@code {"type": "subscribe", ...}} (see {@link Subscription}); server to client:
 * {@code subscribed}, {@code detections}, {@code snapshot}, {@code event}, {@code count}, {@code dropped}, {@code error}
 * messages.
 */
public final class WebSocketGateway {
    private final Vertx vertx;
    private final WebSocketSettings settings;
    private final Set<ClientSession> sessions = new LinkedHashSet<>();
    private final Map<String, List<MessageConsumer<JsonObject>>> cameras = new HashMap<>();
    /** The keys of {@link #cameras}, for other threads (the SockJS bridge's registrations). */
    private final Set<String> followed = ConcurrentHashMap.newKeySet();
    private final Counter dropped;
    private final ArgusMetrics.Group meters;
    private final Cameras cameraList;
    private final String cameraEvents;
    private final EpochFilter epochs;
    /** Every class name of the models this node runs, in their order: what a class filter may name. */
    private final List<String> classNames;
    private MessageConsumer<JsonObject> events;
    private MessageConsumer<JsonObject> objectEvents;
    private MessageConsumer<JsonObject> counts;
    private long pingTimer = -1;

    /**
     * @param cameraList   the cameras to follow (this node's, or the cluster's)
     * @param cameraEvents where cameras added and removed are announced ({@link Addresses.CameraNotice})
     * @param classNames   the class names of every model: a class filter naming another would stay silent for ever
     */
    public WebSocketGateway(Vertx vertx, WebSocketSettings settings, ArgusMetrics metrics, Cameras cameraList,
                            String cameraEvents, EpochFilter epochs, List<String> classNames) {
        this.vertx = vertx;
        this.classNames = List.copyOf(new java.util.LinkedHashSet<>(classNames));
        this.cameraList = cameraList;
        this.cameraEvents = cameraEvents;
        this.epochs = epochs;
        this.settings = settings;
        this.meters = metrics.group();
        this.dropped = metrics.counter(meters, "argus.ws.dropped.messages", "Messages dropped for slow WebSocket clients");
        metrics.gauge(meters, "argus.ws.clients", "Connected WebSocket clients", sessions::size);
        metrics.queueDepth(meters, "websocket", "all_clients", () -> sessions.stream().mapToInt(ClientSession::queued).sum());
    }

    /** Call on the owning verticle's context. */
    public Future<Void> start() {
        events = vertx.eventBus().localConsumer(cameraEvents, m -> {
            Addresses.CameraNotice notice = Addresses.CameraNotice.from(m.body());
            if (notice.change() == Addresses.CameraNotice.Change.ADDED) follow(notice.camera());
            else unfollow(notice.camera());
        });
        // Tracked-object events of every camera (every node's, in a cluster): one address, filtered per client.
        objectEvents = vertx.eventBus().consumer(Addresses.EVENTS, m -> dispatch(m.body()));
        counts = vertx.eventBus().consumer(Addresses.COUNTS, m -> dispatch(m.body()));
        pingTimer = vertx.setPeriodic(settings.pingIntervalMs(), t -> {
            long now = System.currentTimeMillis();
            for (ClientSession s : List.copyOf(sessions)) {
                if (!s.ping(now)) sessions.remove(s); // dead: forget it now, whenever its TCP connection goes
            }
        });
        return vertx.executeBlocking(WebSocketGateway::warmUpEncoding)
                .compose(v -> cameraList.list())
                .map(list -> {
                    for (CameraStatus c : list) follow(c.id());
                    return null;
                });
    }

    /**
     * Encodes a sample detection message ({@link DetectionMessage#sample}) a few hundred times. Until a client connects nothing is ever
     * encoded (the event bus passes the objects), so without this the first client's first messages would wait for
     * the JSON encoder's first pass (class loading and the interpreter: about 40 ms on 2 cores).
     */
    static Void warmUpEncoding() {
        JsonObject m = DetectionMessage.sample("warm-up");
        for (int i = 0; i < 300; i++) m.copy().put("frame", (long) i).encode();
        return null;
    }

    public void stop() {
        if (pingTimer >= 0) vertx.cancelTimer(pingTimer);
        if (events != null) events.unregister();
        if (objectEvents != null) objectEvents.unregister();
        if (counts != null) counts.unregister();
        for (String id : new ArrayList<>(cameras.keySet())) unfollow(id);
        meters.close();
    }

    /**
     * Whether {@code camera} is one this gateway follows now (this node's cameras, or the cluster's): the cameras whose
     * detections and snapshots clients may ask for. Thread-safe.
     */
    public boolean follows(String camera) { return followed.contains(camera); }

    private void follow(String camera) {
        if (camera == null || cameras.containsKey(camera)) return;
        MessageConsumer<JsonObject> d = vertx.eventBus().consumer(Addresses.detections(camera), m -> {
            if (epochs.accept(m.body())) dispatch(m.body());
        });
        MessageConsumer<JsonObject> s = vertx.eventBus().consumer(Addresses.snapshots(camera), m -> dispatch(m.body()));
        cameras.put(camera, List.of(d, s));
        followed.add(camera);
    }

    private void unfollow(String camera) {
        followed.remove(camera);
        List<MessageConsumer<JsonObject>> cs = cameras.remove(camera);
        if (cs != null) cs.forEach(MessageConsumer::unregister);
        epochs.forget(camera);
    }

    private void dispatch(JsonObject message) {
        if (sessions.isEmpty()) return;
        ClientSession.Outgoing out = new ClientSession.Outgoing(message);
        for (ClientSession s : sessions) s.offer(out);
    }

    /** The /ws route: authorisation and query filter are checked before the upgrade (401 / 400). */
    public void handle(RoutingContext rc) {
        Subscription initial;
        try {
            initial = Subscription.fromQuery(rc.queryParams());
        } catch (IllegalArgumentException e) {
            rc.response().setStatusCode(400).putHeader("content-type", "application/json")
                    .end(new JsonObject().put("error", e.getMessage()).encode());
            return;
        }
        JsonObject refused = initial != null ? unknownClass(initial) : null;
        if (refused != null) {
            refused.put("error", refused.remove("reason")).remove("type");
            rc.response().setStatusCode(400).putHeader("content-type", "application/json").end(refused.encode());
            return;
        }
        rc.request().toWebSocket().onSuccess(ws -> accept(ws, initial)).onFailure(e -> {
            System.getLogger("argus.ws").log(System.Logger.Level.DEBUG, "WebSocket upgrade failed: " + e);
            if (!rc.response().ended()) rc.fail(400, e);
        });
    }

    private void accept(ServerWebSocket ws, Subscription initial) {
        ws.setWriteQueueMaxSize(settings.writeQueueBytes());
        ClientSession session = new ClientSession(ws, initial, settings.bufferSize(), settings.pongTimeoutMs(), dropped::increment);
        sessions.add(session);
        ws.pongHandler(b -> session.pong());
        ws.textMessageHandler(text -> onClientMessage(session, text));
        ws.closeHandler(v -> {
            session.closed();
            sessions.remove(session);
        });
        ws.exceptionHandler(e -> { }); // a client going away mid-write is normal; its close handler follows
        if (initial != null) {
            JsonObject unknown = unknownCamera(initial);
            if (unknown != null) session.send(unknown);
            session.send(new JsonObject().put("type", "subscribed").put("filter", initial.toJson()));
        }
    }

    private void onClientMessage(ClientSession session, String text) {
        JsonObject j;
        try {
            j = new JsonObject(text);
        } catch (DecodeException | ClassCastException e) {
            session.send(error("not a JSON object: " + abbreviate(text)));
            return;
        }
        String type = j.getValue("type") instanceof String t ? t : null;
        if (!"subscribe".equals(type)) {
            session.send(error("unknown message type " + (type == null ? "(missing)" : "\"" + type + "\"") + " (expected \"subscribe\")"));
            return;
        }
        try {
            Subscription s = Subscription.fromJson(j);
            JsonObject refused = unknownClass(s);
            if (refused != null) {
                session.send(refused);   // the subscription in force stays
                return;
            }
            JsonObject unknown = unknownCamera(s);
            if (unknown != null) session.send(unknown);
            session.subscribe(s);
            session.send(new JsonObject().put("type", "subscribed").put("filter", s.toJson()));
        } catch (IllegalArgumentException e) {
            session.send(error(e.getMessage()));
        }
    }

    /**
     * The refusal of a filter naming a class no model has (it would stay silent for ever), naming the field and the
     * valid values (the first {@link RequestRefused#MAX_LISTED}); null when every class is known.
     */
    private JsonObject unknownClass(Subscription s) {
        java.util.Set<String> known = new java.util.HashSet<>(classNames);
        for (String k : s.classes()) {
            if (!known.contains(k)) return refusal("classes", "no model detects class " + Names.quoted(k), classNames);
        }
        return null;
    }

    /**
     * The error that tells of a filter naming a camera this gateway does not follow now; null when every camera is
     * known. The subscription still holds (a client may subscribe to a camera before adding it), but the client is told
     * rather than left waiting in silence for a misspelt id.
     */
    private JsonObject unknownCamera(Subscription s) {
        for (String c : s.cameras()) {
            if (followed.contains(c)) continue;
            JsonObject e = refusal("cameras", "no camera " + Names.quoted(c) + " now", new ArrayList<>(new java.util.TreeSet<>(followed)));
            return e.put("reason", e.getString("reason") + "; subscribed anyway: its messages come once a camera of that id is added");
        }
        return null;
    }

    private static JsonObject refusal(String field, String what, List<String> valid) {
        return error(what + " (" + field + ": " + RequestRefused.listed(valid) + ")").put("field", field)
                .put("valid", new JsonArray(valid.subList(0, Math.min(valid.size(), RequestRefused.MAX_LISTED))))
                .put("validCount", valid.size());
    }

    private static JsonObject error(String reason) {
        return new JsonObject().put("type", "error").put("reason", reason);
    }

    private static String abbreviate(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "..." : s;
    }

    /** Per-client queue sizes and drops, for the API and tests. */
    public JsonArray clients() {
        JsonArray a = new JsonArray();
        for (ClientSession s : sessions) a.add(s.toJson());
        return a;
    }
}
