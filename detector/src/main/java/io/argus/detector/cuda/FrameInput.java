package io.argus.detector.cuda;

import static org.bytedeco.cuda.global.cudart.cudaEventCreateWithFlags;
import static org.bytedeco.cuda.global.cudart.cudaEventDestroy;
import static org.bytedeco.cuda.global.cudart.cudaEventDisableTiming;
import static org.bytedeco.cuda.global.cudart.cudaEventRecord;
import static org.bytedeco.cuda.global.cudart.cudaGetLastError;
import static org.bytedeco.cuda.global.cudart.cudaMemLocationTypeDevice;
import static org.bytedeco.cuda.global.cudart.cudaMemPrefetchAsync;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyAsync;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyHostToDevice;
import static org.bytedeco.cuda.global.cudart.cudaStreamWaitEvent;

import io.argus.detector.BgrImage;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.onnx.OnnxInput;
import io.argus.detector.post.InputGeometry;
import io.argus.gpu.CudaLog;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.DevicePointer;
import io.argus.gpu.GpuBuffer;
import io.argus.gpu.GpuStream;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.MemoryMode;
import io.argus.gpu.Status;
import io.argus.gpu.TensorView;
import java.nio.ByteBuffer;
import java.util.List;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.cudaMemLocation;
import org.bytedeco.javacpp.Pointer;

/**
 * Frames into the network input. DEVICE: the BGR bytes go into pinned staging, then asynchronous copies to device
 * memory; frames that already lie in page-locked host memory (a camera's frame pool allocates its buffers so when a
 * GPU runs the model) skip the staging copy and are uploaded from where they are. UNIFIED on an integrated GPU (one
 * memory): the frame area is managed memory, frames are written into it directly, and frames already written into
 * {@link #frameSlot} cost no copy at all. UNIFIED on a discrete GPU: frames
 * are staged and copied as DEVICE's, into device memory too, until a producer asks for a {@link #frameSlot}; from
 * then on the area is managed memory (the host writing managed pages that live on the GPU faulted every page back
 * first: yolov4-tiny's 64 frames of 768x576 took 16 ms a batch, against 4 ms staged; and copies into managed pages
 * kept three batches in flight at 40% of the forward's images/s where device memory kept them at 53%). Then
 * one kernel (preprocess.cu) resizes or letterboxes every image of the batch straight into the FP16 NHWC input
 * tensor, by Darknet's convention or, for an imported model, by its family's ({@link OnnxInput}: where the picture
 * lands is decided here as OnnxInput decides it, the pixels by the kernel as OnnxInput computes them). The frame area
 * grows to the largest batch of bytes seen.
 *
 * <p>Staged frames can also go in ahead ({@link #prestage}): the next call's frames copied into a second staging area
 * and uploaded on a copy stream into a second frame area while the network still runs on this call's, so that a
 * worker kept busy with batches moves the bytes of one batch while the GPU computes the previous one (64 frames of
 * 768x576 are 85 MB: their upload took about as long as yolov4-tiny's forward of them). The next {@link #stage} of
 * the same pictures then only waits for that upload and swaps the two areas.
 */
final class FrameInput implements AutoCloseable {
    private static final int INFO_BYTES = 40;   // struct FrameInfo in preprocess.cu
    /** From this many bytes of frames the copy into staging runs on several threads, in passes. */
    private static final long PARALLEL_COPY_BYTES = 8L << 20;
    /** Passes of a large batch: the upload of one overlaps the copy of the next. */
    private static final int COPY_PASSES = 4;

    private final DeviceContext ctx;
    private final boolean unified;
    private final boolean staged;   // frames not already in place go through pinned staging and a copy
    private boolean managed;        // the frame area is managed memory: unified on an integrated GPU, or slots asked
    private final int maxBatch;
    private final NetworkSpec spec;
    private final OnnxInput.Convention convention;
    private final GpuBuffer infoHost;
    private final GpuBuffer infoDevice;
    private final KernelLaunch launch;
    private final int framesSlot;
    private final int nSlot;
    private GpuBuffer frames;    // managed (unified) or device
    private GpuBuffer staging;   // pinned (when staged)
    private long slotStride;
    private boolean prefetch;
    // frames staged ahead (prestage): a second pair of areas, the copy stream and the event of their upload
    private GpuBuffer aheadFrames;
    private GpuBuffer aheadStaging;
    private GpuStream copies;
    private CUevent_st aheadUploaded;
    private List<BgrImage> aheadImages;   // the pictures staged ahead, null when none
    private long[] aheadOffsets;
    private long copiedBytes;   // frame bytes copied on the host (into staging or the frame area) since open

