package io.argus.tools.tracking;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import org.jgrapht.alg.matching.KuhnMunkresMinimalWeightBipartitePerfectMatching;
import org.jgrapht.graph.DefaultWeightedEdge;
import org.jgrapht.graph.SimpleWeightedGraph;

/**
 * The one-to-one assignment of rows to columns with the largest total score (SciPy's
 * {@code linear_sum_assignment(-score)}, which TrackEval uses), over jgrapht's Kuhn-Munkres. The matrix may be
 * rectangular: it is padded with zero-score rows or columns, and a row assigned to padding gets -1. Every row gets a
 * column where there are enough, whatever its score: callers keep the pairs whose score or similarity is good enough.
 */
final class MaxScoreAssignment {
    private MaxScoreAssignment() {}

    /** For each row, its column, or -1. {@code score} is rows x columns, non-negative. */
    static int[] solve(double[][] score) {
        int rows = score.length;
        int cols = rows == 0 ? 0 : score[0].length;
        int[] colOfRow = new int[rows];
        Arrays.fill(colOfRow, -1);
        if (rows == 0 || cols == 0) return colOfRow;
        int n = Math.max(rows, cols);
        double max = 0;
        for (double[] r : score) for (double s : r) max = Math.max(max, s);
        // Kuhn-Munkres minimises over a complete bipartite graph with equal sides: cost = max - score >= 0
        SimpleWeightedGraph<Integer, DefaultWeightedEdge> g = new SimpleWeightedGraph<>(DefaultWeightedEdge.class);
        Set<Integer> left = new LinkedHashSet<>(), right = new LinkedHashSet<>();
        for (int i = 0; i < n; i++) {
            g.addVertex(i);
            left.add(i);
            g.addVertex(n + i);
            right.add(n + i);
        }
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                double s = i < rows && j < cols ? score[i][j] : 0;
                g.setEdgeWeight(g.addEdge(i, n + j), max - s);
            }
        }
        var matching = new KuhnMunkresMinimalWeightBipartitePerfectMatching<>(g, left, right).getMatching();
        for (DefaultWeightedEdge e : matching.getEdges()) {
            int a = g.getEdgeSource(e), b = g.getEdgeTarget(e);
            int row = Math.min(a, b), col = Math.max(a, b) - n;
            if (row < rows && col < cols) colOfRow[row] = col;
        }
        return colOfRow;
    }
}
