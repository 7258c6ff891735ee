package io.argus.detector.cpu;

import io.argus.testkit.Budget;
import io.argus.testkit.Tiers;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Bf16AgreementTest} on the large cfgs (yolov3, yolov4, yolov4-csp at 416): the same bar, in the system tier
 * because on a CPU with BF16 the FP32 and BF16 runs of these networks take about 50 s (27.5 s, 16.6 s and 5.1 s on AMD
 * family 26 model 2, 2 cores). Skipped on a CPU without BF16.
 *
 * <p>Budget: 120 s.
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 120)
class Bf16AgreementLargeCfgsTest {
    static List<String> cfgs() { return Bf16AgreementTest.LARGE; }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cfgs")
    void bf16FindsWhatFp32Finds(String name) { Bf16AgreementTest.check(name); }
}
