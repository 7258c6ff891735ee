package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.*;

import io.argus.detector.darknet.Activation;
import io.argus.detector.darknet.ConvolutionalSpec;
import java.nio.FloatBuffer;
import org.bytedeco.dnnl.dnnl_memory;
import org.bytedeco.dnnl.dnnl_memory_desc;
import org.bytedeco.dnnl.dnnl_primitive_desc;
import org.bytedeco.dnnl.dnnl_stream;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.Pointer;

/**
 * Our own Winograd convolution F(m x m, 3x3) for an FP32 3x3 stride-1 layer (one group, dilation 1) over channels-last
 * buffers, for a batch of {@code n} images: one more candidate for the {@link ConvolutionTuner}, which keeps it where
 * it is faster than oneDNN's implementations (oneDNN 3.11 has no FP32 Winograd on AVX-512 CPUs).
 *
 * <pre>
 *   input (NHWC) --Java, parallel over tile rows--> V: alpha^2 x [tiles x C]        (B^T d B per tile)
 *   V x U --one oneDNN batched matmul, alpha^2 x ([tiles x C] x [C x K])--> M       (U = G g G^T, at build)
 *   M --Java, parallel over tile rows--> output (NHWC) + bias, leaky/relu           (A^T M A per tile)
 *   [logistic, mish, swish: a oneDNN eltwise primitive in place]
 * </pre>
 *
 * Most of the work (the products) is oneDNN's, threaded as every other primitive; the transforms are
 * {@link WinogradTransforms}, run by the network's {@link ParallelRanges} between two primitives. V and M are the
 * network's (one {@link WinogradWorkspace}); the matmul's own scratch memory is the network's {@link Scratchpad}.
 */
final class WinogradConvolution implements Dnnl.Executable {
    /** Below this many floats in V or M a layer's transforms run on the calling thread alone: waking a thread costs more. */
    static final long PARALLEL_MIN_FLOATS = 1 << 16;
    /**
     * The most floats V or M may hold (512 MiB each): a larger batch is transformed and multiplied in passes of as many
     * images as fit, which keeps the workspace bounded (yolov3-tiny at batch 64 would otherwise want 2.8 GB for V,
     * more than a Java view of native memory can address) at no cost in speed, the products staying large matrices.
     * Not final: a test lowers it to make passes of small layers.
     */
    static long maxWorkspaceFloats = 1L << 27;

    final WinogradTile tile;
    private final WinogradWorkspace workspace;
    private final ParallelRanges threads;
    private final float[] bias;
    private final Pass[] passes;              // in image order; the last may hold fewer images
    private final Dnnl.Primitive activation;   // null unless logistic, mish or swish
    private FloatBuffer tilesView;
    private FloatBuffer productsView;

    /**
     * The transforms and the products of {@code images} consecutive images of the batch, from image {@code first}:
     * their own views of the layer's input and output, so a pass allocates nothing when it runs.
     */
    private final class Pass {
        final WinogradTransforms transforms;
        final Dnnl.Primitive products;
        final boolean parallel;
        final ParallelRanges.Body inputLoop;
        final ParallelRanges.Body outputLoop;

        Pass(ConvolutionalSpec spec, float[] filters, LayerOutput in, LayerOutput out, int first, int images,
             LayerContext context, Dnnl.Resources r, Scratchpad scratch) {
            var s = spec.input();
            var o = spec.output();
            this.transforms = new WinogradTransforms(tile, images, s.height(), s.width(), s.channels(), o.height(),
                    o.width(), spec.filters(), spec.pad(), spec.activation());
            workspace.reserve(transforms);
            long p = tile.products();
            long c = s.channels();
            long k = spec.filters();
            this.parallel = threads.threads() > 1 && p * transforms.tiles * Math.max(c, k) >= PARALLEL_MIN_FLOATS;
            dnnl_memory_desc src = r.desc(new long[] {p, transforms.tiles, c}, dnnl_f32, dnnl_abc);
            dnnl_memory_desc dst = r.desc(new long[] {p, transforms.tiles, k}, dnnl_f32, dnnl_abc);
            dnnl_memory_desc anyWeights = r.desc(new long[] {p, c, k}, dnnl_f32, dnnl_format_tag_any);
            // no bias here: a bias on one of the alpha^2 products ([alpha^2, 1, K]) sends oneDNN 3.11 to its reference
            // matmul, a thousand times slower; the output transform adds it
            dnnl_primitive_desc pd = new dnnl_primitive_desc();
            Dnnl.check(dnnl_matmul_primitive_desc_create(pd, Dnnl.engine(), src, anyWeights, null, dst,
                    r.attr(Activation.LINEAR)), "Winograd products of layer " + spec.index());
            this.products = r.primitive(pd, scratch, DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST);
            products.arg(DNNL_ARG_SRC, workspace.tiles.bind(src))
                    .arg(DNNL_ARG_WEIGHTS, weights(products, transforms, filters, r, scratch, context.stream()))
                    .arg(DNNL_ARG_DST, workspace.products.bind(dst));
            FloatBuffer input = floats(in.pointer(), (long) (first + images) * s.size()).slice(first * s.size(),
                    images * s.size());
            FloatBuffer output = floats(out.pointer(), (long) (first + images) * o.size()).slice(first * o.size(),
                    images * o.size());
            this.inputLoop = (worker, from, to) ->
                    transforms.inputRows(input, tilesView, workspace.staging(worker), from, to);
            this.outputLoop = (worker, from, to) ->
                    transforms.outputRows(productsView, bias, output, workspace.staging(worker), from, to);
        }