    /** {@code convention}: an imported model's input convention, null for Darknet's. */
    FrameInput(DeviceContext ctx, MemoryMode mode, int maxBatch, NetworkSpec spec, TensorView input,
               OnnxInput.Convention convention) {
        this.ctx = ctx;
        this.convention = convention;
        this.unified = mode == MemoryMode.UNIFIED;
        this.staged = !unified || !ctx.device().integrated();
        this.managed = !staged;
        this.maxBatch = maxBatch;
        this.spec = spec;
        long info = (long) INFO_BYTES * maxBatch;
        this.infoHost = staged ? GpuBuffer.pinned(info, "frame descriptions") : GpuBuffer.managed(info, "frame descriptions");
        this.infoDevice = staged ? GpuBuffer.device(info, "frame descriptions") : null;
        this.prefetch = unified && ctx.device().concurrentManagedAccess() && !ctx.device().integrated();
        ensure(16L * 1024 * 1024);
        launch = KernelLaunch.of(ctx.kernels(), "preprocess.cu", "letterbox_rgb_fp16");
        framesSlot = launch.pointer(frames.address());
        launch.pointer(staged ? infoDevice.address() : infoHost.address());
        launch.pointer(input.base());
        launch.i64(input.imageStride());
        launch.i32(input.pixelStride());
        launch.i32(spec.net().width());
        launch.i32(spec.net().height());
        nSlot = launch.i32(1);
        // preprocess.cu's CONVENTION_*; scale and grey as OnnxInput computes them, in float
        float scale = convention == OnnxInput.Convention.ULTRALYTICS ? 1f / 255 : 1f;
        launch.i32(convention == null ? 0 : convention == OnnxInput.Convention.ULTRALYTICS ? 1 : 2);
        launch.f32(scale);
        launch.f32(114f * scale);
    }

    /** The frame area (and its staging) at least {@code bytes}, of the kind {@link #managed} asks for. */
    private void ensure(long bytes) {
        boolean rightKind = frames != null && (frames.kind() == GpuBuffer.Kind.MANAGED) == managed;
        if (rightKind && frames.bytes() >= bytes) return;
        long size = Math.max(bytes, frames == null ? 0 : rightKind ? frames.bytes() * 2 : frames.bytes());
        if (frames != null) frames.close();
        if (staging != null) staging.close();
        frames = managed ? GpuBuffer.managed(size, "frames") : GpuBuffer.device(size, "frames");
        staging = staged ? GpuBuffer.pinned(size, "frame staging") : null;
        if (launch != null) launch.setPointer(framesSlot, frames.address());
    }

    /**
     * A region of the managed frame area (unified mode) that a producer can decode a frame into; a {@link BgrImage}
     * over it is then read by the kernel in place. Slots are {@code bytes} apart (the largest size asked for so
     * far); asking for a larger size lays the slots out anew, so ask every slot with the same size.
     */
    ByteBuffer frameSlot(int slot, int bytes) {
        if (!unified) throw new IllegalStateException("frame slots exist in unified memory mode only");
        // a discrete GPU's frames were in device memory so far: from now on the area is managed (ensure reallocates
        // it), and frames staged ahead into a device area are not swapped in (the next call copies them)
        managed = true;
        aheadImages = null;
        slotStride = Math.max(slotStride, align(bytes));
        ensure(slotStride * maxBatch);
        return frames.host().slice((int) (slotStride * slot), bytes);
    }

    private static long align(long v) {
        return (v + 15) & ~15L;
    }

