package io.argus.pipeline.http;

import io.argus.pipeline.app.Addresses;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * In a cluster, a camera's JPEG snapshots are made and kept by the node that runs it; a dashboard or script on any
 * other node asks that node's HTTP for them ({@code ownerHttp} in the camera list) and gets the answer passed on, so a
 * snapshot URL works on every node. Only on request, one picture at a time: video frames still never cross the
 * cluster. A request that was already passed on is not passed on again (no loops while ownership moves).
 */
final class OwnerSnapshots {
    static final String PROXIED = "x-argus-proxied-from";

    private final Vertx vertx;
    private final String token;
    private final HttpClient client;

    OwnerSnapshots(Vertx vertx, String token) {
        this.vertx = vertx;
        this.token = token;
        this.client = vertx.createHttpClient(new HttpClientOptions().setConnectTimeout(3000).setIdleTimeout(30));
    }

    /** Passes {@code rc} on to the camera's owner; {@code notHere} answers when there is none to ask. */
    void pass(RoutingContext rc, String camera, Runnable notHere) {
        if (rc.request().getHeader(PROXIED) != null) {
            notHere.run();
            return;
        }
        vertx.eventBus().<JsonObject>request(Addresses.CLUSTER_CAMERAS, new JsonObject().put("action", "get").put("id", camera))
                .onComplete(ar -> {
                    String owner = ar.succeeded() ? ar.result().body().getString("ownerHttp") : null;
                    if (owner == null || owner.isBlank()) {
                        notHere.run();
                        return;
                    }
                    int colon = owner.lastIndexOf(':');
                    RequestOptions options = new RequestOptions().setMethod(HttpMethod.GET).setHost(owner.substring(0, colon))
                            .setPort(Integer.parseInt(owner.substring(colon + 1))).setURI(rc.request().uri()).setTimeout(10_000)
                            .putHeader(PROXIED, rc.request().localAddress() != null ? rc.request().localAddress().toString() : "?");
                    if (token != null) options.putHeader("authorization", "Bearer " + token);
                    client.request(options).compose(req -> req.send())
                            .compose(resp -> resp.body().map(body -> {
                                rc.response().setStatusCode(resp.statusCode());
                                for (String h : new String[]{"content-type", "cache-control", "x-argus-frame"}) {
                                    if (resp.getHeader(h) != null) rc.response().putHeader(h, resp.getHeader(h));
                                }
                                rc.response().putHeader("x-argus-snapshot-from", owner).end(body);
                                return (Buffer) body;
                            }))
                            .onFailure(e -> {
                                if (!rc.response().ended()) {
                                    rc.response().setStatusCode(502).putHeader("content-type", "application/json")
                                            .end(new JsonObject().put("error", "the camera's node " + owner + " did not answer: " + e.getMessage()).encode());
                                }
                            });
                });
    }

    void close() { client.close(); }
}
