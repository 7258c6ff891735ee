package io.argus.detector.cuda;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Model;
import io.argus.detector.nn.InferenceBackend;
import io.argus.detector.post.InputGeometry;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.MemoryMode;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The FP16 CUDA backend: frames to the input tensor in one kernel, the network on cuDNN and our kernels (a CUDA
 * graph per batch size), decode and NMS on the GPU; only detections come back. One instance is owned by one thread
 * (an inference worker); several instances may share a device.
 */
public final class CudaBackend implements InferenceBackend {
    private final Model model;
    private final CudaOptions options;
    private final MemoryMode memory;
    private final CudaNetwork network;
    private final FrameInput frames;
    private final GpuPostprocess post;
    private int lastBatch;

    private CudaBackend(Model model, int maxBatch, CudaOptions options) {
        this.model = model;
        this.options = options;
        CudaNetwork net = new CudaNetwork(model.spec(), model.weights(), maxBatch, options);
        FrameInput in = null;
        try {
            this.memory = options.memory().resolve(net.device());
            in = new FrameInput(net.context(), memory, maxBatch, model.spec(), net.input());
            this.post = new GpuPostprocess(net.context(), memory, net.heads(), maxBatch);
        } catch (RuntimeException e) {
            if (in != null) in.close();
            net.close();
            throw e;
        }
        this.network = net;
        this.frames = in;
    }

    /** Opens the model on a GPU; throws {@link CudaUnavailableException} naming what is missing when CUDA is not usable. */
    public static CudaBackend open(Model model, int maxBatch, CudaOptions options) {
        CudaRuntime.require();
        return new CudaBackend(model, maxBatch, options);
    }

    @Override
    public String name() { return "cuda"; }

    @Override
    public int maxBatch() { return network.maxBatch(); }

    public MemoryMode memoryMode() { return memory; }

    public CudaOptions options() { return options; }

    public CudaNetwork network() { return network; }

    @Override
    public List<List<Detection>> detect(List<BgrImage> images, DetectParams params) {
        int n = images.size();
        if (n == 0) return List.of();
        if (n > maxBatch()) throw new IllegalArgumentException(n + " images, max batch " + maxBatch());
        network.device().makeCurrent();
        InputGeometry[] geometry = frames.stage(images, network.stream());
        network.forward(n);
        lastBatch = n;
        return post.run(n, geometry, params, model.names(), network);
    }

    /**
     * In unified memory mode, a buffer in managed memory to decode frame {@code slot} into: a {@link BgrImage} over it
     * passed to {@link #detect} is read by the GPU where it is, with no copy. Valid until a larger batch of frames
     * that are not in slots makes the frame area grow.
     */
    public ByteBuffer frameSlot(int slot, int bytes) {
        if (slot < 0 || slot >= maxBatch()) throw new IndexOutOfBoundsException("slot " + slot + " of " + maxBatch());
        return frames.frameSlot(slot, bytes);
    }

    /** Anchors over the threshold in all images of the last detect call (before NMS). */
    public int lastCandidates() { return post.lastCandidates(); }

    /** Images of the last detect call post-processed on the CPU (more candidates than the GPU buffers hold). */
    public int lastCpuFallbacks() { return post.lastFallbacks(); }

    @Override
    public float[] headOutput(int head, int image) {
        if (image < 0 || image >= lastBatch) throw new IndexOutOfBoundsException("image " + image + " of " + lastBatch);
        return network.headOutput(head, image);
    }

    @Override
    public void close() {
        post.close();
        frames.close();
        network.close();
    }
}
