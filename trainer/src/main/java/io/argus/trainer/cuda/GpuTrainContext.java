package io.argus.trainer.cuda;

import static org.bytedeco.cuda.global.cudnn.cudnnCreate;
import static org.bytedeco.cuda.global.cudnn.cudnnDestroy;
import static org.bytedeco.cuda.global.cudnn.cudnnSetStream;

import io.argus.gpu.DeviceContext;
import io.argus.gpu.DeviceMemory;
import io.argus.gpu.GpuDevice;
import io.argus.gpu.GpuStream;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.KernelLibrary;
import io.argus.gpu.Status;
import io.argus.gpu.Workspace;
import org.bytedeco.cuda.cudnn.cudnnContext;

/**
 * What the layers of one training network share: the device, the compiled kernels, the stream everything is
 * enqueued on (in order, so no other synchronization is needed; at the device's lowest priority), a cuDNN handle
 * on that stream, the storage precision, the memory ledger, cuDNN's workspace and the rows of per-channel reductions, and the parameter arenas'
 * addresses.
 */
final class GpuTrainContext implements AutoCloseable {
    final GpuDevice device;
    /** The device's shared runtime: kernels, caches and the convolution planner with its plans. */
    final DeviceContext context;
    final KernelLibrary kernels;
    final GpuStream stream;
    final cudnnContext cudnn = new cudnnContext();
    final CudaTrainingOptions options;
    final Precision precision;
    final DeviceMemory memory;
    /** Rows of per-channel partial sums: up to reductionBlocks() blocks x 2 quantities x maxStride floats. */
    long partials;
    /** cuDNN's scratch, counted in the memory ledger: grown while planning, then fitted to the chosen plans. */
    final Workspace workspace;
    /** FP32 master values of every parameter (ParameterArena layout). */
    long master;
    /** FP32 gradients, accumulated over the passes of one step. */
    long gradient;
    /** The weights the convolutions read: FP16 working copy (mixed) or the masters themselves (FP32). */
    long working;
    /** This pass's weight gradient as cuDNN writes it (storage type). */
    long passGradient;
    /** Rolling batch-norm statistics. */
    long statistics;

    GpuTrainContext(GpuDevice device, CudaTrainingOptions options, DeviceMemory memory) {
        this.device = device;
        this.context = DeviceContext.of(device.index());   // makes the device current on this thread
        // created once the device is current (a stream belongs to the device current at its creation), at the
        // lowest priority: a fine-tune beside live detection on the same GPU yields to the detector's stream
        this.stream = new GpuStream(GpuStream.Priority.LOWEST);
        this.kernels = context.kernels();
        this.workspace = new Workspace(memory, "cuDNN workspace");
        this.options = options;
        this.precision = options.precision();
        this.memory = memory;
        Status.cudnn(cudnnCreate(cudnn), "cudnnCreate on " + device);
        Status.cudnn(cudnnSetStream(cudnn, stream.handle()), "cudnnSetStream");
    }

    int reductionBlocks() { return KernelLaunch.REDUCTION_BLOCKS_PER_SM * device.multiprocessors(); }

    KernelLaunch kernel(String file, String name) {
        return KernelLaunch.of(kernels, file, name, precision.storage());
    }

    KernelLaunch plainKernel(String file, String name) {
        return KernelLaunch.of(kernels, file, name);
    }

    int grid(long total) { return KernelLaunch.grid(total, device); }

    int reductionGrid(long lanes) { return KernelLaunch.reductionGrid(lanes, device); }

    /** Address of value {@code index} of an arena of storage-type values. */
    long stored(long base, long index) { return base + index * precision.bytes(); }

    @Override
    public void close() {
        workspace.close();
        cudnnDestroy(cudnn);
        stream.close();
    }
}
