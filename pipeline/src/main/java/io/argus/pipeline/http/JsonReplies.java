package io.argus.pipeline.http;

import io.argus.pipeline.base.RequestRefused;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * How the REST routes that ask an in-process service answer: its result as JSON with the route's status, its refusal
 * with the status it carries ({@link RequestRefused#statusOf}: 400, 404, 409...), anything else 500; errors as
 * {@code {"error": reason}}. A route waits for a service a bounded time: {@value #WAIT_SECONDS} s, or
 * {@value #LONG_WAIT_SECONDS} s for what may load a model.
 */
final class JsonReplies {
    private JsonReplies() {}

    /** How long a route waits for a service's answer. */
    static final long WAIT_SECONDS = 30;
    /** How long a route waits for a rollback or a swap, which may load a large model. */
    static final long LONG_WAIT_SECONDS = 300;

    /**
     * Answers {@code rc} with what {@code asked} gives, as JSON ({@code json}) with {@code status}, or with its
     * failure; at most {@code seconds} later.
     */
    static <T> void answer(RoutingContext rc, Future<T> asked, long seconds, Function<? super T, Object> json, int status) {
        asked.timeout(seconds, TimeUnit.SECONDS).onComplete(ar -> {
            if (ar.succeeded()) reply(rc, json.apply(ar.result()), status);
            else failure(rc, ar.cause());
        });
    }

    /** A JSON object or list, or a plain value, with {@code status}. */
    static void reply(RoutingContext rc, Object body, int status) {
        if (rc.response().ended()) return;
        String text = body instanceof JsonObject o ? o.encode() : body instanceof JsonArray a ? a.encode() : String.valueOf(body);
        rc.response().setStatusCode(status).putHeader("content-type", "application/json").end(text);
    }

    /** A service's failure: the HTTP status it carries, else 500. */
    static void failure(RoutingContext rc, Throwable e) {
        JsonObject body = new JsonObject().put("error", String.valueOf(e.getMessage()));
        if (e instanceof RequestRefused r && r.field() != null) {
            body.put("field", r.field()).put("valid", new JsonArray(r.valid())).put("validCount", r.validCount());
        }
        reply(rc, body, RequestRefused.statusOf(e));
    }

    static void error(RoutingContext rc, int status, String reason) {
        if (rc.response().ended()) return;
        rc.response().setStatusCode(status).putHeader("content-type", "application/json")
                .end(new JsonObject().put("error", reason).encode());
    }
}
