package io.argus.pipeline.events;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.ServiceCall;
import io.argus.pipeline.camera.Backoff;
import io.argus.pipeline.config.MqttSettings;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.mqtt.MqttClient;
import io.vertx.mqtt.MqttClientOptions;
import io.vertx.mqtt.MqttConnectionException;
import java.lang.System.Logger.Level;
import java.util.SplittableRandom;

/**
 * Publishes this node's events and counts to an MQTT broker (docs/tracking.md):
 *
 * <ul>
 *   <li>{@code {"type": "event", "cameraId": ...}} from {@code eventsAddress} goes to {@code <prefix>/<camera>/events},
 *       the JSON as it came;</li>
 *   <li>{@code {"type": "count", "cameraId", "zone" | "line", "className", "count", "in", "out"}} from
 *       {@code countsAddress} goes to {@code <prefix>/<camera>/<zone-or-line>/<class>/count}, retained: for a zone
 *       the number of objects inside as text ({@code 3}), for a line the totals as JSON ({@code {"in":12,"out":9}})
 *       (a zone and a line of one camera with the same id would share the topic: keep their ids apart);</li>
 *   <li>{@code <prefix>/available} is "online" (retained) while connected; the broker publishes the last will
 *       "offline" (retained) when the connection dies, and a graceful stop publishes "offline" itself.</li>
 * </ul>
 *
 * <p>Both addresses are local consumers: each node publishes what its own cameras produced. Messages pass through a
 * bounded {@link MqttOutbox} that holds them while the broker is away (the oldest are dropped, and counted, when it is
 * full) and publishes them again after a reconnect, so delivery is at least once. Connections are retried with
 * {@link Backoff}; each attempt uses a fresh client, so nothing of a dead connection lingers. Nothing here blocks:
 * the password and CA files are read asynchronously at start, and everything else runs on this verticle's event loop.
 */
public final class MqttOutputVerticle extends VerticleBase {
    /** Where the events verticle sends this node's events (local). */
    public static final String EVENTS_ADDRESS = Addresses.EVENTS_LOCAL;
    /** Where the events verticle sends this node's counts (local). */
    public static final String COUNTS_ADDRESS = Addresses.COUNTS_LOCAL;

    static final Buffer ONLINE = Buffer.buffer("online");
    static final Buffer OFFLINE = Buffer.buffer("offline");
    /** The client's own in-flight limit; ours ({@code maxInflight}) is the one that counts, this one must not bite. */
    private static final int CLIENT_INFLIGHT_LIMIT = 65535;
    private static final System.Logger LOG = System.getLogger("argus.events.mqtt");
    /**
     * The Vert.x client logs each failed attempt at SEVERE with a stack trace: a broker away for an hour would fill the
     * log. This verticle says the same once per reason (connectFailed), so the client's own logger is turned down,
     * unless the operator's logging configuration set its level. Held in a field: java.util.logging keeps loggers
     * weakly, and a collected logger forgets its level.
     */
    private static final java.util.logging.Logger CLIENT_LOG = quietClientLog();

    private final MqttSettings settings;
    private final String eventsAddress;
    private final String countsAddress;
    private final MqttOutbox outbox;
    private Backoff backoff;
    private MqttClientOptions options;
    private MessageConsumer<Object> events;
    private MessageConsumer<Object> counts;
    private MqttClient client;            // the current attempt's or connection's; null between attempts
    private boolean connected;
    private boolean ackedOnThisConnection;
    private boolean stopping;
    private boolean pumpScheduled;
    private long reconnectTimer = -1;
    private long attempts;
    private String lastFailure;
    private Promise<Void> drained;         // while stopping: the outbox is empty
    // Written on the event loop only, read by stats() from any thread.
    private volatile boolean up;
    private volatile long published;
    private volatile long rejected;
    private volatile long reconnects;

    public MqttOutputVerticle(MqttSettings settings) { this(settings, EVENTS_ADDRESS, COUNTS_ADDRESS); }

    public MqttOutputVerticle(MqttSettings settings, String eventsAddress, String countsAddress) {
        this.settings = settings;
        this.eventsAddress = eventsAddress;
        this.countsAddress = countsAddress;
        this.outbox = new MqttOutbox(settings.outbox());
    }

    /** Counters for metrics and REST; safe from any thread. */
    /** The output's state and counters as {@code GET /api/mqtt} shows them, with the broker and the client id. */
    public Future<JsonObject> status() {
        return ServiceCall.on(context, () -> Future.succeededFuture(stats().toJson().put("broker", broker())
                .put("clientId", settings.clientId())));
    }

