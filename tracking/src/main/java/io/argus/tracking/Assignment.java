package io.argus.tracking;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import org.jgrapht.Graph;
import org.jgrapht.alg.interfaces.MatchingAlgorithm.Matching;
import org.jgrapht.alg.matching.KuhnMunkresMinimalWeightBipartitePerfectMatching;
import org.jgrapht.graph.DefaultWeightedEdge;
import org.jgrapht.graph.SimpleWeightedGraph;

/**
 * Minimum-cost assignment of rows (tracks) to columns (detections) with a cost limit, over jgrapht's Kuhn-Munkres.
 *
 * <p>The problem is ByteTrack's {@code linear_assignment(cost, thresh)} (lapjv with {@code cost_limit}): a pair
 * costing more than the limit is never assigned, and among the others the assignment maximises the sum of
 * {@code limit - cost} over the pairs it takes. Leaving a row and a column apart "costs" the limit, so a pair is taken
 * whenever it is cheaper than that and does not spoil a better pair; the number of pairs is not forced up at any price.
 *
 * <p>How it is solved, and why so: Kuhn-Munkres wants a complete bipartite graph with equal sides. A square of side
 * {@code max(rows, columns)} where every real pair costs {@code min(cost, limit)} and every pair with a padding
 * (dummy) vertex costs {@code limit} has, as its minimal perfect matchings, exactly the solutions above: a real pair
 * at the limit is no better than a dummy one. Building that graph for 100 tracks x 100 detections takes jgrapht
 * milliseconds (10,000 edge objects in hash maps, then an O(n^3) search), more than the tracker's whole budget (1 ms
 * per frame). But a pair over the limit is never taken and a dummy pair changes nothing, so the problem splits
 * exactly into the connected components of the graph of pairs within the limit: the solution is the union of the
 * components' solutions. In video, a detection overlaps one or two tracks, so components are 1x1 (solved at once)
 * or a few boxes where objects cross; only those go to Kuhn-Munkres.
 */
public final class Assignment {
    /** The column of a row that is assigned to none. */
    public static final int UNASSIGNED = -1;

    /**
     * Costs given to Kuhn-Munkres are rounded to multiples of 2^-20: jgrapht's implementation tests the reduced costs
     * for exact zeros after adding and subtracting them, which is exact (so the search ends) only for numbers on a
     * common binary grid. A millionth of IoU never decides a match.
     */
    private static final double GRID = 0x1p20;

    private Assignment() {}

    /**
     * Assigns rows to columns at least cost.
     *
     * @param cost  rows x columns costs, finite or +infinity ("never"), every row as long; any shape, empty included
     * @param limit pairs costing more than this are never assigned (finite)
     * @return for each row, its column, or {@link #UNASSIGNED}
     */
    public static int[] solve(double[][] cost, double limit) {
        int rows = cost.length;
        int columns = rows == 0 ? 0 : cost[0].length;
        check(cost, columns, limit);
        int[] columnOf = new int[rows];
        Arrays.fill(columnOf, UNASSIGNED);
        Components components = Components.of(cost, columns, limit);
        for (int c = 0; c < components.count(); c++) {
            int[] componentRows = components.rows(c);
            int[] componentColumns = components.columns(c);
            if (componentRows.length == 1 && componentColumns.length == 1) {
                columnOf[componentRows[0]] = componentColumns[0];  // a component has a pair within the limit
            } else {
                solveWithKuhnMunkres(cost, limit, componentRows, componentColumns, columnOf);
            }
        }
        return columnOf;
    }

    /** Sum of the costs of the assigned pairs (for tests and reports). */
    public static double totalCost(double[][] cost, int[] columnOf) {
        double total = 0;
        for (int r = 0; r < columnOf.length; r++) if (columnOf[r] != UNASSIGNED) total += cost[r][columnOf[r]];
        return total;
    }

    private static void check(double[][] cost, int columns, double limit) {
        // the limit is the price of leaving a pair apart: it must be a number
        if (!Double.isFinite(limit)) throw new IllegalArgumentException("limit must be finite, found " + limit);
        for (int r = 0; r < cost.length; r++) {
            if (cost[r].length != columns) {
                throw new IllegalArgumentException(
                        "row " + r + " has " + cost[r].length + " columns, row 0 has " + columns);
            }
            for (int c = 0; c < columns; c++) {
                double v = cost[r][c];
                if (Double.isNaN(v) || v == Double.NEGATIVE_INFINITY) {
                    throw new IllegalArgumentException("cost[" + r + "][" + c + "] is " + v);
                }
            }
        }
    }

