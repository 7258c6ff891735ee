package io.argus.pipeline.cluster;

import io.argus.pipeline.config.Names;
import io.vertx.core.json.JsonObject;
import java.util.regex.Pattern;

/**
 * What a node tells the cluster when it promotes a version of a model ({@link ModelVersionSync}): the model, the
 * version, the node that serves its weights ({@link WeightsServer}), and their size and full SHA-256, which the
 * other nodes check before they adopt them. It arrives from the cluster (a message, the shared map of last
 * announcements), so {@link #from} checks every field before anything acts on it.
 *
 * @param event "swapped" or "rolled-back" (for the log)
 * @param at    when the announcing node promoted it (its clock, informative)
 */
record VersionAnnouncement(String model, String version, String node, long size, String sha256, String event, long at) {
    /**
     * A version: a name as {@link Names} has it, with {@code :} also allowed ({@code sha256:3f2a9c0b1d4e},
     * {@code sha256:3f2a9c0b1d4e-r7}, {@code random-seed-1}); no separator, so never a path.
     */
    static final Pattern VERSION = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]*");
    /** The largest weights a node fetches: darknet's largest detectors weigh about 250 MB. */
    static final long MAX_BYTES = 1L << 30;
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

    /** {@code version} when it is one, else an {@link IllegalArgumentException} saying what was expected and found. */
    static String requireVersion(String version) {
        if (version != null && version.length() <= Names.DERIVED_MAX && VERSION.matcher(version).matches()) return version;
        throw new IllegalArgumentException("version: expected 1-" + Names.DERIVED_MAX + " letters, digits, '.', '_', ':' or '-',"
                + " starting with a letter or digit, found " + Names.quoted(version));
    }

    JsonObject toJson() {
        return new JsonObject().put("model", model).put("version", version).put("node", node).put("size", size)
                .put("sha256", sha256).put("event", event).put("at", at);
    }

    /** An announcement from the cluster, every field checked; an {@link IllegalArgumentException} names the first bad one. */
    static VersionAnnouncement from(Object body) {
        if (!(body instanceof JsonObject j)) {
            throw new IllegalArgumentException("expected a JSON object, found "
                    + (body == null ? "nothing" : body.getClass().getSimpleName()));
        }
        String model = Names.require("model id", string(j, "model"));
        String version = requireVersion(string(j, "version"));
        String node = Names.require("node id", string(j, "node"));
        Object size = j.getValue("size");
        long bytes = size instanceof Integer || size instanceof Long ? ((Number) size).longValue() : -1;
        if (bytes < 0 || bytes > MAX_BYTES) {
            String older = size == null && j.containsKey("http") ? " (an older node's announcement: it served weights over HTTP)" : "";
            throw new IllegalArgumentException("size: expected a number of bytes from 0 to " + MAX_BYTES + ", found "
                    + Names.quoted(String.valueOf(size)) + older);
        }
        String sha256 = string(j, "sha256");
        if (sha256 == null || !SHA256.matcher(sha256).matches()) {
            throw new IllegalArgumentException("sha256: expected 64 lowercase hexadecimal digits, found " + Names.quoted(sha256));
        }
        String event = string(j, "event");
        if (event != null && !event.equals("swapped") && !event.equals("rolled-back")) {
            throw new IllegalArgumentException("event: expected swapped or rolled-back, found " + Names.quoted(event));
        }
        long at = j.getValue("at") instanceof Number t ? t.longValue() : 0;
        return new VersionAnnouncement(model, version, node, bytes, sha256, event, at);
    }

    private static String string(JsonObject j, String key) {
        Object v = j.getValue(key);
        if (v != null && !(v instanceof String)) {
            throw new IllegalArgumentException(key + ": expected a string, found " + Names.quoted(String.valueOf(v)));
        }
        return (String) v;
    }
}
