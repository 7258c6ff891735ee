package io.argus.tools.trainer;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.gpu.KernelLibrary;
import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/**
 * Without a GPU: the benchmark's kernel, which the trainer packages apart from the product's kernel set, is found by
 * the kernel library under its bench/ name, with our headers inlined and both type instances of what it launches.
 */
@Budget(seconds = 5)
class StandInLossKernelTest {
    @Test
    void theBenchKernelIsPackagedAndSelfContained() {
        String src = KernelLibrary.source(StandInLoss.FILE);
        assertTrue(src.contains("#include \"common.cuh\""), "includes the shared header (through train_common.cuh)");
        assertFalse(src.matches("(?s).*#include \"(?!common\\.cuh)[a-z_]+\\.cuh\".*"), "our other headers are inlined");
        assertTrue(src.contains("INSTANTIATE(" + StandInLoss.KERNEL + ","), "both instances of " + StandInLoss.KERNEL);
    }
}
