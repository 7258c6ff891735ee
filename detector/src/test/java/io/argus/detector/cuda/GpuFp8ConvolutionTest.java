package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.testing.ProjectFiles;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.CudnnDescriptor;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.Fp8;
import io.argus.gpu.GpuBuffer;
import io.argus.gpu.GpuStream;
import io.argus.gpu.Transfers;
import io.argus.gpu.Workspace;
import io.argus.gpu.cudnn.ConvolutionOperation;
import io.argus.gpu.cudnn.ConvolutionPlan;
import io.argus.gpu.cudnn.ConvolutionPlanner;
import io.argus.gpu.cudnn.ConvolutionProblem;
import io.argus.gpu.cudnn.Epilogue;
import io.argus.gpu.cudnn.Numerics;
import io.argus.gpu.cudnn.Operands;
import io.argus.gpu.cudnn.PlanSettings;
import io.argus.gpu.cudnn.StridedShape;
import io.argus.testkit.Budget;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * FP8 E4M3 convolutions through cuDNN's graph API on Hopper, layer by layer on yolov4-tiny's shapes at batch 64:
 * the input quantized with one scale for the tensor, the filters with one per output channel, the epilogue
 * multiplying by their product before bias and leaky. Each layer runs beside the same layer in FP16 on the same
 * values: the FP8 output agrees with the FP16 one within E4M3's rounding, and both are timed (device time, the mean
 * of 20 runs of the plan the planner chose among 4 timed candidates). Channels are padded to 16 for both (FP8 vectors
 * are 16 bytes).
 */
@Tag("gpu")
@Budget(seconds = 120)
class GpuFp8ConvolutionTest {
    static final int BATCH = 64;
    static final int RUNS = 20;

    record Row(int layer, String shape, double fp16Ms, double fp8Ms, double error, String fp16Engine,
               String fp8Engine) {}

    @Test
    void yolov4TinyConvolutionsInFp8AgreeWithFp16AndAreTimed() {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
        DeviceContext ctx = DeviceContext.of(0);
        assumeTrue(ctx.device().computeCapability() >= 89, () -> "FP8 tensor cores need compute capability 8.9, "
                + ctx.device() + " has " + ctx.device().computeCapability());
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov4-tiny"), 416, 416);
        List<Row> rows = new ArrayList<>();
        try (GpuStream stream = new GpuStream(); Workspace workspace = new Workspace()) {
            synchronized (ctx.lock()) {
                ctx.useStream(stream);
                for (ConvolutionalSpec c : spec.convolutionalLayers()) rows.add(layer(ctx, stream, workspace, c));
            }
        }
        double fp16 = 0, fp8 = 0;
        System.out.println("| layer | shape (b64) | FP16 ms | FP8 ms | FP16/FP8 | FP8 vs FP16 rel. L2 | FP16 engine | FP8 engine |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        for (Row r : rows) {
            System.out.printf(Locale.ROOT, "| %d | %s | %.4f | %s | %s | %s | %s | %s |%n", r.layer, r.shape, r.fp16Ms,
                    Double.isNaN(r.fp8Ms) ? "-" : String.format(Locale.ROOT, "%.4f", r.fp8Ms),
                    Double.isNaN(r.fp8Ms) ? "-" : String.format(Locale.ROOT, "%.2f", r.fp16Ms / r.fp8Ms),
                    Double.isNaN(r.error) ? "-" : String.format(Locale.ROOT, "%.2e", r.error), r.fp16Engine, r.fp8Engine);
            fp16 += r.fp16Ms;
            if (!Double.isNaN(r.fp8Ms)) fp8 += r.fp8Ms;
            else fp8 += r.fp16Ms;   // a layer without an FP8 engine stays FP16
        }
        System.out.printf(Locale.ROOT, "convolutions of one forward at batch %d: FP16 %.3f ms, FP8 where cuDNN has an "
                + "engine (else FP16) %.3f ms: %.2fx%n", BATCH, fp16, fp8, fp16 / fp8);
        long planned = rows.stream().filter(r -> !Double.isNaN(r.fp8Ms)).count();
        assertTrue(planned > 0, "cuDNN planned no FP8 convolution of yolov4-tiny");
        for (Row r : rows) {
            // E4M3 keeps 3 mantissa bits: about 2-3% relative rounding per value of input and filter
            if (!Double.isNaN(r.error)) assertTrue(r.error < 0.1, "layer " + r.layer + ": FP8 vs FP16 " + r.error);
        }
    }

