package io.argus.trainer.train;

import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.trainer.data.InputSizes;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.loss.LossParts;
import io.argus.trainer.nn.ConvParameters;
import io.argus.trainer.nn.TrainContext;
import io.argus.trainer.nn.TrainNetwork;
import io.argus.trainer.nn.Workers;
import io.argus.trainer.optim.Ema;
import io.argus.trainer.optim.OptimizerState;
import io.argus.trainer.optim.ParameterTensor;
import io.argus.trainer.optim.Sgd;
import io.argus.trainer.optim.SgdStep;
import io.argus.trainer.parallel.HostAllReduce;
import io.argus.trainer.precision.Fp16;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Training on the CPU: {@link TrainNetwork} (the inference engine's layers on oneDNN, forward and backward, on
 * oneDNN's threads; the YOLO loss and the optimizer in Java on {@code threads} workers), FP32 masters updated by
 * {@link Sgd}. With {@code fp16} the network rounds activations, gradients and the working copy of the weights through
 * half precision, so loss-scale overflows happen here as they would on a GPU.
 */
public final class CpuTrainingBackend implements TrainingBackend {
    private final NetworkSpec spec;
    private final boolean fp16;
    private final Workers workers;
    private final TrainContext ctx;
    private final TrainNetwork net;
    /** Networks for other input sizes sharing {@link #net}'s parameters (multi-scale training), by size. */
    private final Map<InputSizes.Size, TrainNetwork> sized = new LinkedHashMap<>();
    private final List<ParameterTensor> tensors = new ArrayList<>();
    private final Ema ema;
    /** This backend's place in a data-parallel run (threads of this process), or null alone. */
    private final HostAllReduce.Member rank;

    public CpuTrainingBackend(NetworkSpec spec, ModelWeights initial, int maxBatch, int threads, boolean fp16) {
        this(spec, initial, maxBatch, threads, fp16, null);
    }

    /**
     * One rank of a data-parallel run on the CPU (the stand-in for GPUs: the same loop, the gradients summed through
     * {@code rank}); {@code rank} null: alone.
     */
    public CpuTrainingBackend(NetworkSpec spec, ModelWeights initial, int maxBatch, int threads, boolean fp16,
                              HostAllReduce.Member rank) {
        this.spec = spec;
        this.fp16 = fp16;
        this.rank = rank;
        this.workers = new Workers(threads);
        this.ctx = new TrainContext(workers, fp16);
        this.net = new TrainNetwork(spec, initial, maxBatch, ctx);
        for (ConvParameters p : net.parameters().values()) {
            tensors.addAll(p.tensors());
            p.refreshWorkingCopy(fp16);
        }
        this.ema = new Ema(tensors);
    }

    @Override
    public String name() { return "cpu " + (fp16 ? "fp16 (emulated)" : "fp32") + ", " + workers.threads() + " threads"; }

    @Override
    public String kind() { return "cpu"; }

    @Override
    public String precision() { return fp16 ? "mixed-emulated" : "fp32"; }

    @Override
    public NetworkSpec spec() { return spec; }

    @Override
    public int maxBatch() { return net.maxBatch(); }

    /** The network, for tests. */
    public TrainNetwork network() { return net; }

    /** All made at once here, so the training loop never plans a network; each holds its own activations. */
    @Override
    public void prepareInputSizes(List<NetworkSpec> sizes) {
        for (NetworkSpec s : sizes) {
            InputSizes.Size size = InputSizes.Size.of(s);
            if (size.equals(InputSizes.Size.of(spec))) continue;
            if (!sized.containsKey(size)) sized.put(size, net.atInput(s));
        }
    }

    /** The input sizes it trains at, "WxH": the cfg's, then those {@link #prepareInputSizes} made. */
    public List<String> inputSizes() {
        List<String> all = new ArrayList<>();
        all.add(InputSizes.Size.of(spec).toString());
        for (InputSizes.Size s : sized.keySet()) all.add(s.toString());
        return all;
    }

    /** The network a batch trains on: the one made for the size it names, else the cfg's. */
    private TrainNetwork networkFor(TrainingBatch batch) {
        if (!batch.sized() || (batch.width() == spec.net().width() && batch.height() == spec.net().height())) return net;
        InputSizes.Size size = new InputSizes.Size(batch.width(), batch.height());
        TrainNetwork n = sized.get(size);
        if (n == null) {
            throw new IllegalArgumentException("a batch at " + size + ", but " + spec.name()
                    + " was made for " + InputSizes.Size.of(spec)
                    + (sized.isEmpty() ? "" : " and " + sized.keySet()));
        }
        return n;
    }

    @Override
    public LossParts forwardBackward(TrainingBatch batch, float lossScale) {
        int n = batch.count();
        TrainNetwork net = networkFor(batch);
        NetworkSpec spec = net.spec();
        int size = spec.inputShape().size();
        if (batch.images().length < n * size) {
            throw new IllegalArgumentException("batch holds " + batch.images().length + " floats, " + n + " images of "
                    + spec.inputShape() + " need " + n * size);
        }
        net.input().put(0, batch.images(), 0, n * size);
        net.forward(n);
        LossParts parts = net.loss(n, batch.truths(), lossScale);
        net.backward(n);
        return parts;
    }

    @Override
    public int ranks() { return rank == null ? 1 : rank.size(); }

    @Override
    public LossParts forwardBackward(TrainingBatch batch, float lossScale, boolean lastOfIteration) {
        LossParts parts = forwardBackward(batch, lossScale);
        if (lastOfIteration && rank != null) rank.sum(tensors.stream().map(ParameterTensor::gradient).toList());
        return parts;
    }

    @Override
    public boolean gradientsOverflowed() {
        boolean[] bad = new boolean[tensors.size()];
        workers.forRange(tensors.size(), (w, from, to) -> {
            for (int t = from; t < to; t++) {
                ParameterTensor p = tensors.get(t);
                bad[t] = !Fp16.allFinite(p.gradient(), 0, p.size());
            }
        });
        for (boolean b : bad) if (b) return true;
        return false;
    }

    @Override
    public float step(SgdStep step, float lossScale) {
        float largest = Sgd.step(tensors, step, lossScale);
        for (ConvParameters p : net.parameters().values()) p.refreshWorkingCopy(fp16);
        if (step.emaAlpha() > 0) ema.update(step.emaAlpha());
        return largest;
    }

    @Override
    public void discardGradients() {
        for (ParameterTensor t : tensors) t.zeroGradient();
    }

    @Override
    public ModelWeights weights(long seen) {
        ModelWeights w = net.weights(seen);
        if (!ema.started()) return w;
        Map<Integer, ConvWeights> averaged = new LinkedHashMap<>();
        int t = 0;
        for (var e : net.parameters().entrySet()) {
            ConvParameters p = e.getValue();
            ConvWeights c = w.conv(e.getKey());
            float[] weights = ema.shadow(t++).clone();
            float[] biases = ema.shadow(t++).clone();
            float[] scales = p.scales() != null ? ema.shadow(t++).clone() : null;
            averaged.put(e.getKey(), new ConvWeights(biases, scales, c.mean(), c.variance(), weights));
        }
        return new ModelWeights(w.major(), w.minor(), w.revision(), seen, averaged);
    }

    @Override
    public OptimizerState optimizerState() {
        List<OptimizerState.Tensor> out = new ArrayList<>(tensors.size());
        for (ParameterTensor t : tensors) {
            float[] master = ema.started() ? t.master().clone() : null;
            out.add(new OptimizerState.Tensor(t.name(), t.velocity().clone(), master));
        }
        return new OptimizerState(out, ema.started());
    }

    @Override
    public void restoreOptimizerState(OptimizerState state) {
        String mismatch = OptimizerState.mismatch(state.shapes(), OptimizerState.shapes(spec));
        if (mismatch != null) {
            throw new IllegalArgumentException("optimizer state does not fit " + spec.name() + ": " + mismatch);
        }
        if (state.emaRunning()) {
            // opened from the checkpoint's .weights, which hold the EMA: those values are the shadow
            ema.resume(tensors.stream().map(ParameterTensor::master).toList());
        }
        for (int i = 0; i < tensors.size(); i++) {
            OptimizerState.Tensor saved = state.tensors().get(i);
            ParameterTensor t = tensors.get(i);
            System.arraycopy(saved.momentum(), 0, t.velocity(), 0, t.size());
            if (saved.master() != null) System.arraycopy(saved.master(), 0, t.master(), 0, t.size());
        }
        if (state.emaRunning()) {
            for (ConvParameters p : net.parameters().values()) p.refreshWorkingCopy(fp16);
        }
    }

    @Override
    public void close() {
        for (TrainNetwork n : sized.values()) n.close();
        net.close();
        ctx.close();
        workers.close();
    }
}
