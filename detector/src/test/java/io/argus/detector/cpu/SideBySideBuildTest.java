package io.argus.detector.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.detector.testing.ProjectFiles;
import io.argus.testkit.Budget;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two networks of one model built at the same time in one process (a model on several devices, two models sharing
 * shapes), each tuning its convolutions and sharing what the other chose: each runs the implementation it chose. Both
 * walk oneDNN's list of implementations for the same shapes; walked at once, the primitive cache handed one network
 * the other's implementation (seen in the first round in two runs of two, before the walks were made one at a time).
 */
@Budget(seconds = 15)
class SideBySideBuildTest {
    @TempDir
    Path dir;

    @Test
    void twoNetworksBuiltAtOnceRunWhatEachChose() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            // each round at an input size of its own: shapes no walk has met before in this process
            for (int round = 0; round < 2; round++) {
                NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov3-tiny"), 64 + 32 * round, 64);
                Path tuning = dir.resolve("round-" + round);
                CyclicBarrier together = new CyclicBarrier(2);
                Callable<float[]> build = () -> {
                    together.await(30, TimeUnit.SECONDS);
                    try (CpuNetwork net = new CpuNetwork(spec, WeightsInit.darknet(spec, 3), 1,
                            new CpuOptions(CpuPrecision.FP32, true, tuning))) {
                        net.input().put(0, 0.5f);
                        net.forward(1);
                        return net.outputImage(spec.yoloLayers().get(0).index(), 0);
                    }
                };
                List<Future<float[]>> both = List.of(pool.submit(build), pool.submit(build));
                float[] a = both.get(0).get(60, TimeUnit.SECONDS);
                float[] b = both.get(1).get(60, TimeUnit.SECONDS);
                assertEquals(a.length, b.length);
                for (int i = 0; i < a.length; i++) assertEquals(a[i], b[i], 1e-4f * Math.max(1, Math.abs(a[i])), "round " + round + " value " + i);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
