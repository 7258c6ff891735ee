package io.argus.trainer.cuda;

import static org.bytedeco.cuda.global.cudart.cudaMemcpyAsync;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyDeviceToDevice;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyDeviceToHost;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyHostToDevice;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.DeviceMemory;
import io.argus.gpu.DevicePointer;
import io.argus.gpu.GpuBuffer;
import io.argus.gpu.GpuDevice;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.NcclClique;
import io.argus.gpu.Status;
import io.argus.gpu.cudnn.ConvolutionPlanner;
import io.argus.trainer.data.InputSizes;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.loss.LossParts;
import io.argus.trainer.optim.OptimizerState;
import io.argus.trainer.optim.SgdStep;
import io.argus.trainer.train.TrainingBackend;
import java.nio.ByteBuffer;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Training on an NVIDIA GPU behind {@link TrainingBackend}: FP16 (or FP32) NHWC activations and gradients, cuDNN
 * convolutions with FP32 accumulation, batch norm and the YOLO loss in our kernels with FP32 statistics, FP32 master
 * weights, and per step one kernel that checks every gradient for Inf/NaN and one that applies SGD to every tensor
 * and refreshes the FP16 working copy. The host's {@link io.argus.trainer.train.Trainer} keeps the schedule and the
 * {@link io.argus.trainer.precision.LossScaler}, exactly as with the CPU backend.
 *
 * <p>Per pass: the images go to the GPU (pinned staging, one copy, one kernel to NHWC), or are copied on the device
 * from a batch made resident with {@link #keepResident}; the truths follow; then forward, loss, backward and the
 * gradient check are enqueued, and the loss parts read back (the one synchronization of a pass).
 */
public final class CudaTrainingBackend implements TrainingBackend {
    private final NetworkSpec spec;
    private final int maxBatch;
    private final CudaTrainingOptions options;
    private final DeviceMemory memory = new DeviceMemory();
    private final GpuTrainContext ctx;
    private final ParameterArena arena;
    private final GpuParameters parameters;
    /** The network at the cfg's input size. */
    private final GpuTrainNetwork network;
    /** A supplied loss, in place of the YOLO loss; null when training (the YOLO loss). */
    private final HeadLoss suppliedLoss;
    private final GpuBuffer lossHost;
    /** Per input size "WxH": the network and what feeds it; the cfg's size first, then {@link #prepareInputSizes}'. */
    private final Map<InputSizes.Size, Sized> sizes = new java.util.LinkedHashMap<>();
    /** The most input pixels of any size: the staging buffers are made for it. */
    private int maxPixels;
    private final Map<float[], GpuBuffer> resident = new IdentityHashMap<>();
    /** This backend's part of a data-parallel run's gradient sums, or null when it trains alone. */
    private final GradientAllReduce allReduce;
    private final long steadyBytes;
    /** Bytes a planning candidate may need beyond the workspace already chosen (a tenth of the set-up's memory). */
    private long planningHeadroom;
    private String planning = "not planned";
    /** Two slots of pinned and device buffers for the images: one read by the pass, one filled for the next. */
    private InputStaging staging;
    private GpuBuffer truthsHost;
    private GpuBuffer truthsDevice;
    private int truthCapacity;

    /**
     * Gradient values per bucket of a data-parallel rank's sums (4 MiB of FP32): yolov4-tiny's 6 M weights make six,
     * so all but the first layers' sums overlap the backward pass; PyTorch DDP's 25 MB buckets would make one.
     */
    static final long BUCKET_VALUES = 1L << 20;

    /**
     * The network made for one input size (multi-scale training makes one per size, all on the same parameters, the
     * same context and workspace; only one runs at a time), its input kernel and its passes of a supplied loss.
     */
    private record Sized(GpuTrainNetwork network, KernelLaunch inputKernel, int inputTotalSlot,
                         List<HeadLoss.Pass> headLoss) {
        static Sized of(GpuTrainNetwork net, GpuTrainContext ctx, HeadLoss loss) {
            KernelLaunch k = ctx.kernel("train_input.cu", "input_nhwc");
            k.pointer(0);
            k.pointer(net.input().address());
            k.i32(net.input().pixels());
            int slot = k.i64(1);
            return new Sized(net, k, slot, loss == null ? null : net.heads().stream().map(loss::attach).toList());
        }
    }

    public CudaTrainingBackend(NetworkSpec spec, ModelWeights initial, int maxBatch, CudaTrainingOptions options) {
        this(spec, initial, maxBatch, options, null, false, null);
    }

    /**
     * One rank of a data-parallel run on the GPU of {@code options.device()} (which must be {@code rank}'s device):
     * the iteration's last pass sums the gradients over the ranks through NCCL ({@link GradientAllReduce}).
     * {@code rank} null: alone.
     */
    public CudaTrainingBackend(NetworkSpec spec, ModelWeights initial, int maxBatch, CudaTrainingOptions options,
                               NcclClique.Rank rank) {
        this(spec, initial, maxBatch, options, null, false, rank);
    }

    /** A rank of a data-parallel benchmark: the supplied loss, the gradients summed over the ranks. */
    public CudaTrainingBackend(NetworkSpec spec, ModelWeights initial, int maxBatch, CudaTrainingOptions options,
                               HeadLoss loss, NcclClique.Rank rank) {
        this(spec, initial, maxBatch, options, Objects.requireNonNull(loss, "loss"), false, rank);
    }

    /**
     * A backend whose passes differentiate {@code loss} instead of the YOLO loss (a benchmark's, see {@link HeadLoss});
     * the batches' truths are then not read.
     */
    public CudaTrainingBackend(NetworkSpec spec, ModelWeights initial, int maxBatch, CudaTrainingOptions options,
                               HeadLoss loss) {
        this(spec, initial, maxBatch, options, Objects.requireNonNull(loss, "loss"), false, null);
    }

    /**
     * {@code keepGradients}: every layer's feature-map gradient in bytes of its own, so tests can read each one after a
     * pass ({@link GpuTrainNetwork#gradient}); training shares bytes between gradients never live at once.
     */
    CudaTrainingBackend(NetworkSpec spec, ModelWeights initial, int maxBatch, CudaTrainingOptions options,
                        boolean keepGradients) {
        this(spec, initial, maxBatch, options, null, keepGradients, null);
    }

    private CudaTrainingBackend(NetworkSpec spec, ModelWeights initial, int maxBatch, CudaTrainingOptions options,
                                HeadLoss loss, boolean keepGradients, NcclClique.Rank rank) {
        CudaRuntime.require();
        if (maxBatch <= 0) throw new IllegalArgumentException("maxBatch must be positive, got " + maxBatch);
        if (rank != null && rank.device() != options.device()) {
            throw new IllegalArgumentException("rank " + rank.index() + " is on GPU " + rank.device()
                    + ", the options name GPU " + options.device());
        }
        this.spec = spec;
        this.maxBatch = maxBatch;
        this.options = options;
        GpuDevice device = GpuDevice.query(options.device());
        GpuTrainContext c = null;
        try {
            c = new GpuTrainContext(device, options, memory);
            this.ctx = c;
            this.arena = new ParameterArena(spec);
            this.parameters = new GpuParameters(arena, initial, ctx);
            this.network = new GpuTrainNetwork(spec, maxBatch, arena, ctx, keepGradients);
            this.suppliedLoss = loss;
            sizes.put(InputSizes.Size.of(spec), Sized.of(network, ctx, loss));
            this.maxPixels = network.input().pixels();
            this.lossHost = GpuBuffer.pinned(64, "loss readback");
            this.allReduce = rank == null || rank.size() == 1 ? null
                    : new GradientAllReduce(rank, arena, ctx, parameters.flagsAddress(), BUCKET_VALUES);
            planMaxBatch();
            this.steadyBytes = memory.currentBytes();
        } catch (RuntimeException e) {
            memory.close();
            if (c != null) c.close();
            throw e;
        }
    }

    /**
     * The convolutions' plans for the largest batch, from the device's plans, the disk cache or timed now. Candidates
     * may use at most a tenth of what is allocated so far beyond the workspace already chosen, so the planning
     * peak stays within 1.1x of the steady state; the workspace is then fitted to what the plans need.
     */
    private void planMaxBatch() {
        planningHeadroom = memory.currentBytes() / 10;
        ConvolutionPlanner.Counts before = ConvolutionPlanner.of(ctx.context).counts();
        long t0 = System.nanoTime();
        network.plan(maxBatch, planningHeadroom);
        planning = String.format(java.util.Locale.ROOT, "batch %d planned in %d ms: %s", maxBatch,
                (System.nanoTime() - t0) / 1_000_000,
                ConvolutionPlanner.of(ctx.context).counts().minus(before).describe());
    }

    /**
     * Multi-scale training: a network for each of {@code specs}' input sizes (the cfg at other sizes), on this
     * backend's parameters, each planned for the largest batch now, so no pass plans. Their feature maps and gradients
     * are their own (the sum over the sizes: {@link #memoryBreakdown}); the staging of images grows to the largest.
     */
    @Override
    public void prepareInputSizes(List<NetworkSpec> specs) {
        ctx.device.makeCurrent();
        long t0 = System.nanoTime();
        ConvolutionPlanner.Counts before = ConvolutionPlanner.of(ctx.context).counts();
        for (NetworkSpec s : specs) {
            InputSizes.Size k = InputSizes.Size.of(s);
            if (sizes.containsKey(k)) continue;
            if (!OptimizerState.shapes(s).equals(OptimizerState.shapes(spec))) {
                throw new IllegalArgumentException(s.name() + " at " + k + " has other parameters than " + spec.name());
            }
            GpuTrainNetwork net = new GpuTrainNetwork(s, maxBatch, arena, ctx, false);
            sizes.put(k, Sized.of(net, ctx, suppliedLoss));
            net.plan(maxBatch, planningHeadroom);
            maxPixels = Math.max(maxPixels, net.input().pixels());
        }
        if (staging != null && staging.capacity() < (long) maxBatch * 3 * maxPixels) {
            staging.close();
            staging = null;
        }
        planning += String.format(java.util.Locale.ROOT, "; %d input sizes %s planned in %d ms: %s", sizes.size(),
                sizes.keySet(), (System.nanoTime() - t0) / 1_000_000,
                ConvolutionPlanner.of(ctx.context).counts().minus(before).describe());
    }

    /** The network a batch trains on: the one made for the size it names (the cfg's when it names none). */
    private Sized sizedFor(TrainingBatch batch) {
        InputSizes.Size size = batch.sized() ? new InputSizes.Size(batch.width(), batch.height()) : InputSizes.Size.of(spec);
        Sized s = sizes.get(size);
        if (s == null) {
            throw new IllegalArgumentException("a batch at " + size + ", but the GPU "
                    + "trains " + spec.name() + " at " + sizes.keySet() + " only (prepareInputSizes makes the others)");
        }
        return s;
    }

    @Override
    public String name() {
        return "cuda " + options.precision() + " on " + ctx.device;
    }

    @Override
    public String kind() { return "cuda"; }

    /** mixed, fp32 or tf32 (with "-legacy" when graph engines are off). */
    @Override
    public String precision() { return options.modeName(); }

    /** The priority of the stream all its work is enqueued on: the device's lowest ({@link GpuStream#priorityRange()}). */
    public int streamPriority() {
        ctx.device.makeCurrent();
        return ctx.stream.priority();
    }

    @Override
    public NetworkSpec spec() { return spec; }

    @Override
    public int maxBatch() { return maxBatch; }

    public CudaTrainingOptions options() { return options; }

    public GpuDevice device() { return ctx.device; }

    /** The device memory it holds, every input size's network included. */
    @Override
    public String memory() {
        return String.format(java.util.Locale.ROOT, "device memory %,d MiB%s", allocatedBytes() >> 20,
                sizes.size() > 1 ? " for its " + sizes.size() + " input sizes" : "");
    }

    /** Device bytes this backend holds now (feature maps, gradients, parameters, workspace, resident batches). */
    public long allocatedBytes() { return memory.currentBytes(); }

    /** The most device bytes it held at once, cuDNN's planning workspace included. */
    public long peakAllocatedBytes() { return memory.peakBytes(); }

    /** Device bytes after set-up, before any batch was uploaded or made resident. */
    public long steadyBytes() { return steadyBytes; }

    /** Per layer: what runs, and cuDNN's algorithms for the largest batch. */
    public String describe() { return network.describe(maxBatch); }

    /** How the largest batch's convolutions were planned: time, and plans from the cache or searched. */
    public String planning() { return planning; }

    /**
     * Uploads a batch's images once and keeps them on the device in the network's input layout: later passes over
     * this same batch object copy them on the device instead of from the host (for benchmarks and fixed pools).
     */
    public void keepResident(TrainingBatch batch) {
        if (resident.containsKey(batch.images())) return;
        Sized at = sizedFor(batch);
        uploadImages(batch, at);
        GpuTrainNetwork net = at.network();
        GpuBuffer copy = memory.allocate(net.input().bytes(batch.count()), "resident batch");
        copyDevice(net.input().address(), copy.address(), net.input().bytes(batch.count()));
        ctx.stream.synchronize();
        resident.put(batch.images(), copy);
    }

    private void copyDevice(long from, long to, long bytes) {
        Status.cuda(cudaMemcpyAsync(DevicePointer.at(to), DevicePointer.at(from), bytes, cudaMemcpyDeviceToDevice,
                ctx.stream.handle()), "cudaMemcpyAsync device to device");
    }

    private void uploadImages(TrainingBatch batch, Sized at) {
        int n = batch.count();
        GpuTrainNetwork network = at.network();
        int planar = 3 * network.input().pixels();
        if (batch.images().length < (long) n * planar) {
            throw new IllegalArgumentException("batch holds " + batch.images().length + " floats, " + n + " images of "
                    + spec.inputShape() + " need " + (long) n * planar);
        }
        if ((long) n * planar > Integer.MAX_VALUE) throw new IllegalArgumentException("batch over 2^31 floats");
        long images = staging().deviceImages(batch, planar, ctx.stream.handle());
        long pixels = (long) n * network.input().pixels();
        at.inputKernel().setLong(0, images).setLong(at.inputTotalSlot(), pixels)
                .launch(ctx.grid(pixels), ctx.stream.handle());
    }

    private InputStaging staging() {
        if (staging == null) staging = new InputStaging((long) maxBatch * 3 * maxPixels, memory);
        return staging;
    }

    /**
     * The pass, and while it computes, the next pass's batch taken from {@code next} and staged (copied and uploaded
     * behind the pass): the GPU then starts the next pass with its images already there.
     */
    @Override
    public LossParts forwardBackward(TrainingBatch batch, float lossScale, boolean lastOfIteration,
                                     java.util.function.Supplier<TrainingBatch> next) {
        enqueuePass(batch, lossScale, lastOfIteration && allReduce != null);
        TrainingBatch following = next.get();
        if (following != null && following.count() <= maxBatch && !resident.containsKey(following.images())) {
            staging().stage(following, 3 * sizedFor(following).network().input().pixels());
        }
        return finishPass();
    }

    @Override
    public int ranks() { return allReduce == null ? 1 : allReduce.ranks(); }

    @Override
    public LossParts forwardBackward(TrainingBatch batch, float lossScale) {
        return pass(batch, lossScale, false);
    }

    /** On a rank of a data-parallel run, the last pass sums the gradients over the ranks as its backward goes. */
    @Override
    public LossParts forwardBackward(TrainingBatch batch, float lossScale, boolean lastOfIteration) {
        return pass(batch, lossScale, lastOfIteration && allReduce != null);
    }

    private LossParts pass(TrainingBatch batch, float lossScale, boolean sumOverRanks) {
        enqueuePass(batch, lossScale, sumOverRanks);
        return finishPass();
    }

    /** Everything of a pass up to the loss read-back, enqueued on the training stream without waiting. */
    private void enqueuePass(TrainingBatch batch, float lossScale, boolean sumOverRanks) {
        Sized at = sizedFor(batch);
        GpuTrainNetwork network = at.network();
        int n = batch.count();
        if (n <= 0 || n > maxBatch) throw new IllegalArgumentException("batch " + n + " outside 1.." + maxBatch);
        ctx.device.makeCurrent();
        network.plan(n, planningHeadroom);
        GpuBuffer kept = resident.get(batch.images());
        if (kept != null) copyDevice(kept.address(), network.input().address(), network.input().bytes(n));
        else uploadImages(batch, at);
        network.clearForPass();
        network.forward(n);
        loss(batch, at, n, lossScale);
        if (sumOverRanks) {
            network.backward(n, allReduce::afterLayer);
            allReduce.finish();
        } else {
            network.backward(n);
            parameters.accumulateAndCheck();
        }
        Status.cuda(cudaMemcpyAsync(DevicePointer.at(lossHost.address()), DevicePointer.at(network.lossSums()), 40,
                cudaMemcpyDeviceToHost, ctx.stream.handle()), "cudaMemcpyAsync loss");
    }

    /** Waits for the pass enqueued last and reads its loss (the one synchronization of a pass). */
    private LossParts finishPass() {
        ctx.stream.synchronize();
        ByteBuffer l = lossHost.host();
        return new LossParts(l.getDouble(0), l.getDouble(8), l.getDouble(16), (int) Math.round(l.getDouble(24)),
                l.getDouble(32));
    }

    /** Enqueues the loss after the forward pass: the YOLO loss of the batch's truths, or the supplied one. */
    private void loss(TrainingBatch batch, Sized at, int n, float lossScale) {
        if (at.headLoss() == null) {
            yoloLoss(batch, at.network(), n, lossScale);
        } else {
            for (HeadLoss.Pass head : at.headLoss()) head.run(n, lossScale);
        }
    }

    private void yoloLoss(TrainingBatch batch, GpuTrainNetwork network, int n, float lossScale) {
        int maxTruths = TruthPacking.maxTruths(batch.truths(), n);
        if (maxTruths > truthCapacity) {
            if (truthsHost != null) {
                truthsHost.close();
                memory.free(truthsDevice);
            }
            truthCapacity = Math.max(maxTruths, 32);
            long bytes = TruthPacking.rowBytes(maxBatch, truthCapacity) + 4L * maxBatch;
            truthsHost = GpuBuffer.pinned(bytes, "truths (host)");
            truthsDevice = memory.allocate(bytes, "truths");
        }
        long rows = TruthPacking.rowBytes(n, truthCapacity);
        ByteBuffer host = truthsHost.host();
        ByteBuffer counts = host.duplicate().position((int) rows).slice().order(host.order());
        TruthPacking.pack(batch.truths(), n, truthCapacity, host, counts);
        Status.cuda(cudaMemcpyAsync(DevicePointer.at(truthsDevice.address()), DevicePointer.at(truthsHost.address()),
                rows + 4L * n, cudaMemcpyHostToDevice, ctx.stream.handle()), "cudaMemcpyAsync truths");
        network.yoloLoss(n, truthsDevice.address(), truthsDevice.address() + rows, truthCapacity, lossScale);
    }

    /** Per-layer device times of one pass over a resident or host batch (the gradients it leaves are discarded). */
    public String profile(TrainingBatch batch, float lossScale) {
        int n = batch.count();
        Sized at = sizedFor(batch);
        GpuTrainNetwork network = at.network();
        ctx.device.makeCurrent();
        network.plan(n, planningHeadroom);
        GpuBuffer kept = resident.get(batch.images());
        if (kept != null) copyDevice(kept.address(), network.input().address(), network.input().bytes(n));
        else uploadImages(batch, at);
        String table = network.profile(n, () -> loss(batch, at, n, lossScale), parameters::accumulateAndCheck);
        discardGradients();
        return table;
    }

    /** Device memory held now, by kind of buffer (MiB). */
    public String memoryBreakdown() { return memory.breakdown(); }

    @Override
    public boolean gradientsOverflowed() {
        return parameters.overflowed();
    }

    @Override
    public float step(SgdStep step, float lossScale) {
        return parameters.step(step, lossScale);
    }

    @Override
    public void discardGradients() {
        parameters.discard();
    }

    @Override
    public ModelWeights weights(long seen) {
        float[][] host = parameters.download(true);
        return new ModelWeights(0, 2, 5, seen, arena.toDarknet(host[0], host[1]));
    }

    /** Downloads the momentum arena (and the masters while the EMA runs) as Darknet-layout tensors. */
    @Override
    public OptimizerState optimizerState() {
        ctx.device.makeCurrent();
        List<OptimizerState.Shape> shapes = OptimizerState.shapes(spec);
        List<float[]> momentum = arena.toTensors(parameters.velocities());
        List<float[]> masters = parameters.emaStarted() ? arena.toTensors(parameters.download(false)[0]) : null;
        List<OptimizerState.Tensor> tensors = new java.util.ArrayList<>(shapes.size());
        for (int i = 0; i < shapes.size(); i++) {
            tensors.add(new OptimizerState.Tensor(shapes.get(i).name(), momentum.get(i),
                    masters == null ? null : masters.get(i)));
        }
        return new OptimizerState(tensors, masters != null);
    }

    /** Uploads a checkpoint's momentum (and masters, the EMA's shadow then being the weights this was opened with). */
    @Override
    public void restoreOptimizerState(OptimizerState state) {
        String mismatch = OptimizerState.mismatch(state.shapes(), OptimizerState.shapes(spec));
        if (mismatch != null) {
            throw new IllegalArgumentException("optimizer state does not fit " + spec.name() + ": " + mismatch);
        }
        ctx.device.makeCurrent();
        float[] momentum = arena.fromTensors(state.tensors().stream().map(OptimizerState.Tensor::momentum).toList());
        float[] masters = state.emaRunning()
                ? arena.fromTensors(state.tensors().stream().map(OptimizerState.Tensor::master).toList()) : null;
        parameters.restore(momentum, masters);
    }

    /** The masters (never the EMA), for tests and checkpoints of the raw weights. */
    public ModelWeights masterWeights(long seen) {
        float[][] host = parameters.download(false);
        return new ModelWeights(0, 2, 5, seen, arena.toDarknet(host[0], host[1]));
    }

    /** The FP32 masters in the arena's layout (a benchmark checks that data-parallel ranks hold the same bits). */
    public float[] masterArena() {
        return parameters.download(false)[0];
    }

    // ------------------------------------------------------------------ for tests (same package)

    GpuTrainNetwork network() { return network; }

    GpuParameters parameters() { return parameters; }

    ParameterArena arena() { return arena; }

    /** The accumulated FP32 gradients of layer {@code index}'s weights (Darknet's layout), biases, scales. */
    float[][] parameterGradients(int index) {
        float[] all = parameters.gradients();
        ParameterArena.Slot s = arena.slot(index);
        int f = s.spec().filters();
        float[] biases = new float[f];
        System.arraycopy(all, (int) s.biases(), biases, 0, f);
        float[] scales = null;
        if (s.scales() >= 0) {
            scales = new float[f];
            System.arraycopy(all, (int) s.scales(), scales, 0, f);
        }
        return new float[][] {ParameterArena.weightsFromArena(s, all), biases, scales};
    }

    @Override
    public void close() {
        try {
            ctx.stream.synchronize();
        } finally {
            try {
                // the gradient sums' stream first, while the gradients it may still read exist (after a failed rank
                // it reports the error again here; the rest is freed whatever it throws)
                if (allReduce != null) allReduce.close();
            } finally {
                for (Sized at : sizes.values()) at.network().close();
                parameters.close();
                lossHost.close();
                if (staging != null) staging.close();
                if (truthsHost != null) truthsHost.close();
                memory.close();
                ctx.close();
            }
        }
    }
}
