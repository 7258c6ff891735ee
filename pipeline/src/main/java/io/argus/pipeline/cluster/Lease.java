package io.argus.pipeline.cluster;

import io.argus.pipeline.config.Names;
import io.vertx.core.json.JsonObject;

/**
 * A camera's lease as stored in the cluster's lease map: the node allowed to run the camera, the epoch of that claim
 * (one more than the previous claim's, so a newer owner's messages win) and until when the owner promises to renew
 * (its own clock: informative only, see {@link LeaseWatch}). A released lease keeps its epoch with no owner, and
 * when released to rebalance names the node meant to take it ({@code heir}).
 *
 * <p>A graceful hand-over (the owner stops) goes through two more states, so the camera starts on the heir before it
 * stops on the owner and two nodes never publish it at once: the owner <em>offers</em> the lease to an heir (still
 * owning it); the heir starts the camera without publishing and marks the offer <em>ready</em>; the owner stops
 * publishing, then releases the lease to the heir, who claims it (the next epoch) and publishes from its running
 * camera.
 *
 * <p>Stored as its JSON text, always written the same way, so the map's compare-and-set ({@code replaceIfPresent(k,
 * old, new)}) compares exactly the value that was read.
 */
public record Lease(String owner, long epoch, long expires, String heir, String handover) {
    /** {@link #handover}: the owner offers the lease to the heir. */
    public static final String OFFERED = "offered";
    /** {@link #handover}: the heir runs the camera (not publishing) and waits for the owner's release. */
    public static final String READY = "ready";

    public Lease(String owner, long epoch, long expires, String heir) { this(owner, epoch, expires, heir, ""); }

    /** The shared map of leases: camera id to lease text. */
    public static final String MAP = "argus.leases";

    /**
     * The lease of {@code text}, checked: the owner and heir node ids or empty, the epoch an integer of at least 0, the
     * expiry an integer, the hand-over state one of the known ones.
     *
     * @throws IllegalArgumentException naming the field, what was expected and what was found
     */
    public static Lease parse(String text) {
        JsonObject j;
        try {
            j = new JsonObject(text);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("lease: not a JSON object");
        }
        long epoch = integer(j, "epoch");
        if (epoch < 0) throw new IllegalArgumentException("lease: \"epoch\" expected an integer >= 0, found " + epoch);
        String handover = text(j, "handover");
        if (!handover.isEmpty() && !handover.equals(OFFERED) && !handover.equals(READY)) {
            throw new IllegalArgumentException("lease: \"handover\" expected \"\", \"" + OFFERED + "\" or \"" + READY + "\", found " + Names.quoted(handover));
        }
        return new Lease(node(j, "owner"), epoch, integer(j, "expires"), node(j, "heir"), handover);
    }

    private static String text(JsonObject j, String field) {
        Object v = j.getValue(field);
        if (!(v instanceof String s)) throw new IllegalArgumentException("lease: \"" + field + "\" expected a text, found " + found(v));
        return s;
    }

    /** A node id, or empty (no owner, no heir). */
    private static String node(JsonObject j, String field) {
        String s = text(j, field);
        if (!s.isEmpty()) Names.require("lease: \"" + field + "\" (a node id)", s);
        return s;
    }

    private static long integer(JsonObject j, String field) {
        Object v = j.getValue(field);
        if (v instanceof Integer || v instanceof Long) return ((Number) v).longValue();
        throw new IllegalArgumentException("lease: \"" + field + "\" expected an integer, found " + found(v));
    }

    private static String found(Object v) {
        if (v == null) return "nothing (null or missing)";
        return v instanceof String s ? Names.quoted(s) : "a " + v.getClass().getSimpleName();
    }

    public String text() {
        return new JsonObject().put("owner", owner).put("epoch", epoch).put("expires", expires).put("heir", heir).put("handover", handover).encode();
    }

    /** The first claim of a camera. */
    public static Lease first(String node, long expires) { return new Lease(node, 1, expires, ""); }

    /** {@code node}'s claim after this lease: the next epoch. */
    public Lease claimedBy(String node, long expires) { return new Lease(node, epoch + 1, expires, ""); }

    /** The same claim, renewed. */
    public Lease renewed(long expires) { return new Lease(owner, epoch, expires, ""); }

    /** Given up by its owner (graceful stop): any node may claim it at once. */
    public Lease released() { return new Lease("", epoch, 0, ""); }

    /**
     * Given up to rebalance, for {@code heir} (a node below its share): the others leave it to the heir while the heir
     * is a member, for a lease at most, so a released camera does not bounce between nodes above their share.
     */
    public Lease releasedTo(String heir) { return new Lease("", epoch, 0, heir); }

    /** The owner (stopping) offers the camera to {@code heir}: still its own, not renewed any more. */
    public Lease offeredTo(String heir) { return new Lease(owner, epoch, expires, heir, OFFERED); }

    /** Written by the heir of an offer once the camera runs there (not yet publishing). */
    public Lease ready() { return new Lease(owner, epoch, expires, heir, READY); }

    public boolean offered() { return OFFERED.equals(handover); }

    public boolean heirReady() { return READY.equals(handover); }

    public boolean free() { return owner.isEmpty(); }
}
