package io.argus.detector.cpu;

import io.argus.testkit.Budget;
import io.argus.testkit.Tiers;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Bf16AgreementTest} on the large cfgs (yolov3, yolov4, yolov4-csp at 416): the same bar, in the system tier
 * because their FP32 and BF16 runs take 8.7 s together on AMD family 25 model 17, 2 cores, and more beside the
 * other unit classes on a loaded machine. Skipped on a CPU without BF16.
 *
 * <p>Budget: 30 s.
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 30)
class Bf16AgreementLargeCfgsTest {
    static List<String> cfgs() { return Bf16AgreementTest.LARGE; }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cfgs")
    void bf16FindsWhatFp32Finds(String name) { Bf16AgreementTest.check(name); }
}