    /** One component on jgrapht's Kuhn-Munkres: the square padded graph described in the class comment. */
    private static void solveWithKuhnMunkres(double[][] cost, double limit, int[] rows, int[] columns, int[] columnOf) {
        int side = Math.max(rows.length, columns.length);
        Graph<Integer, DefaultWeightedEdge> graph = new SimpleWeightedGraph<>(DefaultWeightedEdge.class);
        Set<Integer> left = new LinkedHashSet<>();
        Set<Integer> right = new LinkedHashSet<>();
        for (int i = 0; i < side; i++) {
            graph.addVertex(i);                    // row i, a dummy from rows.length on
            graph.addVertex(side + i);             // column i, a dummy from columns.length on
            left.add(i);
            right.add(side + i);
        }
        double limitOnGrid = onGrid(limit);
        for (int i = 0; i < side; i++) {
            for (int j = 0; j < side; j++) {
                boolean real = i < rows.length && j < columns.length;
                double weight = real ? Math.min(onGrid(cost[rows[i]][columns[j]]), limitOnGrid) : limitOnGrid;
                graph.setEdgeWeight(graph.addEdge(i, side + j), weight);
            }
        }
        Matching<Integer, DefaultWeightedEdge> matching =
                new KuhnMunkresMinimalWeightBipartitePerfectMatching<>(graph, left, right).getMatching();
        for (DefaultWeightedEdge edge : matching.getEdges()) {
            int a = graph.getEdgeSource(edge);
            int b = graph.getEdgeTarget(edge);
            int i = Math.min(a, b);
            int j = Math.max(a, b) - side;
            // a real pair at or over the limit, matched only because every alternative was a dummy, stays apart
            if (i < rows.length && j < columns.length && cost[rows[i]][columns[j]] <= limit) {
                columnOf[rows[i]] = columns[j];
            }
        }
    }

    private static double onGrid(double v) {
        return v == Double.POSITIVE_INFINITY ? v : Math.rint(v * GRID) / GRID;
    }

    /**
     * The connected components of the bipartite graph of pairs within the limit, found by union-find over rows
     * (0..rows-1) and columns (rows..rows+columns-1). Rows and columns with no such pair belong to none.
     */
    private record Components(int[][] rowsOf, int[][] columnsOf) {
        static Components of(double[][] cost, int columns, double limit) {
            int rows = cost.length;
            int[] parent = new int[rows + columns];
            for (int v = 0; v < parent.length; v++) parent[v] = v;
            boolean[] paired = new boolean[rows + columns];
            for (int r = 0; r < rows; r++) {
                for (int c = 0; c < columns; c++) {
                    if (cost[r][c] <= limit) {
                        union(parent, r, rows + c);
                        paired[r] = paired[rows + c] = true;
                    }
                }
            }
            // number the components by their roots, then list their rows and columns in order
            int[] componentOfRoot = new int[parent.length];
            Arrays.fill(componentOfRoot, -1);
            int count = 0;
            int[] rowCount = new int[parent.length];
            int[] columnCount = new int[parent.length];
            for (int v = 0; v < parent.length; v++) {
                if (!paired[v]) continue;
                int root = find(parent, v);
                if (componentOfRoot[root] < 0) componentOfRoot[root] = count++;
                if (v < rows) rowCount[componentOfRoot[root]]++;
                else columnCount[componentOfRoot[root]]++;
            }
            int[][] rowsOf = new int[count][];
            int[][] columnsOf = new int[count][];
            for (int k = 0; k < count; k++) {
                rowsOf[k] = new int[rowCount[k]];
                columnsOf[k] = new int[columnCount[k]];
            }
            int[] rowFill = new int[count];
            int[] columnFill = new int[count];
            for (int v = 0; v < parent.length; v++) {
                if (!paired[v]) continue;
                int k = componentOfRoot[find(parent, v)];
                if (v < rows) rowsOf[k][rowFill[k]++] = v;
                else columnsOf[k][columnFill[k]++] = v - rows;
            }
            return new Components(rowsOf, columnsOf);
        }

        int count() {
            return rowsOf.length;
        }

        int[] rows(int component) {
            return rowsOf[component];
        }

        int[] columns(int component) {
            return columnsOf[component];
        }

        private static int find(int[] parent, int v) {
            while (parent[v] != v) {
                parent[v] = parent[parent[v]];  // path halving
                v = parent[v];
            }
            return v;
        }

        private static void union(int[] parent, int a, int b) {
            int ra = find(parent, a);
            int rb = find(parent, b);
            if (ra != rb) parent[ra] = rb;
        }
    }
}
