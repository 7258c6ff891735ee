package io.argus.pipeline.events;

import io.argus.pipeline.base.EventPicture;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Locale;

/**
 * What the events verticle answers ({@link EventsVerticle}): the recent events of every camera, an event's best
 * snapshot, the counts, and a camera's zones and lines. Every call runs on its context and answers on the caller's; a
 * refusal fails the future with a {@link io.argus.pipeline.base.RequestRefused} carrying its HTTP status (400 a
 * malformed id or rule, 404 nothing of that id, 421 a snapshot kept by the node that runs the camera, 503 the camera
 * list cannot tell now, 507 a full disk). Events and counts are the JSON documents published on the bus (schemas in
 * docs/tracking.md), zones and lines those of the config file.
 */
public interface EventQueries {
    /** Which of a camera's rules: its zones or its lines. */
    enum RulePart {
        ZONES, LINES;

        /** {@code zones} or {@code lines}: the key in the config, the REST path and the JSON. */
        public String key() { return name().toLowerCase(Locale.ROOT); }
    }

    /** A page of the recent events, newest first, filtered ({@code {"events": [...], "total", ...}}). */
    Future<JsonObject> events(EventHistory.Query query);

    /** One recent event; 404 for one not kept (any more). */
    Future<JsonObject> event(String id);

    /**
     * A picture (JPEG) of an event's best snapshot: with the object's box drawn, without, or the object cropped out.
     * The snapshot is kept by the node that runs its camera: 421 from any other, 404 when none was taken or it was
     * forgotten.
     */
    Future<byte[]> picture(String eventId, EventPicture kind);

    /** The counts of one camera ({@code camera}: null for all: {@code {"cameras": [...]}}). */
    Future<JsonObject> counts(String camera);

    /** A camera's zones or lines; 404 for a camera Argus does not know. */
    Future<JsonArray> rules(String camera, RulePart part);

    /**
     * Replaces a camera's zones or lines (checked: 400 naming the bad field), kept across restarts and cluster-wide;
     * what was kept. When they cannot be kept the previous ones stay everywhere.
     */
    Future<JsonArray> setRules(String camera, RulePart part, JsonArray rules);

    /** Forgets a deleted camera's zones, lines and counts, everywhere they are kept (its file, the cluster's maps). */
    Future<Void> forget(String camera);
}
