package io.argus.pipeline.cluster;

import io.argus.pipeline.app.Addresses;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.lang.System.Logger.Level;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Every node serves the version of a model that was promoted last anywhere in the cluster. When this node's registry
 * swaps in a version of its own (a fine-tune that validated better, an operator's promotion, a rollback), this
 * verticle announces it on {@value #ADDRESS} with this node's HTTP address; the other nodes fetch the weights from
 * there ({@code GET /api/models/:id/versions/:version/weights}), check that they hash to the version, and swap them in
 * through their own registry (action {@code adopt}), which keeps them for rollbacks. Weights cross the network, frames
 * never do. The last announcement per model is also kept in {@value #LATEST}: a node that starts (or was down at the
 * promotion) adopts the version promoted last, fetched from the node that announced it.
 */
public final class ModelVersionSync extends VerticleBase {
    private static final System.Logger LOG = System.getLogger("argus.cluster.models");
    /** Clustered: a version was promoted on a node. */
    static final String ADDRESS = "argus.cluster.model-versions";
    /** Shared map: model id to the last announcement (version, node, http). */
    static final String LATEST = "argus.model-versions";
    private static final DeliveryOptions ADOPT = new DeliveryOptions().setSendTimeout(300_000);

    private final String node;
    private final String httpAddress;
    private final String token;
    private final Path downloads;
    private HttpClient web;
    private MessageConsumer<JsonObject> local;
    private MessageConsumer<JsonObject> announcements;
    private io.vertx.core.shareddata.AsyncMap<String, String> latest;
    private final String model;

    /**
     * @param httpAddress this node's HTTP host:port, where the others fetch weights
     * @param token       the HTTP token (nodes of a cluster share one), or null when the API is open
     * @param downloads   where fetched weights land before the registry copies them in
     */
    public ModelVersionSync(String model, String node, String httpAddress, String token, Path downloads) {
        this.model = model;
        this.node = node;
        this.httpAddress = httpAddress;
        this.token = token;
        this.downloads = downloads;
    }

    @Override
    public Future<?> start() {
        web = vertx.createHttpClient(new HttpClientOptions().setConnectTimeout(5000).setIdleTimeout(60));
        local = vertx.eventBus().localConsumer(Addresses.TRAINING_EVENTS, this::onLocalEvent);
        announcements = vertx.eventBus().consumer(ADDRESS, m -> adopt(m.body()));
        return Future.join(local.completion(), announcements.completion())
                .compose(v -> ClusterMaps.of(vertx).texts(LATEST))
                .onSuccess(map -> {
                    latest = map;
                    // promoted while this node was away: catch up (in the background; the node is ready meanwhile)
                    map.get(model).onSuccess(text -> {
                        if (text != null) adopt(new JsonObject(text));
                    });
                });
    }

    @Override
    public Future<?> stop() {
        web.close();
        return Future.join(local.unregister(), announcements.unregister());
    }

    /** This node's registry swapped: announce it, unless the version came from another node. */
    private void onLocalEvent(Message<JsonObject> m) {
        JsonObject e = m.body();
        String event = e.getString("event", "");
        JsonObject version = e.getJsonObject("version");
        if (!(event.equals("swapped") || event.equals("rolled-back")) || version == null) return;
        if (version.getString("origin", "").startsWith("node ")) return; // adopted: its origin announced it
        JsonObject announcement = new JsonObject().put("model", e.getString("model")).put("version", version.getString("version"))
                .put("node", node).put("http", httpAddress).put("event", event).put("at", System.currentTimeMillis());
        LOG.log(Level.INFO, "model {0}: version {1} ({2} here) announced to the cluster", e.getString("model"),
                version.getString("version"), event);
        vertx.eventBus().publish(ADDRESS, announcement);
        if (latest != null) latest.put(e.getString("model"), announcement.encode());
    }

    /** Another node promoted a version: fetch its weights and swap them in here. */
    private void adopt(JsonObject a) {
        if (node.equals(a.getString("node"))) return;
        String model = a.getString("model");
        String version = a.getString("version");
        long began = System.currentTimeMillis();
        vertx.eventBus().<JsonObject>request(Addresses.REGISTRY_CONTROL, new JsonObject().put("action", "active").put("model", model))
                .compose(active -> {
                    if (version.equals(active.body().getString("version"))) return Future.succeededFuture(false);
                    return fetch(a).compose(file -> vertx.eventBus().<JsonObject>request(Addresses.REGISTRY_CONTROL,
                                    new JsonObject().put("action", "adopt").put("model", model).put("file", file.toString())
                                            .put("version", version).put("origin", "node " + a.getString("node")), ADOPT)
                            .eventually(() -> vertx.fileSystem().delete(file.toString()).recover(x -> Future.succeededFuture())))
                            .map(true);
                })
                .onSuccess(adopted -> {
                    if (adopted) {
                        LOG.log(Level.INFO, "model {0}: serving version {1} from node {2} ({3} ms after the announcement arrived)",
                                model, version, a.getString("node"), Long.toString(System.currentTimeMillis() - began));
                    }
                })
                .onFailure(e -> LOG.log(Level.WARNING, "model {0}: version {1} of node {2} not adopted: {3}", model, version,
                        a.getString("node"), e.getMessage()));
    }

    private Future<Path> fetch(JsonObject a) {
        String[] hostPort = a.getString("http").split(":");
        String uri = "/api/models/" + enc(a.getString("model")) + "/versions/" + enc(a.getString("version")) + "/weights";
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.GET).setHost(hostPort[0])
                .setPort(Integer.parseInt(hostPort[1])).setURI(uri).setIdleTimeout(120_000);
        if (token != null) options.putHeader("authorization", "Bearer " + token);
        return web.request(options).compose(req -> req.send()).compose(r -> r.body().compose((Buffer body) -> {
            if (r.statusCode() != 200) {
                return Future.failedFuture("GET http://" + a.getString("http") + uri + ": HTTP " + r.statusCode() + " " + body);
            }
            return vertx.executeBlocking(() -> {
                Files.createDirectories(downloads);
                Path file = Files.createTempFile(downloads, "adopt-", ".weights");
                Files.write(file, body.getBytes());
                return file;
            });
        }));
    }

    private static String enc(String s) { return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20"); }
}