    public MqttStats stats() {
        return new MqttStats(up, published, outbox.confirmed(), outbox.dropped(), outbox.resent(), rejected, reconnects,
                outbox.size(), outbox.inFlight());
    }

    public MqttSettings settings() { return settings; }

    @Override
    public Future<?> start() {
        backoff = new Backoff(settings.reconnect(), new SplittableRandom());
        return Future.all(password(), trustedCertificates()).map(files -> {
            options = clientOptions(files.resultAt(0), files.resultAt(1));
            events = vertx.eventBus().localConsumer(eventsAddress, this::event);
            counts = vertx.eventBus().localConsumer(countsAddress, this::count);
            LOG.log(Level.INFO, "MQTT output to " + broker() + " as " + settings.clientId() + ", topics "
                    + settings.topicPrefix() + "/...");
            connect();   // in the background: the broker may well be down now, the outbox holds what comes meanwhile
            return null;
        });
    }

    /**
     * Unsubscribes, gives the outbox up to {@code stopFlushMs} to empty, publishes "offline" and disconnects. What is
     * still in the outbox then is lost (logged).
     */
    @Override
    public Future<?> stop() {
        stopping = true;
        if (reconnectTimer >= 0) vertx.cancelTimer(reconnectTimer);
        Future<?> unregistered = Future.all(unregister(events), unregister(counts));
        MqttClient c = client;
        Future<?> done;
        if (c == null) done = unregistered;
        else if (!connected) done = unregistered.eventually(c::disconnect);   // an attempt in progress: abandon it
        else done = unregistered.eventually(this::flush).eventually(() -> goodbye(c));
        return done.onComplete(ar -> {
            if (outbox.size() > 0) {
                LOG.log(Level.WARNING, "MQTT output stopped with " + messages(outbox.size()) + " never acknowledged by " + broker());
            }
        });
    }

    // ---- event bus -> outbox

    private void event(Message<Object> m) {
        JsonObject e = json(m.body());
        String camera = e != null && e.getValue("cameraId") instanceof String s ? s : null;
        if (camera == null || camera.isEmpty()) {
            reject("event without cameraId", m.body());
            return;
        }
        enqueue(settings.eventsTopic(camera), e.toBuffer(), false);
    }

    private void count(Message<Object> m) {
        try {
            publishCount(m);
        } catch (ClassCastException e) {   // "count": "three" and the like
            reject("count with a value of the wrong type (" + e.getMessage() + ")", m.body());
        }
    }

    private void publishCount(Message<Object> m) {
        JsonObject c = json(m.body());
        String camera = c != null ? c.getString("cameraId") : null;
        String className = c != null ? c.getString("className") : null;
        if (camera == null || camera.isEmpty() || className == null) {
            reject("count without cameraId or className", m.body());
            return;
        }
        String zone = c.getString("zone");
        String line = c.getString("line");
        Buffer payload;
        if (zone != null) {
            payload = Buffer.buffer(Long.toString(c.getLong("count", 0L)));
        } else if (line != null) {
            payload = new JsonObject().put("in", c.getLong("in", 0L)).put("out", c.getLong("out", 0L)).toBuffer();
        } else {
            reject("count without zone or line", m.body());
            return;
        }
        enqueue(settings.countTopic(camera, zone != null ? zone : line, className), payload, true);
    }

    private void enqueue(String topic, Buffer payload, boolean retain) {
        if (stopping) return;
        outbox.add(new MqttOutbox.Message(topic, payload, settings.qos(), retain));
        schedulePump();
    }

    private void reject(String why, Object body) {
        // The first at WARNING: a producer sends something wrong; the rest would flood the log.
        LOG.log(rejected == 0 ? Level.WARNING : Level.DEBUG, "not published to MQTT: " + why + ": " + abbreviated(body));
        rejected++;
    }

    // ---- connection

    private void connect() {
        reconnectTimer = -1;
        if (stopping) return;
        if (attempts++ > 0) reconnects++;
        MqttClient c = MqttClient.create(vertx, options);
        client = c;
        // Handlers check that c is still the current client: a late callback of a dead connection must not touch the
        // outbox, whose in-flight messages already wait again for the next one.
        c.publishCompletionHandler(packetId -> {
            if (c == client) acked(packetId);
        });
        c.closeHandler(v -> {
            if (c == client) connectionLost();
        });
        c.exceptionHandler(e -> LOG.log(Level.DEBUG, "MQTT connection to " + broker() + ": " + e));
        c.connect(settings.port(), settings.host()).onComplete(ar -> {
            if (c != client) return;
            if (ar.succeeded()) connected(c);
            else connectFailed(ar.cause());
        });
    }

