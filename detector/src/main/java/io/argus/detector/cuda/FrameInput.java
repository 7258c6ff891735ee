package io.argus.detector.cuda;

import static org.bytedeco.cuda.global.cudart.cudaGetLastError;
import static org.bytedeco.cuda.global.cudart.cudaMemLocationTypeDevice;
import static org.bytedeco.cuda.global.cudart.cudaMemPrefetchAsync;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyAsync;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyHostToDevice;

import io.argus.detector.BgrImage;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.post.InputGeometry;
import io.argus.gpu.CudaLog;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuBuffer;
import io.argus.gpu.GpuStream;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.MemoryMode;
import io.argus.gpu.Status;
import io.argus.gpu.TensorView;
import java.nio.ByteBuffer;
import java.util.List;
import org.bytedeco.cuda.cudart.cudaMemLocation;
import org.bytedeco.javacpp.Pointer;

/**
 * Frames into the network input. UNIFIED: the BGR bytes go into a managed buffer that the preprocess kernel reads
 * directly (frames already written into {@link #frameSlot} cost no copy at all); DEVICE: into pinned staging, then
 * one asynchronous copy to device memory. Then one kernel (preprocess.cu) resizes or letterboxes every image of the
 * batch straight into the FP16 NHWC input tensor. The frame area grows to the largest batch of bytes seen.
 */
final class FrameInput implements AutoCloseable {
    private static final int INFO_BYTES = 40;   // struct FrameInfo in preprocess.cu

    private final DeviceContext ctx;
    private final boolean unified;
    private final int maxBatch;
    private final NetworkSpec spec;
    private final GpuBuffer infoHost;
    private final GpuBuffer infoDevice;
    private final KernelLaunch launch;
    private final int framesSlot;
    private final int nSlot;
    private GpuBuffer frames;    // managed (unified) or device
    private GpuBuffer staging;   // pinned (device mode)
    private long slotStride;
    private boolean prefetch;

    FrameInput(DeviceContext ctx, MemoryMode mode, int maxBatch, NetworkSpec spec, TensorView input) {
        this.ctx = ctx;
        this.unified = mode == MemoryMode.UNIFIED;
        this.maxBatch = maxBatch;
        this.spec = spec;
        long info = (long) INFO_BYTES * maxBatch;
        this.infoHost = unified ? GpuBuffer.managed(info, "frame descriptions") : GpuBuffer.pinned(info, "frame descriptions");
        this.infoDevice = unified ? null : GpuBuffer.device(info, "frame descriptions");
        this.prefetch = unified && ctx.device().concurrentManagedAccess() && !ctx.device().integrated();
        ensure(16L * 1024 * 1024);
        launch = KernelLaunch.of(ctx.kernels(), "preprocess.cu", "letterbox_rgb_fp16");
        framesSlot = launch.pointer(frames.address());
        launch.pointer(unified ? infoHost.address() : infoDevice.address());
        launch.pointer(input.base());
        launch.i64(input.imageStride());
        launch.i32(spec.net().width());
        launch.i32(spec.net().height());
        nSlot = launch.i32(1);
    }

    private void ensure(long bytes) {
        if (frames != null && frames.bytes() >= bytes) return;
        long size = Math.max(bytes, frames == null ? 0 : frames.bytes() * 2);
        if (frames != null) frames.close();
        if (staging != null) staging.close();
        frames = unified ? GpuBuffer.managed(size, "frames") : GpuBuffer.device(size, "frames");
        staging = unified ? null : GpuBuffer.pinned(size, "frame staging");
        if (launch != null) launch.setPointer(framesSlot, frames.address());
    }

    /**
     * A region of the managed frame area (unified mode) that a producer can decode a frame into; a {@link BgrImage}
     * over it is then read by the kernel in place. Slots are {@code bytes} apart (the largest size asked for so
     * far); asking for a larger size lays the slots out anew, so ask every slot with the same size.
     */
    ByteBuffer frameSlot(int slot, int bytes) {
        if (!unified) throw new IllegalStateException("frame slots exist in unified memory mode only");
        slotStride = Math.max(slotStride, align(bytes));
        ensure(slotStride * maxBatch);
        return frames.host().slice((int) (slotStride * slot), bytes);
    }

    private static long align(long v) {
        return (v + 15) & ~15L;
    }