        void execute(dnnl_stream stream) {
            run(inputLoop);
            products.execute(stream);
            Dnnl.check(dnnl_stream_wait(stream), "stream_wait");
            run(outputLoop);
        }

        private void run(ParallelRanges.Body loop) {
            if (parallel) threads.forRange(transforms.tileRows, loop);
            else loop.run(0, 0, transforms.tileRows);
        }
    }

    /**
     * @param filters U of {@link WinogradTransforms#filters} for this layer and {@code tile}: copied (reordered into
     *                oneDNN's layout) here
     * @param r       owns this convolution's oneDNN objects and its copy of the filters
     * @param scratch the matmul's scratch memory
     */
    WinogradConvolution(ConvolutionalSpec spec, WinogradTile tile, float[] filters, float[] bias, LayerOutput in,
                        LayerOutput out, int n, LayerContext context, Dnnl.Resources r, Scratchpad scratch) {
        if (!handles(spec, context.precision())) {
            throw new IllegalArgumentException("layer " + spec.index() + " (line " + spec.line() + "): our Winograd "
                    + "convolution needs FP32, size 3, stride 1, one group; found " + context.precision() + ", size "
                    + spec.size() + ", stride " + spec.strideX() + "x" + spec.strideY() + ", groups " + spec.groups());
        }
        this.tile = tile;
        this.workspace = context.winogradWorkspace();
        this.threads = workspace.threads();
        this.bias = bias.clone();
        int perPass = imagesPerPass(spec, tile, n);
        this.passes = new Pass[(n + perPass - 1) / perPass];
        for (int i = 0; i < passes.length; i++) {
            int first = i * perPass;
            passes[i] = new Pass(spec, filters, in, out, first, Math.min(perPass, n - first), context, r, scratch);
        }
        Activation act = spec.activation();
        boolean javaDoesIt = act == Activation.LINEAR || act == Activation.LEAKY || act == Activation.RELU;
        this.activation = javaDoesIt ? null : r.activation(act, out.desc(r, n), out.pointer(), scratch);
    }

    /** How many images of a batch of {@code n} one pass takes: as many as keep V and M within the bound, at least one. */
    static int imagesPerPass(ConvolutionalSpec spec, WinogradTile tile, int n) {
        int m = tile.outputs;
        long tiles = (long) ((spec.output().height() + m - 1) / m) * ((spec.output().width() + m - 1) / m);
        long perImage = tile.products() * tiles * Math.max(spec.input().channels(), spec.filters());
        return (int) Math.max(1, Math.min(n, maxWorkspaceFloats / perImage));
    }

    /** Images per pass and passes, for tests: "64 x 1" is the whole batch at once. */
    String passes() {
        return passes[0].transforms.images + " x " + passes.length;
    }

    /** Whether our Winograd handles this layer in this precision: FP32, 3x3, stride 1, one group (dilation is 1 always). */
    static boolean handles(ConvolutionalSpec spec, CpuPrecision precision) {
        return precision == CpuPrecision.FP32 && spec.size() == 3 && spec.strideX() == 1 && spec.strideY() == 1
                && spec.groups() == 1;
    }

    /** The matmul's implementation, as oneDNN names it (e.g. "brg_matmul:avx512_core"). */
    String productsImplementation() { return passes[0].products.implementation(); }

    @Override
    public void execute(dnnl_stream stream) {
        Dnnl.check(dnnl_stream_wait(stream), "stream_wait");   // the layers before have written our input
        tilesView = workspace.tiles.floats();
        productsView = workspace.products.floats();
        for (Pass p : passes) p.execute(stream);
        if (activation != null) activation.execute(stream);
    }

    /** U in the layout the matmul reads: our plain [alpha^2][C][K] reordered once (in {@code r}) when it differs. */
    private dnnl_memory weights(Dnnl.Primitive products, WinogradTransforms transforms, float[] filters,
                                Dnnl.Resources r, Scratchpad scratch, dnnl_stream stream) {
        long p = tile.products();
        long[] dims = {p, transforms.channels, transforms.filters};
        dnnl_memory_desc plain = r.desc(dims, dnnl_f32, dnnl_abc);
        dnnl_memory_desc wanted = products.query(dnnl_query_weights_md);
        if (dnnl_memory_desc_equal(wanted, plain) != 0) {
            Pointer mine = r.bytes(4L * filters.length);
            new FloatPointer(mine).put(filters);
            return r.memory(plain, mine);
        }
        Pointer blocked = r.bytes(dnnl_memory_desc_get_size(wanted));
        try (Dnnl.Resources temporary = new Dnnl.Resources()) {
            Pointer staged = temporary.bytes(4L * filters.length);
            new FloatPointer(staged).put(filters);
            temporary.reorder(plain, staged, wanted, blocked, scratch).execute(stream);
            Dnnl.check(dnnl_stream_wait(stream), "stream_wait");
        }
        return r.memory(wanted, blocked);
    }

    /** A Java view of {@code count} floats of native memory at {@code p} (allocated once, here). */
    private static FloatBuffer floats(Pointer p, long count) {
        FloatPointer f = new FloatPointer(p);
        f.capacity(count).limit(count);
        return f.asBuffer();
    }
}