    /**
     * Copies (or finds in place) the frames and enqueues the preprocess kernel, Darknet's convention; returns where each
     * image landed.
     */
    InputGeometry[] stage(List<BgrImage> images, GpuStream stream) {
        if (convention != null) throw new IllegalStateException("an imported model's frames go through stageImported");
        int n = images.size();
        InputGeometry[] geometry = new InputGeometry[n];
        int[][] placement = new int[n][];
        for (int i = 0; i < n; i++) {
            BgrImage im = images.get(i);
            InputGeometry g = InputGeometry.of(spec.net().width(), spec.net().height(), im.width(), im.height(),
                    spec.net().letterBox());
            geometry[i] = g;
            placement[i] = new int[] {g.resizedWidth(), g.resizedHeight(), g.offsetX(), g.offsetY()};
        }
        enqueue(images, placement, stream);
        return geometry;
    }

    /** As {@link #stage}, by the imported model's convention; returns where each image landed. */
    OnnxInput.Geometry[] stageImported(List<BgrImage> images, GpuStream stream) {
        if (convention == null) throw new IllegalStateException("a Darknet model's frames go through stage");
        int n = images.size();
        OnnxInput.Geometry[] geometry = new OnnxInput.Geometry[n];
        int[][] placement = new int[n][];
        for (int i = 0; i < n; i++) {
            placement[i] = new int[4];
            geometry[i] = placeImported(convention, images.get(i).width(), images.get(i).height(), spec.net().width(),
                    spec.net().height(), placement[i]);
        }
        enqueue(images, placement, stream);
        return geometry;
    }

    /** Where {@link OnnxInput#write} puts a w x h picture ({@link OnnxInput#place}): resized w, h, left, top. */
    static OnnxInput.Geometry placeImported(OnnxInput.Convention convention, int w, int h, int netWidth, int netHeight,
                                            int[] placement) {
        return OnnxInput.place(convention, w, h, netWidth, netHeight, placement);
    }

    /** Copies the frames (or finds them in place) and enqueues the kernel; placement[i]: resized w, h, left, top. */
    private void enqueue(List<BgrImage> images, int[][] placement, GpuStream stream) {
        int n = images.size();
        long[] offsets = new long[n];
        boolean[] inPlace = new boolean[n];
        long total = 0;
        for (int i = 0; i < n; i++) {
            BgrImage im = images.get(i);
            long inside = managed ? offsetInside(im.pixels()) : -1;
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
            total = packed(images, offsets);
        }
        if (aheadImages != null && same(aheadImages, images)) {
            // staged ahead: wait for its upload, then read that area
            Status.cuda(cudaStreamWaitEvent(stream.handle(), aheadUploaded, 0), "cudaStreamWaitEvent frames ahead");
            GpuBuffer f = frames, st = staging;
            frames = aheadFrames;
            staging = aheadStaging;
            aheadFrames = f;
            aheadStaging = st;
            launch.setPointer(framesSlot, frames.address());
            offsets = aheadOffsets;
            java.util.Arrays.fill(inPlace, false);
        } else {
            ensure(total);
            moveFrames(images, offsets, inPlace, pinnedSources(images, inPlace), total, staged ? staging : frames,
                    frames, stream);
        }
        aheadImages = null;
        ByteBuffer info = infoHost.host();
        int netW = spec.net().width();
        int netH = spec.net().height();
        for (int i = 0; i < n; i++) {
            BgrImage im = images.get(i);
            int o = i * INFO_BYTES;
            info.putLong(o, offsets[i]);
            info.putInt(o + 8, im.width());
            info.putInt(o + 12, im.height());
            info.putInt(o + 16, im.stride());
            info.putInt(o + 20, placement[i][0]);
            info.putInt(o + 24, placement[i][1]);
            info.putInt(o + 28, placement[i][2]);
            info.putInt(o + 32, placement[i][3]);
            info.putInt(o + 36, 0);
        }
        prefetch(offsets, inPlace, images, n, stream);
        if (staged) {
            Status.cuda(cudaMemcpyAsync(infoDevice.at(0), infoHost.at(0), (long) INFO_BYTES * n,
                    cudaMemcpyHostToDevice, stream.handle()), "cudaMemcpyAsync frame descriptions");
        }
        launch.setInt(nSlot, n);
        int pixels = netW * netH;
        launch.launch(Math.min((pixels + KernelLaunch.BLOCK - 1) / KernelLaunch.BLOCK, 4 * ctx.device().multiprocessors()),
                n, KernelLaunch.BLOCK, stream.handle());
    }

