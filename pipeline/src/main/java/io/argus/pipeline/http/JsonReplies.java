package io.argus.pipeline.http;

import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * How the REST routes that pass a request to a verticle answer: its reply as JSON, its failure code as the status
 * (a verticle fails a request with 400, 404... and a reason), anything else 500; errors as {@code {"error": reason}}.
 */
final class JsonReplies {
    private JsonReplies() {}

    /** A request to a verticle's control address: {@code {"action": a}}. */
    static JsonObject action(String a) { return new JsonObject().put("action", a); }

    /** A verticle's reply (a JSON object or list, or a plain value) with {@code status}. */
    static void reply(RoutingContext rc, Object body, int status) {
        String text = body instanceof JsonObject o ? o.encode() : body instanceof JsonArray a ? a.encode() : String.valueOf(body);
        rc.response().setStatusCode(status).putHeader("content-type", "application/json").end(text);
    }

    /** A verticle's failure: its code when it is an HTTP status, else 500. */
    static void failure(RoutingContext rc, Throwable e) {
        if (e instanceof ReplyException re && re.failureCode() >= 400) error(rc, re.failureCode(), re.getMessage());
        else error(rc, 500, String.valueOf(e.getMessage()));
    }

    static void error(RoutingContext rc, int status, String reason) {
        if (rc.response().ended()) return;
        rc.response().setStatusCode(status).putHeader("content-type", "application/json")
                .end(new JsonObject().put("error", reason).encode());
    }
}
