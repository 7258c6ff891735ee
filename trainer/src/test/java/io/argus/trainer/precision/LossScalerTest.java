package io.argus.trainer.precision;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/** The scaler's rules, step by step: halve on overflow, double after clean runs, bounds, burn-in following. */
@Budget(seconds = 5)
class LossScalerTest {
    @Test
    void overflowSkipsAndHalvesDownToTheMinimum() {
        LossScaler s = new LossScaler(8, 1024, 1, 1000);
        assertFalse(s.accept(true));
        assertEquals(4, s.scale());
        assertFalse(s.accept(true));
        assertFalse(s.accept(true));
        assertEquals(1, s.scale());
        assertFalse(s.accept(true));
        assertEquals(1, s.scale(), "not below min_loss_scale");
        assertEquals(4, s.skipped());
    }

    @Test
    void cleanRunsDoubleUpToTheMaximumAndAnOverflowRestartsTheCount() {
        LossScaler s = new LossScaler(256, 1024, 1, 3);
        assertTrue(s.accept(false));
        assertTrue(s.accept(false));
        assertEquals(256, s.scale());
        assertTrue(s.accept(false));
        assertEquals(512, s.scale(), "doubled after 3 clean steps");
        assertTrue(s.accept(false));
        assertTrue(s.accept(false));
        assertFalse(s.accept(true));
        assertEquals(256, s.scale());
        for (int i = 0; i < 2; i++) assertTrue(s.accept(false));
        assertEquals(256, s.scale(), "the count restarted at the overflow");
        for (int i = 0; i < 12; i++) s.accept(false);
        assertEquals(1024, s.scale(), "not above max_loss_scale");
        assertEquals(1, s.skipped());
    }

    @Test
    void duringBurnInTheScaleFollowsTheLargestUpdateDownSoItFitsHalfPrecision() {
        LossScaler s = new LossScaler(16384, 16384, 0.0009765625f, 1000);
        s.followUpdate(1e-3f, true);
        assertEquals(16384, s.scale(), "16384 x 0.001 fits");
        s.followUpdate(10f, true);
        assertEquals(4096, s.scale(), "largest power of two with scale x 10 <= 65504");
        assertTrue(s.scale() * 10f <= Fp16.MAX);
        s.followUpdate(100f, false);
        assertEquals(4096, s.scale(), "after burn-in only overflows lower it");
        s.followUpdate(1e9f, true);
        assertEquals(0.0009765625f, s.scale(), "not below the minimum");
    }

    @Test
    void badSettingsAreRejectedWithTheKeys() {
        var e = assertThrows(IllegalArgumentException.class, () -> new LossScaler(1, 0.5f, 1, 10));
        assertTrue(e.getMessage().contains("max_loss_scale"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new LossScaler(1, 2, 0.5f, 0));
        assertTrue(e.getMessage().contains("loss_scale_inc_iterations"), e.getMessage());
    }

    @Test
    void halfPrecisionRoundingOverflowsBeyond65504() {
        assertEquals(65504f, Fp16.round(65504f));
        assertEquals(Float.POSITIVE_INFINITY, Fp16.round(70000f));
        assertEquals(0f, Fp16.round(1e-9f));
        assertEquals(1.0009765625f, Fp16.round(1.001f));
    }
}
