package io.argus.tools.detector;

import io.argus.detector.BgrImage;
import io.argus.detector.cpu.CpuNetwork;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.post.Preprocess;
import io.argus.detector.testing.ProjectFiles;
import io.argus.detector.testing.RandomWeights;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/** The whole CPU network forward at 416x416 (pre-processing excluded, as for the OpenCV peer). */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class NetworkBenchmark {
    @Param({"yolov4-tiny", "yolov3"})
    public String cfg;

    @Param({"1", "8"})
    public int batch;

    private CpuNetwork network;

    @Setup(Level.Trial)
    public void setUp() {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg(cfg), 416, 416);
        BgrImage image = BgrImage.read(ProjectFiles.sampleImages().get(0));
        network = new CpuNetwork(spec, RandomWeights.calibrated(spec, 1, image, 8), batch);
        Preprocess pre = new Preprocess();
        for (int i = 0; i < batch; i++) pre.write(image, 416, 416, false, network.input(), i * spec.inputShape().size());
    }

    @Benchmark
    public void forward() {
        network.forward(batch);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        network.close();
    }
}
