package io.argus.pipeline.cluster;

import io.vertx.core.json.JsonObject;

/**
 * A camera's lease as stored in the cluster's lease map: the node allowed to run the camera, the epoch of that claim
 * (one more than the previous claim's, so a newer owner's messages win) and until when the owner promises to renew
 * (its own clock: informative only, see {@link LeaseWatch}). A released lease keeps its epoch with no owner, and
 * when released to rebalance names the node meant to take it ({@code heir}).
 *
 * <p>Stored as its JSON text, always written the same way, so the map's compare-and-set ({@code replaceIfPresent(k,
 * old, new)}) compares exactly the value that was read.
 */
public record Lease(String owner, long epoch, long expires, String heir) {
    /** The shared map of leases: camera id to lease text. */
    public static final String MAP = "argus.leases";

    public static Lease parse(String text) {
        JsonObject j = new JsonObject(text);
        return new Lease(j.getString("owner", ""), j.getLong("epoch", 0L), j.getLong("expires", 0L), j.getString("heir", ""));
    }

    public String text() {
        return new JsonObject().put("owner", owner).put("epoch", epoch).put("expires", expires).put("heir", heir).encode();
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

    public boolean free() { return owner.isEmpty(); }
}