    /** Copies (or finds in place) the frames and enqueues the preprocess kernel; returns where each image landed. */
    InputGeometry[] stage(List<BgrImage> images, GpuStream stream) {
        int n = images.size();
        long[] offsets = new long[n];
        boolean[] inPlace = new boolean[n];
        long total = 0;
        for (int i = 0; i < n; i++) {
            BgrImage im = images.get(i);
            long inside = unified ? offsetInside(im.pixels()) : -1;
            if (inside >= 0) {
                offsets[i] = inside;
                inPlace[i] = true;
            } else {
                offsets[i] = total;
                total += align(bytesOf(im));
            }
        }
        if (total > (frames == null ? 0 : frames.bytes()) && hasInPlace(inPlace)) {
            // growing would move frames written in place: copy them too
            java.util.Arrays.fill(inPlace, false);
            total = 0;
            for (int i = 0; i < n; i++) {
                offsets[i] = total;
                total += align(bytesOf(images.get(i)));
            }
        }
        ensure(total);
        ByteBuffer host = unified ? frames.host() : staging.host();
        ByteBuffer info = infoHost.host();
        InputGeometry[] geometry = new InputGeometry[n];
        int netW = spec.net().width();
        int netH = spec.net().height();
        for (int i = 0; i < n; i++) {
            BgrImage im = images.get(i);
            if (!inPlace[i]) host.put((int) offsets[i], im.pixels(), 0, (int) bytesOf(im));
            InputGeometry g = InputGeometry.of(netW, netH, im.width(), im.height(), spec.net().letterBox());
            geometry[i] = g;
            int o = i * INFO_BYTES;
            info.putLong(o, offsets[i]);
            info.putInt(o + 8, im.width());
            info.putInt(o + 12, im.height());
            info.putInt(o + 16, im.stride());
            info.putInt(o + 20, g.resizedWidth());
            info.putInt(o + 24, g.resizedHeight());
            info.putInt(o + 28, g.offsetX());
            info.putInt(o + 32, g.offsetY());
            info.putInt(o + 36, 0);
        }
        if (unified) {
            prefetch(offsets, images, n, stream);
        } else {
            Status.cuda(cudaMemcpyAsync(frames.at(0), staging.at(0), total, cudaMemcpyHostToDevice, stream.handle()),
                    "cudaMemcpyAsync frames");
            Status.cuda(cudaMemcpyAsync(infoDevice.at(0), infoHost.at(0), (long) INFO_BYTES * n,
                    cudaMemcpyHostToDevice, stream.handle()), "cudaMemcpyAsync frame descriptions");
        }
        launch.setInt(nSlot, n);
        int pixels = netW * netH;
        launch.launch(Math.min((pixels + KernelLaunch.BLOCK - 1) / KernelLaunch.BLOCK, 4 * ctx.device().multiprocessors()),
                n, KernelLaunch.BLOCK, stream.handle());
        return geometry;
    }

    /**
     * Unified memory on a GPU that migrates pages on demand: move the frames to the GPU in bulk before the kernel
     * reads them, instead of page fault by page fault. Where the driver refuses, frames are read as they are.
     */
    private void prefetch(long[] offsets, List<BgrImage> images, int n, GpuStream stream) {
        if (!prefetch) return;
        cudaMemLocation gpu = new cudaMemLocation();
        gpu.type(cudaMemLocationTypeDevice).id(ctx.device().index());
        int status = cudaMemPrefetchAsync(infoHost.at(0), (long) INFO_BYTES * n, gpu, 0, stream.handle());
        for (int i = 0; i < n && status == 0; i++) {
            status = cudaMemPrefetchAsync(frames.at(offsets[i]), bytesOf(images.get(i)), gpu, 0, stream.handle());
        }
        if (status != 0) {
            cudaGetLastError();
            prefetch = false;
            CudaLog.info("unified memory: cudaMemPrefetchAsync returned " + status + "; frames migrate on demand");
        }
    }

    private static boolean hasInPlace(boolean[] flags) {
        for (boolean f : flags) if (f) return true;
        return false;
    }

    /** Bytes the kernel may read: every row but the last in full stride, the last as 3 x width. */
    private static long bytesOf(BgrImage im) {
        return (long) im.stride() * (im.height() - 1) + 3L * im.width();
    }

    /** Offset of a direct buffer inside the managed frame area, or -1. */
    private long offsetInside(ByteBuffer pixels) {
        if (!pixels.isDirect() || frames == null) return -1;
        long address = new Pointer(pixels).address();
        long start = frames.address();
        return address >= start && address + 1 <= start + frames.bytes() ? address - start : -1;
    }

    @Override
    public void close() {
        if (frames != null) frames.close();
        if (staging != null) staging.close();
        infoHost.close();
        if (infoDevice != null) infoDevice.close();
    }
}
