package io.argus.tracking;

import static io.argus.tracking.Assignment.UNASSIGNED;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.argus.testkit.Budget;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Minimum-cost assignment with a cost limit: hand-worked problems, then random ones against brute force. */
@Budget(seconds = 5)
class AssignmentTest {
    private static final double INF = Double.POSITIVE_INFINITY;

    @Test
    void findsTheOptimumWhereGreedyWouldNot() {
        // greedy takes the 0 at (1,1) first and ends at 0 + 3 + 3 = 6 or worse; the optimum is 1 + 2 + 2 = 5
        double[][] cost = {
            {4, 1, 3},
            {2, 0, 5},
            {3, 2, 2}};
        int[] columnOf = Assignment.solve(cost, 10);
        assertArrayEquals(new int[] {1, 0, 2}, columnOf);
        assertEquals(5, Assignment.totalCost(cost, columnOf), 1e-12);
    }

    @Test
    void aPairOverTheLimitIsNeverAssigned() {
        double[][] cost = {
            {0.1, 0.9},
            {0.95, 0.99}};
        assertArrayEquals(new int[] {0, UNASSIGNED}, Assignment.solve(cost, 0.8));
    }

    @Test
    void aPairAtTheLimitIsAssignable() {
        assertArrayEquals(new int[] {0}, Assignment.solve(new double[][] {{0.5}}, 0.5));
        assertArrayEquals(new int[] {UNASSIGNED}, Assignment.solve(new double[][] {{0.5000001}}, 0.5));
    }

    @Test
    void theLimitIsThePriceOfLeavingAPairApart() {
        // as lapjv with cost_limit: maximise the sum of (limit - cost) over the pairs taken
        double[][] cost = {
            {0.1, 0.3},
            {0.35, 0.9}};
        // limit 0.8: the two pairs (0,1) and (1,0) gain 0.5 + 0.45 = 0.95, more than (0,0) alone, 0.7
        assertArrayEquals(new int[] {1, 0}, Assignment.solve(cost, 0.8));
        // limit 0.4: (0,1) and (1,0) gain 0.1 + 0.05 = 0.15, less than (0,0) alone, 0.3: one track stays unmatched
        assertArrayEquals(new int[] {0, UNASSIGNED}, Assignment.solve(cost, 0.4));
    }

    @Test
    void moreColumnsThanRows() {
        double[][] cost = {
            {5, 1, 3},
            {2, 4, 1}};
        assertArrayEquals(new int[] {1, 2}, Assignment.solve(cost, 10));
    }

    @Test
    void moreRowsThanColumns() {
        double[][] cost = {
            {5, 2},
            {1, 4},
            {3, 1}};
        assertArrayEquals(new int[] {UNASSIGNED, 0, 1}, Assignment.solve(cost, 10));
    }

    @Test
    void separateGroupsAreSolvedEachAtTheirOptimum() {
        // two 2x2 problems that never mix (infinite costs across), each needing the non-greedy choice
        double[][] cost = {
            {0.1, 0.2, INF, INF},
            {0.15, 0.6, INF, INF},
            {INF, INF, 0.3, 0.4},
            {INF, INF, 0.05, 0.7}};
        assertArrayEquals(new int[] {1, 0, 3, 2}, Assignment.solve(cost, 0.8));
    }

    @Test
    void emptyProblems() {
        assertArrayEquals(new int[0], Assignment.solve(new double[0][0], 0.8));
        assertArrayEquals(new int[] {UNASSIGNED, UNASSIGNED}, Assignment.solve(new double[2][0], 0.8));
        assertArrayEquals(new int[] {UNASSIGNED}, Assignment.solve(new double[][] {{INF, INF}}, 0.8));
    }

    @Test
    void rejectsMalformedCosts() {
        assertThrows(IllegalArgumentException.class, () -> Assignment.solve(new double[][] {{Double.NaN}}, 1));
        assertThrows(IllegalArgumentException.class, () -> Assignment.solve(new double[][] {{1, 2}, {3}}, 1));
        assertThrows(IllegalArgumentException.class, () -> Assignment.solve(new double[][] {{1}}, INF));
    }

    @Test
    void matchesBruteForceOnRandomProblems() {
        SplittableRandom random = new SplittableRandom(15);
        for (int trial = 0; trial < 2000; trial++) {
            int rows = random.nextInt(0, 6);
            int columns = random.nextInt(1, 6);
            double limit = random.nextDouble(0.2, 1.0);
            double[][] cost = new double[rows][columns];
            for (double[] row : cost) {
                for (int c = 0; c < columns; c++) row[c] = random.nextInt(5) == 0 ? INF : random.nextDouble();
            }
            int[] columnOf = Assignment.solve(cost, limit);
            boolean[] used = new boolean[columns];
            for (int r = 0; r < rows; r++) {
                int c = columnOf[r];
                if (c == UNASSIGNED) continue;
                assertEquals(false, used[c], "column used twice in trial " + trial);
                used[c] = true;
                assertEquals(true, cost[r][c] <= limit, "pair over the limit in trial " + trial);
            }
            assertEquals(bestGain(cost, limit, 0, new boolean[columns]), gain(cost, limit, columnOf), 1e-5,
                    "trial " + trial);
        }
    }

    /** The objective: sum of (limit - cost) over the pairs taken. */
    private static double gain(double[][] cost, double limit, int[] columnOf) {
        double g = 0;
        for (int r = 0; r < columnOf.length; r++) if (columnOf[r] != UNASSIGNED) g += limit - cost[r][columnOf[r]];
        return g;
    }

    /** Every partial assignment of rows from row on, each row to a free column within the limit or to none. */
    private static double bestGain(double[][] cost, double limit, int row, boolean[] used) {
        if (row == cost.length) return 0;
        double best = bestGain(cost, limit, row + 1, used);
        for (int c = 0; c < used.length; c++) {
            if (used[c] || cost[row][c] > limit) continue;
            used[c] = true;
            best = Math.max(best, limit - cost[row][c] + bestGain(cost, limit, row + 1, used));
            used[c] = false;
        }
        return best;
    }
}
