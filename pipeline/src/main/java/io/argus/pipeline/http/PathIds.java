package io.argus.pipeline.http;

import io.argus.pipeline.config.Names;
import io.vertx.ext.web.RoutingContext;

/**
 * Identifiers in a request's path ({@code /api/cameras/:id/...}), checked where they enter: each is a name
 * ({@link Names}), never a path. Vert.x hands path parameters over decoded, so {@code %2F}, {@code %00} and
 * {@code ..%2F} arrive as {@code /}, NUL and {@code ../}; such an id is answered 400 naming the parameter, what was
 * expected and what was found (quoted and cut, never a 10 KB echo), and goes no further.
 */
final class PathIds {
    private PathIds() {}

    /** The path parameter {@code param} when it is a name of at most {@link Names#MAX}; else null, after a 400. */
    static String name(RoutingContext rc, String param, String what) {
        return name(rc, param, what, Names.MAX);
    }

    /** As {@link #name(RoutingContext, String, String)}, for derived ids of up to {@code max} characters (events). */
    static String name(RoutingContext rc, String param, String what, int max) {
        String value = rc.pathParam(param);
        if (Names.valid(value, max)) return value;
        JsonReplies.error(rc, 400, what + ": " + Names.expectation(max) + ", found " + Names.quoted(value));
        return null;
    }
}