    private void connected(MqttClient c) {
        connected = true;
        up = true;
        ackedOnThisConnection = false;
        LOG.log(Level.INFO, "connected to MQTT broker " + broker() + " as " + settings.clientId()
                + (lastFailure != null ? " (after: " + lastFailure + ")" : "")
                + (outbox.size() > 0 ? "; publishing " + messages(outbox.size()) + " that waited" : ""));
        lastFailure = null;
        // First, before anything the outbox held: subscribers see the node back, then what it kept for them.
        c.publish(settings.availabilityTopic(), ONLINE, MqttQoS.AT_LEAST_ONCE, false, true)
                .onFailure(e -> LOG.log(Level.DEBUG, "could not publish online status: " + e));
        pump();
    }

    private void connectFailed(Throwable cause) {
        client = null;
        if (stopping) return;
        String reason = reason(cause);
        long delay = backoff.next();
        // Each new reason at WARNING; the same one again (a broker down for an hour) at DEBUG.
        LOG.log(reason.equals(lastFailure) ? Level.DEBUG : Level.WARNING, "cannot connect to MQTT broker " + broker()
                + " as " + settings.clientId() + ": " + reason + "; retrying in " + delay + " ms ("
                + messages(outbox.size()) + " in the outbox)");
        lastFailure = reason;
        reconnectTimer = vertx.setTimer(delay, t -> connect());
    }

    private void connectionLost() {
        client = null;
        connected = false;
        up = false;
        outbox.connectionLost();
        if (stopping) {
            if (drained != null) drained.tryComplete();
            return;
        }
        long delay = backoff.next();
        lastFailure = "connection lost";
        LOG.log(Level.WARNING, "lost the connection to MQTT broker " + broker() + "; reconnecting in " + delay + " ms ("
                + messages(outbox.size()) + " in the outbox)");
        reconnectTimer = vertx.setTimer(delay, t -> connect());
    }

    // ---- outbox -> broker

    /** Coalesces the pumps asked for by a burst of events or acknowledgements into one, after the current task. */
    private void schedulePump() {
        if (pumpScheduled || !connected) return;
        pumpScheduled = true;
        context.runOnContext(v -> {
            pumpScheduled = false;
            pump();
        });
    }

    /** Publishes waiting messages while fewer than maxInflight are unacknowledged. */
    private void pump() {
        MqttClient c = client;
        while (connected && outbox.hasWaiting() && outbox.inFlight() < settings.maxInflight()) {
            MqttOutbox.Entry e = outbox.next();
            MqttOutbox.Message m = e.message();
            published++;
            Future<Integer> written;
            try {
                written = c.publish(m.topic(), m.payload(), MqttQoS.valueOf(m.qos()), false, m.retain());
            } catch (RuntimeException ex) {
                written = Future.failedFuture(ex);
            }
            written.onComplete(ar -> {
                if (c != client) return;
                if (ar.succeeded()) {
                    outbox.sent(e, ar.result());
                    if (m.qos() == 0) schedulePump();
                } else {
                    // The connection is failing: the message stays in flight and waits again when the close is seen.
                    LOG.log(Level.DEBUG, "PUBLISH to " + m.topic() + " not written: " + ar.cause());
                }
            });
        }
    }

    private void acked(int packetId) {
        if (!outbox.acked(packetId)) return;
        if (!ackedOnThisConnection) {
            // A broker that acknowledges is really there: the next loss starts again from the shortest delay.
            ackedOnThisConnection = true;
            backoff.reset();
        }
        if (drained != null && outbox.size() == 0) drained.tryComplete();
        schedulePump();
    }

    // ---- stopping

    private Future<Void> flush() {
        if (outbox.size() == 0 || !connected) return Future.succeededFuture();
        drained = Promise.promise();
        pump();
        long timer = vertx.setTimer(Math.max(1, settings.stopFlushMs()), t -> drained.tryComplete());
        return drained.future().onComplete(ar -> vertx.cancelTimer(timer));
    }

    /**
     * "offline" then DISCONNECT. The broker reads them in order, so the retained "offline" is stored before the
     * session ends; a clean DISCONNECT also tells it not to publish the will.
     */
    private Future<Void> goodbye(MqttClient c) {
        if (c != client || !connected) return Future.succeededFuture();
        return c.publish(settings.availabilityTopic(), OFFLINE, MqttQoS.AT_LEAST_ONCE, false, true)
                .transform(ar -> c.disconnect());
    }

    // ---- setup

