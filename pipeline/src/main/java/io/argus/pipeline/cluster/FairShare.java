package io.argus.pipeline.cluster;

import java.util.Map;

/**
 * How many cameras a node should run: its weight's part of all the cameras, rounded up, so the shares of all nodes
 * add up to at least the number of cameras and every camera finds a node.
 */
final class FairShare {
    private FairShare() {}

    /** {@code weights}: each live node's weight (this node included). */
    static int of(int cameras, Map<String, Double> weights, String node) {
        double total = 0;
        for (double w : weights.values()) total += w;
        double mine = weights.getOrDefault(node, 0.0);
        if (cameras == 0 || total <= 0 || mine <= 0) return 0;
        // a tiny tolerance: 6 cameras x 1/3 must be 2, not 3 after floating-point rounding
        return Math.min(cameras, (int) Math.ceil(cameras * mine / total - 1e-9));
    }

    /**
     * The share rounded down: what a node keeps when cameras are rebalanced. A node above it gives a camera up
     * only while another node is below its own, so 7 cameras on 3 nodes settle at 3/2/2, not 3/3/1.
     */
    static int floor(int cameras, Map<String, Double> weights, String node) {
        double total = 0;
        for (double w : weights.values()) total += w;
        double mine = weights.getOrDefault(node, 0.0);
        if (cameras == 0 || total <= 0 || mine <= 0) return 0;
        return (int) Math.floor(cameras * mine / total + 1e-9);
    }
}
