package io.argus.pipeline.camera;

import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.UnpluggedStream;
import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/** A camera whose stream goes away and comes back reconnects and detects again (CPU decode; NVDEC on the GPU host). */
@Budget(seconds = 80)
class UnpluggedStreamTest {
    @Test
    void anUnpluggedStreamRecoversOnTheCpuDecoder() throws Exception {
        UnpluggedStream.Outcome o = UnpluggedStream.run(TestConfig.demo(), "pipe", "cpu");
        System.out.println("unplugged: " + o.unplugged().encode());
        System.out.println("replugged: " + o.replugged().encode());
    }
}