    private Future<String> password() {
        if (settings.passwordFile() == null) return Future.succeededFuture(settings.password());
        return vertx.fileSystem().readFile(settings.passwordFile().toString()).map(b -> {
            String s = b.toString(java.nio.charset.StandardCharsets.UTF_8);
            int end = s.indexOf('\n');
            return (end >= 0 ? s.substring(0, end) : s).replace("\r", "");
        });
    }

    private Future<Buffer> trustedCertificates() {
        if (settings.caFile() == null) return Future.succeededFuture();
        return vertx.fileSystem().readFile(settings.caFile().toString());
    }

    private MqttClientOptions clientOptions(String password, Buffer ca) {
        MqttClientOptions o = new MqttClientOptions()
                .setClientId(settings.clientId())
                // Argus only publishes; everything un-acknowledged is published again from the outbox anyway.
                .setCleanSession(true)
                .setKeepAliveInterval(settings.keepAliveSeconds())
                .setAutoKeepAlive(true)
                .setMaxInflightQueue(CLIENT_INFLIGHT_LIMIT)
                .setWillFlag(true)
                .setWillTopic(settings.availabilityTopic())
                .setWillMessageBytes(OFFLINE)
                .setWillQoS(1)
                .setWillRetain(true);
        o.setConnectTimeout(settings.connectTimeoutMs());
        if (settings.username() != null) o.setUsername(settings.username());
        if (password != null) o.setPassword(password);
        if (settings.tls()) {
            o.setSsl(true);
            // Vert.x checks no host name unless told to; "HTTPS" is the usual rule (RFC 2818: DNS or IP SAN).
            o.setHostnameVerificationAlgorithm(settings.verifyHostname() ? "HTTPS" : "");
            if (ca != null) o.setTrustOptions(new PemTrustOptions().addCertValue(ca));
        }
        return o;
    }

    private static java.util.logging.Logger quietClientLog() {
        java.util.logging.Logger l = java.util.logging.Logger.getLogger("io.vertx.mqtt.impl.MqttClientImpl");
        if (l.getLevel() == null) l.setLevel(java.util.logging.Level.OFF);
        return l;
    }

    private String broker() { return (settings.tls() ? "mqtts://" : "mqtt://") + settings.host() + ":" + settings.port(); }

    /** Why a connection attempt failed, in words that point at the setting to fix. */
    static String reason(Throwable cause) {
        if (cause instanceof MqttConnectionException mce) {
            MqttConnectReturnCode code = mce.code();
            return switch (code) {
                case CONNECTION_REFUSED_BAD_USER_NAME_OR_PASSWORD, CONNECTION_REFUSED_BAD_USERNAME_OR_PASSWORD ->
                        "refused: bad user name or password (mqtt.username, mqtt.password or mqtt.passwordFile)";
                case CONNECTION_REFUSED_NOT_AUTHORIZED, CONNECTION_REFUSED_NOT_AUTHORIZED_5 ->
                        "refused: not authorized (check mqtt.username and the password)";
                case CONNECTION_REFUSED_IDENTIFIER_REJECTED, CONNECTION_REFUSED_CLIENT_IDENTIFIER_NOT_VALID ->
                        "refused: client id rejected (mqtt.clientId)";
                case CONNECTION_REFUSED_SERVER_UNAVAILABLE, CONNECTION_REFUSED_SERVER_UNAVAILABLE_5 ->
                        "refused: broker unavailable";
                default -> "refused: " + code;
            };
        }
        if (cause instanceof javax.net.ssl.SSLException) {
            // Vert.x says "Failed to create SSL connection"; the innermost cause says why (PKIX path, host name, ...).
            Throwable root = cause;
            while (root.getCause() != null && root.getCause() != root) root = root.getCause();
            return "TLS failed (mqtt.caFile, mqtt.verifyHostname): " + root.getMessage();
        }
        return cause.getMessage() != null ? cause.getMessage() : cause.toString();
    }

    /** The body as a JSON object: EventsVerticle sends JsonObject; a JSON string or buffer is accepted too. */
    private static JsonObject json(Object body) {
        try {
            if (body instanceof JsonObject j) return j;
            if (body instanceof String s) return new JsonObject(s);
            if (body instanceof Buffer b) return b.toJsonObject();
        } catch (RuntimeException e) {
            return null;
        }
        return null;
    }

    private static String messages(int n) { return n == 1 ? "1 message" : n + " messages"; }

    private static String abbreviated(Object body) {
        String s = String.valueOf(body);
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }

    private static Future<Void> unregister(MessageConsumer<?> c) {
        return c != null ? c.unregister() : Future.succeededFuture();
    }
}