    /**
     * The pixels of the frames not in place into {@code host} (pinned staging, or the frame area itself when not
     * staged) at their offsets; when staged, each pass's bytes then uploaded into {@code area} on {@code stream}. In
     * passes of images, each copied on several threads, its upload enqueued at once so that it runs while the next
     * pass is copied (a batch of 64 768x576 frames is 85 MB: one thread copying it took longer than the network's
     * forward). Frames already in page-locked memory ({@code pinned[i]}, their address) skip the copy: the copy
     * engine reads them where they are.
     */
    private void moveFrames(List<BgrImage> images, long[] offsets, boolean[] inPlace, long[] pinned, long total,
                            GpuBuffer host, GpuBuffer area, GpuStream stream) {
        int n = images.size();
        boolean[] skip = inPlace.clone();
        long copied = 0;
        for (int i = 0; i < n; i++) {
            skip[i] |= pinned[i] != 0;
            if (!skip[i]) copied += align(bytesOf(images.get(i)));
        }
        boolean allCopied = copied == total;
        copiedBytes += copied;
        int passes = !staged || copied < PARALLEL_COPY_BYTES ? 1 : Math.min(COPY_PASSES, n);
        for (int p = 0; p < passes; p++) {
            int first = p * n / passes, end = (p + 1) * n / passes;
            copy(images, offsets, skip, first, end, host.host(), copied >= PARALLEL_COPY_BYTES);
            if (!staged || end <= first) continue;
            if (allCopied) {   // the copied frames lie one after another: one upload per pass
                long from = offsets[first], to = end < n ? offsets[end] : total;
                upload(host.address() + from, area, from, to - from, stream);
            } else {
                for (int i = first; i < end; i++) {
                    if (inPlace[i]) continue;
                    long source = pinned[i] != 0 ? pinned[i] : host.address() + offsets[i];
                    upload(source, area, offsets[i], bytesOf(images.get(i)), stream);
                }
            }
        }
    }

    /**
     * Per image, the address of its pixels where they lie in page-locked host memory and would otherwise be copied
     * into staging (a camera pool's pinned frames), else 0. Only where frames are staged: without staging the frames
     * are written into the frame area itself.
     */
    private long[] pinnedSources(List<BgrImage> images, boolean[] inPlace) {
        long[] pinned = new long[images.size()];
        if (!staged) return pinned;
        for (int i = 0; i < pinned.length; i++) {
            ByteBuffer px = images.get(i).pixels();
            if (inPlace[i] || !px.isDirect()) continue;
            long address = new Pointer(px).address();
            if (GpuBuffer.pinnedHost(address)) pinned[i] = address;
        }
        return pinned;
    }

    /** {@code bytes} of pinned host memory at {@code source} to {@code offset} in {@code area}. */
    private static void upload(long source, GpuBuffer area, long offset, long bytes, GpuStream stream) {
        Status.cuda(cudaMemcpyAsync(area.at(offset), DevicePointer.at(source), bytes, cudaMemcpyHostToDevice,
                stream.handle()), "cudaMemcpyAsync frames");
    }

