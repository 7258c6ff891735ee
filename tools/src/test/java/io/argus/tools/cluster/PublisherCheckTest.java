package io.argus.tools.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import io.argus.tools.cluster.DetectionTap.Received;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

@Budget(seconds = 5)
class PublisherCheckTest {
    /** Messages of one camera every 40 ms from {@code node} with {@code epoch}, arriving 20 ms after capture. */
    private static List<Received> stream(String node, long epoch, double fromMs, double toMs) {
        List<Received> out = new ArrayList<>();
        for (double t = fromMs; t < toMs; t += 40) out.add(new Received(t + 20, "cam1", node, epoch, (long) t, t));
        return out;
    }

    @Test
    void aHandOverInOneSampleIsNotAnOverlap() {
        List<Received> msgs = new ArrayList<>(stream("a", 1, 0, 960));
        // the old owner's last frame (captured at 960) arrives late, at 1010; the new owner's first (1000) at 1020:
        // both in the sample [1000, 1100), their frame times apart
        msgs.add(new Received(1010, "cam1", "a", 1, 960, 960));
        msgs.addAll(stream("b", 2, 1000, 2000));
        var r = PublisherCheck.check(msgs, 100);
        assertTrue(r.clean(), r.toString());
        assertEquals(1, r.handoverSamples(), "the sample with both owners' frames");
        assertEquals(0, r.overlappingSamples());
    }

    @Test
    void twoNodesStreamingAtOnceAreCaught() {
        List<Received> msgs = new ArrayList<>(stream("a", 1, 0, 1000));
        msgs.addAll(stream("b", 2, 500, 1500)); // b starts while a still streams
        var r = PublisherCheck.check(msgs, 100);
        assertFalse(r.clean());
        assertTrue(r.overlappingSamples() >= 4, r.toString()); // 500..1000 ms: both streaming
        assertEquals(1, r.interleavedEpochs(), r.toString());
    }

    @Test
    void anEpochGoingBackOrFromTwoNodesIsCaught() {
        List<Received> msgs = new ArrayList<>(stream("a", 2, 0, 400));
        msgs.addAll(stream("b", 1, 400, 800)); // a stale owner's epoch after a newer one
        var r = PublisherCheck.check(msgs, 100);
        assertTrue(r.epochRegressions() > 0, r.toString());
        List<Received> same = new ArrayList<>(stream("a", 3, 0, 400));
        same.addAll(stream("b", 3, 400, 800));
        assertEquals(1, PublisherCheck.check(same, 100).epochsFromTwoNodes());
    }
}
