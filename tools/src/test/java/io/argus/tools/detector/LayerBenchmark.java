package io.argus.tools.detector;

import io.argus.detector.cpu.CpuNetwork;
import io.argus.detector.cpu.CpuOptions;
import io.argus.detector.cpu.WinogradPolicy;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import java.nio.file.Path;
import java.util.SplittableRandom;
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

/**
 * The layers that take the most time in yolov4-tiny and yolov3 at 416 (by CpuNetwork.forwardTimed), each alone as a
 * one-layer network over random input: the large 3x3 convolutions, the stride-2 and first convolutions, a 1x1, the
 * 2x2 max pool and a residual shortcut; each with winograd off, f2x2 and f4x4 (forced where it applies: the 3x3
 * stride-1 convolutions; the other layers run the same in all three).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LayerBenchmark {
    @Param({
        "conv3x3_384to256_26",   // yolov4-tiny layer 35: its largest
        "conv3x3_64to64_104",    // yolov4-tiny layer 2
        "conv3x3s2_32to64_208",  // stride-2 downsampling
        "conv3x3s2_3to32_416",   // the first convolution (3 input channels)
        "conv1x1_64to64_104",
        "maxpool2x2_128_104",
        "shortcut_128_104"})     // yolov3 residual add
    public String layer;

    /** models[].cpu.winograd: off (oneDNN's fastest), or our Winograd forced on the 3x3 stride-1 convolutions. */
    @Param({"off", "f2x2", "f4x4"})
    public String winograd;

    private CpuNetwork network;

    static String cfg(String layer) {
        String[] p = layer.split("_");
        String[] io = p[1].split("to");
        int size = Integer.parseInt(p[p.length - 1]);
        String net = "[net]\nwidth=" + size + "\nheight=" + size + "\nchannels=" + io[0] + "\n";
        if (p[0].startsWith("conv")) {
            int k = p[0].startsWith("conv3x3") ? 3 : 1;
            int stride = p[0].endsWith("s2") ? 2 : 1;
            return net + "[convolutional]\nbatch_normalize=1\nfilters=" + io[1] + "\nsize=" + k + "\nstride=" + stride
                    + "\npad=1\nactivation=leaky\n";
        }
        if (p[0].startsWith("maxpool")) return net + "[maxpool]\nsize=2\nstride=2\n";
        // shortcut: a 1x1 conv, then the residual add of its output to itself (timed together; the conv alone above)
        return "[net]\nwidth=" + size + "\nheight=" + size + "\nchannels=" + p[1] + "\n[convolutional]\nfilters=" + p[1]
                + "\nsize=1\nactivation=linear\n[shortcut]\nfrom=-1\nactivation=linear\n";
    }

    @Setup(Level.Trial)
    public void setUp() {
        NetworkSpec spec = NetworkSpec.parse(Path.of(layer + ".cfg"), cfg(layer), 0, 0);
        network = new CpuNetwork(spec, WeightsInit.darknet(spec, 1), 1,
                CpuOptions.DEFAULTS.withWinograd(WinogradPolicy.parse(winograd)));
        SplittableRandom r = new SplittableRandom(1);
        for (int i = 0; i < spec.inputShape().size(); i++) network.input().put(i, (float) r.nextDouble());
        network.forward(1);
    }

    @Benchmark
    public void forward() {
        network.forward(1);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        network.close();
    }
}
