package io.argus.tools.cli;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.cuda.CudaBackend;
import io.argus.detector.cuda.CudaNetwork;
import io.argus.pipeline.cli.CudaSystemProperties;
import io.argus.pipeline.cli.ModelOptions;
import java.util.Collections;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code argus bench forwards}: the CUDA forward of one batch size run a given number of times layer by layer, and
 * nothing else, so that a kernel profiler (Nsight Compute) attached to the process sees the forward's kernels last,
 * each run the same sequence ({@code scripts/gpu/ncu_summary.py} finds the last run by that repetition). Plans come
 * from the plan cache when an earlier run chose them, so planning times no candidate under the profiler; no CUDA graph
 * is captured.
 */
@Command(name = "forwards", mixinStandardHelpOptions = true,
        description = {"Runs the CUDA forward of one batch N times layer by layer, for a kernel profiler."})
final class BenchForwardsCommand implements Callable<Integer> {
    @Mixin
    ModelOptions model = new ModelOptions();

    @Option(names = "--batch", defaultValue = "64", description = "images per batch (default ${DEFAULT-VALUE})")
    int batch;

    @Option(names = "--runs", defaultValue = "3", description = "forwards run (default ${DEFAULT-VALUE})")
    int runs;

    @Override
    public Integer call() {
        if (batch < 1) throw new IllegalArgumentException("--batch: expected at least 1, found " + batch);
        if (runs < 1) throw new IllegalArgumentException("--runs: expected at least 1, found " + runs);
        io.argus.gpu.CudaRuntime.require();   // before the model is read: without a GPU, say so first
        try (CudaBackend backend = CudaBackend.open(model.load(false), batch,
                // no CUDA graph: a profiler cannot profile the kernels of a stream capture
                CudaSystemProperties.inference().withGraphs(false))) {
            CudaNetwork net = backend.network();
            int w = net.spec().net().width(), h = net.spec().net().height();
            byte[] pixels = new byte[3 * w * h];
            java.util.Arrays.fill(pixels, (byte) 114);
            BgrImage grey = BgrImage.of(w, h, pixels);
            backend.detect(Collections.nCopies(batch, grey), new DetectParams(0.999f, 0.45f, null));   // plans
            net.stream().synchronize();
            long t0 = System.nanoTime();
            for (int i = 0; i < runs; i++) net.forwardWithoutGraph(batch);
            net.stream().synchronize();
            System.out.printf(Locale.ROOT, "%s: %d forwards of batch %d layer by layer: %.1f ms%n", net.spec(), runs,
                    batch, (System.nanoTime() - t0) / 1e6);
        }
        return 0;
    }
}