    /**
     * Starts moving the frames of the next call (host BGR pictures the caller will pass to {@link #stage} or
     * {@link #stageImported} next, unchanged): copied into the second staging area and uploaded on the copy stream
     * into the second frame area, overlapping whatever the GPU runs now. False (nothing done) where frames are not
     * staged (an integrated GPU's unified memory), where frame slots are in use, or for more than the batch.
     */
    boolean prestage(List<BgrImage> images) {
        aheadImages = null;
        int n = images.size();
        if (!staged || slotStride > 0 || n == 0 || n > maxBatch) return false;
        long[] offsets = new long[n];
        long total = packed(images, offsets);
        if (aheadFrames == null || aheadFrames.bytes() < total) {
            long size = Math.max(total, aheadFrames == null ? 0 : aheadFrames.bytes() * 2);
            if (aheadFrames != null) aheadFrames.close();
            if (aheadStaging != null) aheadStaging.close();
            aheadFrames = GpuBuffer.device(size, "frames ahead");
            aheadStaging = GpuBuffer.pinned(size, "frame staging ahead");
        }
        if (copies != null) {
            copies.synchronize();   // an earlier upload ahead, never claimed, may still read the staging area
        } else {
            copies = new GpuStream();
            aheadUploaded = new CUevent_st();
            Status.cuda(cudaEventCreateWithFlags(aheadUploaded, cudaEventDisableTiming), "cudaEventCreateWithFlags");
        }
        boolean[] none = new boolean[n];
        moveFrames(images, offsets, none, pinnedSources(images, none), total, aheadStaging, aheadFrames, copies);
        Status.cuda(cudaEventRecord(aheadUploaded, copies.handle()), "cudaEventRecord frames ahead");
        aheadImages = List.copyOf(images);
        aheadOffsets = offsets;
        return true;
    }

    /** Every image one after another from 0 ({@code offsets[i]}, aligned); returns the bytes they take. */
    private static long packed(List<BgrImage> images, long[] offsets) {
        long total = 0;
        for (int i = 0; i < images.size(); i++) {
            offsets[i] = total;
            total += align(bytesOf(images.get(i)));
        }
        return total;
    }

    /** The same pictures, by identity, in the same order. */
    private static boolean same(List<BgrImage> a, List<BgrImage> b) {
        if (a.size() != b.size()) return false;
        for (int i = 0; i < a.size(); i++) if (a.get(i) != b.get(i)) return false;
        return true;
    }

    /** Images {@code first..end} not skipped into {@code host} at their offsets, in parallel when asked. */
    private static void copy(List<BgrImage> images, long[] offsets, boolean[] skip, int first, int end,
                             ByteBuffer host, boolean parallel) {
        java.util.function.IntConsumer one = i -> {
            BgrImage im = images.get(i);
            if (!skip[i]) host.put((int) offsets[i], im.pixels(), 0, (int) bytesOf(im));   // absolute: thread-safe
        };
        if (parallel && end - first > 1) java.util.stream.IntStream.range(first, end).parallel().forEach(one);
        else for (int i = first; i < end; i++) one.accept(i);
    }

    /**
     * Unified memory on a discrete GPU that migrates pages on demand: move the frames written into slots to the GPU in
     * bulk before the kernel reads them, instead of page fault by page fault (the others were copied there). Where
     * the driver refuses, frames are read as they are.
     */
    private void prefetch(long[] offsets, boolean[] inPlace, List<BgrImage> images, int n, GpuStream stream) {
        if (!prefetch || !hasInPlace(inPlace)) return;
        cudaMemLocation gpu = new cudaMemLocation();
        gpu.type(cudaMemLocationTypeDevice).id(ctx.device().index());
        int status = 0;
        for (int i = 0; i < n && status == 0; i++) {
            if (inPlace[i]) status = cudaMemPrefetchAsync(frames.at(offsets[i]), bytesOf(images.get(i)), gpu, 0,
                    stream.handle());
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

    /** Frame bytes copied on the host since open: frames in place and page-locked ones are not. */
    long copiedBytes() { return copiedBytes; }

    /** Offset of a direct buffer inside the managed frame area, or -1. */
    private long offsetInside(ByteBuffer pixels) {
        if (!pixels.isDirect() || frames == null) return -1;
        long address = new Pointer(pixels).address();
        long start = frames.address();
        return address >= start && address + 1 <= start + frames.bytes() ? address - start : -1;
    }

    @Override
    public void close() {
        if (copies != null) {
            copies.synchronize();
            cudaEventDestroy(aheadUploaded);
            copies.close();
        }
        if (aheadFrames != null) aheadFrames.close();
        if (aheadStaging != null) aheadStaging.close();
        if (frames != null) frames.close();
        if (staging != null) staging.close();
        infoHost.close();
        if (infoDevice != null) infoDevice.close();
    }
}
