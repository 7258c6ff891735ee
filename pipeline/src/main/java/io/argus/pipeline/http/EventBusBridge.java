package io.argus.pipeline.http;

import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.Names;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.bridge.BridgeEventType;
import io.vertx.ext.bridge.PermittedOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.sockjs.BridgeEvent;
import io.vertx.ext.web.handler.sockjs.SockJSBridgeOptions;
import io.vertx.ext.web.handler.sockjs.SockJSHandler;
import io.vertx.ext.web.handler.sockjs.SockJSHandlerOptions;
import io.vertx.ext.web.handler.sockjs.Transport;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code /eventbus}: the SockJS event-bus bridge. Browsers may receive the detections and snapshot notices of the
 * cameras this node's gateway follows, and training events; nothing can be sent in. A former owner's late detections
 * (an older epoch) are dropped per connection, as on {@code /ws} ({@link BridgeEpochs}).
 *
 * <p>Bounded: sessions at once in all and per client address ({@link BridgeSessions}; more are closed as they open);
 * a registration must name a camera being followed (each registered address is an event-bus consumer and so a metric
 * series: made-up names would add them without end); a message sent in ({@code xhr_send}) is at most 64 KB and must be
 * what SockJS sends, a JSON array of texts, or it is a 400 naming the problem (SockJS itself answers 500). The
 * transports that cannot carry an {@code Origin} (JSONP and htmlfile, which load as scripts and frames; old browsers
 * only) are off, so every transport left is checked by {@link OriginCheck}.
 */
final class EventBusBridge {
    /** What the bridge may deliver: a camera's detections or snapshot notices, training events. */
    static final String ADDRESSES = "argus\\.(detections|snapshots)\\.[A-Za-z0-9][A-Za-z0-9._-]{0,63}|argus\\.training\\.events";
    private static final Pattern CAMERA_ADDRESS = Pattern.compile("argus\\.(?:detections|snapshots)\\.(.+)");
    private static final int MAX_SEND_BYTES = 64 * 1024;

    private final Vertx vertx;
    private final TokenAuth auth;
    private final Predicate<String> followedCamera;
    private final BridgeEpochs epochs;
    private final BridgeSessions sessions;

    /**
     * @param followedCamera whether a camera id is one the gateway follows now (registrations for others are refused)
     * @param forgetMs       how long an epoch filter remembers a camera ({@link BridgeEpochs})
     */
    EventBusBridge(Vertx vertx, TokenAuth auth, Predicate<String> followedCamera, long forgetMs, ArgusConfig.Limits limits) {
        this.vertx = vertx;
        this.auth = auth;
        this.followedCamera = followedCamera;
        this.epochs = new BridgeEpochs(forgetMs);
        this.sessions = new BridgeSessions(limits.maxBridgeSessions(), limits.maxBridgeSessionsPerAddress());
    }

    /** Mounts the bridge on {@code /eventbus/*} (the token check goes first). */
    void mount(Router router) {
        // SockJS reads a POST's body from the router's body handler (without one, xhr_send is a 500)
        router.post("/eventbus/*").handler(BodyHandler.create().setBodyLimit(MAX_SEND_BYTES).setHandleFileUploads(false));
        router.post("/eventbus/*").handler(EventBusBridge::checkSend);
        router.route("/eventbus/*").subRouter(sockJs());
    }

    private Router sockJs() {
        SockJSHandlerOptions options = new SockJSHandlerOptions().setInsertJSESSIONID(false)
                .addDisabledTransport(Transport.JSON_P.name()).addDisabledTransport(Transport.HTML_FILE.name());
        SockJSBridgeOptions bridge = new SockJSBridgeOptions()
                .addOutboundPermitted(new PermittedOptions().setAddressRegex(ADDRESSES));
        return SockJSHandler.create(vertx, options).bridge(bridge, event -> {
            switch (event.type()) {
                case SOCKET_CREATED -> event.complete(sessions.open(event.socket(), addressOf(event.socket().remoteAddress())));
                case RECEIVE -> event.complete(epochs.deliver(event.socket(), event.getRawMessage()));
                case SOCKET_CLOSED -> {
                    epochs.closed(event.socket());
                    sessions.closed(event.socket());
                    event.complete(true);
                }
                case REGISTER -> event.complete(auth.allows(event) && registrable(event));
                default -> event.complete(auth.allows(event));
            }
        });
    }

    /**
     * Whether a registration may go on: one for a camera's address must name a camera the gateway follows (refused:
     * {@code rejected}). Addresses the bridge does not deliver at all go on to its own check ({@code access_denied}).
     */
    private boolean registrable(BridgeEvent event) {
        JsonObject raw = event.getRawMessage();
        String address = raw != null ? raw.getString("address") : null;
        if (address == null || !address.matches(ADDRESSES)) return true;
        Matcher camera = CAMERA_ADDRESS.matcher(address);
        return !camera.matches() || followedCamera.test(camera.group(1));
    }

    /**
     * {@code xhr_send}: what SockJS clients send, a JSON array of texts (or one text), each a bridge message; anything
     * else is the client's mistake, 400 with the reason.
     */
    static void checkSend(RoutingContext rc) {
        if (!rc.normalizedPath().endsWith("/xhr_send")) {
            rc.next();
            return;
        }
        Buffer body = rc.body().buffer();
        String found = null;
        if (body == null || body.length() == 0) {
            found = "no body";
        } else {
            try {
                Object frames = Json.decodeValue(body);
                if (frames instanceof JsonArray a) {
                    for (Object f : a) if (!(f instanceof String)) found = "an item " + Names.quoted(Json.encode(f));
                } else if (!(frames instanceof String)) {
                    found = Names.quoted(body.toString());
                }
            } catch (DecodeException e) {
                found = Names.quoted(body.toString());
            }
        }
        if (found == null) {
            rc.next();
            return;
        }
        rc.response().setStatusCode(400).putHeader("content-type", "application/json")
                .end(new JsonObject().put("error", "xhr_send: expected a JSON array of messages, each a JSON text "
                        + "(as SockJS sends them), found " + found).encode());
    }

    private static String addressOf(SocketAddress a) {
        return a != null && a.host() != null ? a.host() : "unknown";
    }

    /** Sessions open now (for tests). */
    int sessions() { return sessions.size(); }
}