    private static Row layer(DeviceContext ctx, GpuStream stream, Workspace workspace, ConvolutionalSpec c) {
        int cin = pad16(c.input().channels());
        int k = pad16(c.filters());
        int r = c.size();
        int h = c.input().height(), w = c.input().width();
        int ho = c.output().height(), wo = c.output().width();
        long image = (long) h * w * cin;
        long outImage = (long) ho * wo * k;
        SplittableRandom random = new SplittableRandom(c.index() + 1);
        // one image of activation-like values (mostly positive, as after leaky), repeated over the batch
        float[] x = new float[(int) image];
        for (int i = 0; i < x.length; i++) {
            x[i] = (i % cin) < c.input().channels() ? (float) (random.nextDouble() * 1.1 - 0.1) : 0f;
        }
        float[] filter = new float[k * r * r * cin];
        float bound = (float) Math.sqrt(3.0 / (r * r * c.input().channels()));
        for (int i = 0; i < filter.length; i++) {
            int ch = i % cin;
            int f = i / (r * r * cin);
            filter[i] = ch < c.input().channels() && f < c.filters() ? (float) ((random.nextDouble() * 2 - 1) * bound) : 0f;
        }
        float[] bias = new float[k];
        for (int i = 0; i < k; i++) bias[i] = (float) (random.nextDouble() * 0.2 - 0.1);
        // FP8: the input's scale for the tensor, one per filter, the epilogue's scale their product
        float xScale = Fp8.scaleFor(amax(x, 0, x.length));
        byte[] x8 = Fp8.encode(x, xScale);
        byte[] filter8 = new byte[filter.length];
        float[] scale = new float[k];
        int per = r * r * cin;
        for (int f = 0; f < k; f++) {
            float s = Fp8.scaleFor(amax(filter, f * per, per));
            float[] one = java.util.Arrays.copyOfRange(filter, f * per, (f + 1) * per);
            System.arraycopy(Fp8.encode(one, s), 0, filter8, f * per, per);
            scale[f] = xScale * s;
        }
        try (GpuBuffer xh = GpuBuffer.device(2 * image * BATCH, "x fp16");
             GpuBuffer xq = GpuBuffer.device(image * BATCH, "x fp8");
             GpuBuffer wh = GpuBuffer.device(2L * filter.length, "w fp16");
             GpuBuffer wq = GpuBuffer.device(filter.length, "w fp8");
             GpuBuffer b = GpuBuffer.device(2L * k, "bias");
             GpuBuffer sc = GpuBuffer.device(4L * k, "scale");
             GpuBuffer yh = GpuBuffer.device(2 * outImage * BATCH, "y fp16");
             GpuBuffer yq = GpuBuffer.device(2 * outImage * BATCH, "y from fp8")) {
            short[] xHalves = Transfers.toHalves(x);
            for (int n = 0; n < BATCH; n++) {
                Transfers.upload(xh.address() + 2 * image * n, xHalves);
                Transfers.upload(xq.address() + image * n, x8);
            }
            Transfers.upload(wh.address(), Transfers.toHalves(filter));
            Transfers.upload(wq.address(), filter8);
            Transfers.upload(b.address(), Transfers.toHalves(bias));
            Transfers.upload(sc.address(), scale);
            StridedShape in = StridedShape.dense(BATCH, cin, h, w, cin);
            StridedShape out = StridedShape.dense(BATCH, k, ho, wo, k);
            Epilogue e = Epilogue.biasActivation(Epilogue.Activation.LEAKY);
            Operands o16 = new Operands(xh.address(), wh.address(), yh.address(), b.address(), 0, 0);
            Operands o8 = new Operands(xq.address(), wq.address(), yq.address(), b.address(), 0, sc.address());
            ConvolutionProblem p16 = problem(Numerics.HALF, in, out, cin, c, e, o16);
            ConvolutionProblem p8 = problem(Numerics.FP8, in, out, cin, c, e, o8);
            PlanSettings settings = new PlanSettings(4, Long.MAX_VALUE, null, false);
            ConvolutionPlanner planner = ConvolutionPlanner.of(ctx);
            ConvolutionPlan plan16 = planner.plan(p16, o16, workspace, stream, ctx.cudnn(), settings);
            assertTrue(plan16 != null, "no FP16 plan for layer " + c.index());
            double ms16 = time(plan16, o16, workspace, stream, ctx);
            ConvolutionPlan plan8 = planner.plan(p8, o8, workspace, stream, ctx.cudnn(), settings);
            String shape = String.format(Locale.ROOT, "%dx%dx%d -> %dx%dx%d, %dx%d/%d", h, w, cin, ho, wo, k, r, r,
                    c.strideX());
            if (plan8 == null) {
                System.out.println("layer " + c.index() + " " + shape + ": cuDNN has no FP8 engine");
                return new Row(c.index(), shape, ms16, Double.NaN, Double.NaN, plan16.describe(), "none");
            }
            double ms8 = time(plan8, o8, workspace, stream, ctx);
            float[] ref = Transfers.download(yh.address(), outImage, io.argus.gpu.ElementType.HALF);
            float[] got = Transfers.download(yq.address(), outImage, io.argus.gpu.ElementType.HALF);
            return new Row(c.index(), shape, ms16, ms8, Compare.relativeL2(got, ref), plan16.describe(),
                    plan8.describe());
        }
    }

    private static ConvolutionProblem problem(Numerics numerics, StridedShape in, StridedShape out, int cin,
                                              ConvolutionalSpec c, Epilogue e, Operands o) {
        return new ConvolutionProblem(ConvolutionOperation.FORWARD, numerics, in, out, cin, c.size(), c.strideY(),
                c.strideX(), c.pad(), e, null, 0f, ConvolutionProblem.alignmentOf(o.input(), o.filter(), o.output(),
                o.bias(), o.scale()));
    }

    private static double time(ConvolutionPlan plan, Operands o, Workspace workspace, GpuStream stream,
                               DeviceContext ctx) {
        try (CudnnDescriptor pack = o.pack(workspace.address())) {
            plan.execute(ctx.cudnn(), pack);
            stream.synchronize();
            return stream.time(() -> {
                for (int i = 0; i < RUNS; i++) plan.execute(ctx.cudnn(), pack);
            }) / RUNS;
        }
    }

    private static float amax(float[] v, int from, int count) {
        float m = 0;
        for (int i = from; i < from + count; i++) m = Math.max(m, Math.abs(v[i]));
        return m;
    }

    private static int pad16(int c) {
        return (c + 15) / 16 * 16;
    }
}
