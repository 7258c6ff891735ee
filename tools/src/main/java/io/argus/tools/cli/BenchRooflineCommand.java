package io.argus.tools.cli;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.pipeline.cli.ModelOptions;
import io.argus.tools.detector.Roofline;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code argus bench roofline}: what the roofline allows a model's forward on a GPU ({@link Roofline}; a Darknet
 * cfg or an ONNX model, taken as every command that loads one takes it, {@link ModelOptions}; no weights read), the
 * costliest layers first, and with {@code --measured} how far a measured images/s is from it. Computed, not timed: no
 * GPU needed. The defaults are an H200 SXM's: 989 dense FP16 tensor TFLOP/s, 4.8 TB/s of HBM3e.
 */
@Command(name = "roofline", mixinStandardHelpOptions = true,
        description = {"What the roofline allows a network's forward (computed; no GPU needed).",
                "Per layer the longer of its FLOPs at the peak and its bytes at the bandwidth; the sum over layers."})
final class BenchRooflineCommand implements Callable<Integer> {
    @Mixin
    ModelOptions model = new ModelOptions();

    @Option(names = "--batch", defaultValue = "64", description = "images per batch (default ${DEFAULT-VALUE})")
    int batch;

    @Option(names = "--peak-tflops", defaultValue = "989", description = "dense peak of the storage precision, "
            + "TFLOP/s (default ${DEFAULT-VALUE}: an H200 SXM's FP16 tensor cores)")
    double peakTflops;

    @Option(names = "--bandwidth", defaultValue = "4.8", description = "memory bandwidth, TB/s (default "
            + "${DEFAULT-VALUE}: an H200's HBM3e)")
    double bandwidthTbs;

    @Option(names = "--bytes", defaultValue = "2", description = "bytes per value (default ${DEFAULT-VALUE}: FP16)")
    int bytesPerValue;

    @Option(names = "--top", defaultValue = "10", description = "layers listed, costliest first (default ${DEFAULT-VALUE})")
    int top;

    @Option(names = "--measured", defaultValue = "0", description = "a measured forward, images/s: printed as a share "
            + "of the bound")
    double measured;

    @Override
    public Integer call() {
        // the layers only: a cfg's spec without its weights; an imported model's spec from its graph
        NetworkSpec spec = model.onnx() ? model.load(false).spec() : model.spec();
        Roofline.Result r = Roofline.of(spec, batch, peakTflops, bandwidthTbs, bytesPerValue);
        System.out.printf(Locale.ROOT, "roofline: %s, batch %d, %.0f TFLOP/s, %.2f TB/s, %d bytes per value%n", spec,
                batch, peakTflops, bandwidthTbs, bytesPerValue);
        List<Roofline.Layer> costly = r.layers().stream()
                .sorted(Comparator.comparingDouble(Roofline.Layer::boundMs).reversed()).limit(Math.max(0, top)).toList();
        for (Roofline.Layer l : costly) {
            System.out.printf(Locale.ROOT, "  layer %3d %-14s %8.1f GFLOP %8.1f MB  compute %.4f ms  memory %.4f ms  %s%n",
                    l.index(), l.what(), l.flops() / 1e9, l.bytes() / 1e6, l.computeMs(), l.memoryMs(),
                    l.memoryBound() ? "memory-bound" : "compute-bound");
        }
        long memoryBound = r.layers().stream().filter(l -> l.bytes() > 0 && l.memoryBound()).count();
        System.out.printf(Locale.ROOT, "whole batch: %.1f GFLOP (%.4f ms at the peak), %.1f MB (%.4f ms at the "
                        + "bandwidth); %d layers memory-bound%n", r.flops() / 1e9, r.computeMs(), r.bytes() / 1e6,
                r.memoryMs(), memoryBound);
        System.out.printf(Locale.ROOT, "bound: %.4f ms per batch = %.0f images/s%n", r.boundMs(), r.imagesPerSecond());
        if (measured > 0) {
            System.out.printf(Locale.ROOT, "measured %.0f images/s = %.1f%% of the bound%n", measured,
                    100 * measured / r.imagesPerSecond());
        }
        return 0;
    }
}
