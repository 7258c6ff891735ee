package io.argus.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.testkit.Budget;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ratio line of {@code argus bench}: one round as before, several as each round's ratio, median and spread. */
@Budget(seconds = 2)
class BenchRatioLineTest {
    @Test
    void oneRoundIsTheRatioOfBothTimes() {
        assertEquals("batch 1: ratio ours(fp32)/onnxruntime = 0.800 (20.00 vs 25.00 ms/image)",
                BenchCommand.ratioLine("batch 1: ratio ours(fp32)/onnxruntime", List.<double[]>of(new double[] {20, 25})));
    }

    @Test
    void severalRoundsGiveTheMedianRatioAndTheSpread() {
        List<double[]> rounds = List.of(new double[] {20, 25}, new double[] {30, 25}, new double[] {25, 25});
        assertEquals("batch 1: ratio ours(fp32)/onnxruntime = 1.000, median of 3 rounds (0.800, 1.200, 1.000; "
                        + "spread 0.800..1.200; ms/image medians 25.00 vs 25.00)",
                BenchCommand.ratioLine("batch 1: ratio ours(fp32)/onnxruntime", rounds));
    }
}
