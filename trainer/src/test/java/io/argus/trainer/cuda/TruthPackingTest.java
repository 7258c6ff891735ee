package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.argus.testkit.Budget;
import io.argus.trainer.loss.Truth;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Truths as the loss kernels read them: rows of (x, y, w, h, class) per image, then the counts. */
@Budget(seconds = 5)
class TruthPackingTest {
    @Test
    void rowsAndCounts() {
        List<List<Truth>> truths = List.of(
                List.of(new Truth(0.1f, 0.2f, 0.3f, 0.4f, 2), new Truth(0.5f, 0.6f, 0.7f, 0.8f, 0)),
                List.of(),
                List.of(new Truth(0.9f, 0.8f, 0.1f, 0.2f, 4)));
        int max = TruthPacking.maxTruths(truths, 3);
        assertEquals(2, max);
        assertEquals(1, TruthPacking.maxTruths(List.of(List.of()), 1));
        int room = 4;
        ByteBuffer rows = ByteBuffer.allocate((int) TruthPacking.rowBytes(3, room)).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer counts = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
        TruthPacking.pack(truths, 3, room, rows, counts);
        assertEquals(2, counts.getInt(0));
        assertEquals(0, counts.getInt(4));
        assertEquals(1, counts.getInt(8));
        assertEquals(0.5f, rows.getFloat(20));          // image 0, truth 1, x
        assertEquals(0f, rows.getFloat(36));            // its class
        assertEquals(0.9f, rows.getFloat(2 * room * 20));
        assertEquals(4f, rows.getFloat(2 * room * 20 + 16));
        assertThrows(IllegalArgumentException.class, () -> TruthPacking.pack(truths, 3, 1, rows, counts));
    }
}
