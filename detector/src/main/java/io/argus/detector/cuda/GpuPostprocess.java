package io.argus.detector.cuda;

import static org.bytedeco.cuda.global.cudart.cudaMemcpyAsync;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyDeviceToHost;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyHostToDevice;
import static org.bytedeco.cuda.global.cudart.cudaMemsetAsync;

import io.argus.detector.Box;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.cuda.layers.KernelCodes;
import io.argus.detector.cuda.layers.Yolo;
import io.argus.detector.darknet.YoloSpec;
import io.argus.detector.darknet.YoloSpec.NmsKind;
import io.argus.detector.post.Candidate;
import io.argus.detector.post.Detections;
import io.argus.detector.post.InputGeometry;
import io.argus.detector.post.YoloDecoder;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuBuffer;
import io.argus.gpu.GpuStream;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.MemoryMode;
import io.argus.gpu.Status;
import io.argus.gpu.Transfers;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * YOLO decode, confidence filter and per-class NMS on the GPU (yolo_decode.cu, nms.cu): only the final detections
 * (32 bytes each) travel to the host. When an image has more candidates than the GPU buffers hold, that image is
 * decoded on the CPU from its head outputs instead, with the same result.
 */
final class GpuPostprocess implements AutoCloseable {
    static final int RECORD_INTS = 8;
    static final int NMS_BLOCK = 256;

    private final DeviceContext ctx;
    private final boolean hostShared;   // see hostShared(...)
    private final int maxBatch;
    private final int classes;
    private final int capacity;         // candidates per image
    private final int recordCapacity;   // detections per image
    private final List<Yolo> heads;
    private final List<YoloSpec> specs = new ArrayList<>();
    private final List<GpuBuffer> buffers = new ArrayList<>();
    private final GpuBuffer geometryHost;
    private final GpuBuffer geometryDevice;
    private final GpuBuffer header;        // counts | record counts | overflow flags, maxBatch ints each
    private final GpuBuffer records;
    private final GpuBuffer headerHost;    // device mode: pinned copies
    private final GpuBuffer recordsHost;
    private final List<KernelLaunch> decodes = new ArrayList<>();
    private final List<int[]> decodeSlots = new ArrayList<>();   // {thresh, n}
    private final KernelLaunch nms;
    private final int nmsThreshSlot;
    private final int nmsKindSlot;
    private final int nmsBetaSlot;
    private int lastCandidates;
    private int lastFallbacks;

    /**
     * Whether geometry, counts and detections live in managed memory that the host and the GPU both address: only
     * where they share physical memory (unified mode on an integrated GPU). On a discrete GPU every batch would
     * migrate those pages to the GPU and back (a fault each way), so there they are device buffers with pinned
     * copies, as in device mode. The YOLO and the ONNX post-processing both follow this.
     */
    static boolean hostShared(MemoryMode mode, DeviceContext ctx) {
        return mode == MemoryMode.UNIFIED && ctx.device().integrated();
    }

    GpuPostprocess(DeviceContext ctx, MemoryMode mode, List<Yolo> heads, int maxBatch) {
        this.ctx = ctx;
        this.hostShared = hostShared(mode, ctx);
        this.maxBatch = maxBatch;
        this.heads = heads;
        for (Yolo h : heads) specs.add(h.yolo());
        this.classes = specs.get(0).classes();
        int anchors = 0;
        for (YoloSpec y : specs) anchors += y.anchorsPerCell() * y.output().plane();
        this.capacity = Math.min(anchors, 4096);
        this.recordCapacity = 1024;
        long geometryBytes = 32L * maxBatch;
        geometryHost = keep(hostShared ? GpuBuffer.managed(geometryBytes, "geometry") : GpuBuffer.pinned(geometryBytes, "geometry"));
        geometryDevice = hostShared ? geometryHost : keep(GpuBuffer.device(geometryBytes, "geometry"));
        GpuBuffer boxes = keep(GpuBuffer.device(16L * maxBatch * capacity, "candidate boxes"));
        GpuBuffer keys = keep(GpuBuffer.device(4L * maxBatch * capacity, "candidate keys"));
        GpuBuffer probs = keep(GpuBuffer.device(4L * maxBatch * capacity * classes, "candidate probs"));
        long headerBytes = 12L * maxBatch;
        long recordBytes = 4L * RECORD_INTS * maxBatch * recordCapacity;
        header = keep(hostShared ? GpuBuffer.managed(headerBytes, "detection counts") : GpuBuffer.device(headerBytes, "detection counts"));
        records = keep(hostShared ? GpuBuffer.managed(recordBytes, "detections") : GpuBuffer.device(recordBytes, "detections"));
        headerHost = hostShared ? header : keep(GpuBuffer.pinned(headerBytes, "detection counts"));
        recordsHost = hostShared ? records : keep(GpuBuffer.pinned(recordBytes, "detections"));

        int keyBase = 0;
        for (Yolo h : heads) {
            YoloSpec y = h.yolo();
            float[] sizes = new float[2 * y.anchorsPerCell()];
            for (int a = 0; a < y.anchorsPerCell(); a++) {
                sizes[2 * a] = y.anchorWidth(a);
                sizes[2 * a + 1] = y.anchorHeight(a);
            }
            GpuBuffer anchorSizes = keep(GpuBuffer.device(4L * sizes.length, "anchors"));
            Transfers.upload(anchorSizes.address(), sizes);
            KernelLaunch d = KernelLaunch.of(ctx.kernels(), "yolo_decode.cu", "yolo_decode");
            d.pointer(h.address());
            d.i32(y.anchorsPerCell());
            d.i32(y.entries());
            d.i32(y.output().width());
            d.i32(y.output().height());
            d.i32(classes);
            d.pointer(anchorSizes.address());
            d.i32(y.newCoords() ? 1 : 0);
            d.i32(keyBase);
            int thresh = d.f32(0.25f);
            d.pointer(geometryDevice.address());
            d.pointer(boxes.address());
            d.pointer(keys.address());
            d.pointer(probs.address());
            d.pointer(header.address());
            d.i32(capacity);
            int n = d.i32(1);
            decodes.add(d);
            decodeSlots.add(new int[] {thresh, n});
            keyBase += y.anchorsPerCell() * y.output().plane();
        }
        nms = KernelLaunch.of(ctx.kernels(), "nms.cu", "nms_per_class");
        nms.pointer(boxes.address());
        nms.pointer(probs.address());
        nms.pointer(keys.address());
        nms.pointer(header.address());
        nms.i32(capacity);
        nms.i32(classes);
        nmsThreshSlot = nms.f32(0.45f);
        nmsKindSlot = nms.i32(0);
        nmsBetaSlot = nms.f32(0.6f);
        nms.pointer(records.address());
        nms.pointer(header.address() + 4L * maxBatch);
        nms.i32(recordCapacity);
        nms.pointer(header.address() + 8L * maxBatch);
    }

    private GpuBuffer keep(GpuBuffer b) {
        buffers.add(b);
        return b;
    }

    /** Decode + NMS for the first n images of the last forward; waits for the stream. */
    List<List<Detection>> run(int n, InputGeometry[] geometry, DetectParams params, List<String> names,
                              CudaNetwork network) {
        GpuStream stream = network.stream();
        ByteBuffer g = geometryHost.host();
        for (int i = 0; i < n; i++) {
            InputGeometry gi = geometry[i];
            int o = 32 * i;
            g.putInt(o, gi.netWidth());
            g.putInt(o + 4, gi.netHeight());
            g.putInt(o + 8, gi.imageWidth());
            g.putInt(o + 12, gi.imageHeight());
            g.putInt(o + 16, gi.resizedWidth());
            g.putInt(o + 20, gi.resizedHeight());
            g.putInt(o + 24, 0);
            g.putInt(o + 28, 0);
        }
        if (!hostShared) {
            Status.cuda(cudaMemcpyAsync(geometryDevice.at(0), geometryHost.at(0), 32L * n, cudaMemcpyHostToDevice,
                    stream.handle()), "cudaMemcpyAsync geometry");
        }
        Status.cuda(cudaMemsetAsync(header.at(0), 0, 12L * maxBatch, stream.handle()), "cudaMemsetAsync counts");
        for (int h = 0; h < decodes.size(); h++) {
            KernelLaunch d = decodes.get(h);
            YoloSpec y = specs.get(h);
            d.setFloat(decodeSlots.get(h)[0], params.threshold());
            d.setInt(decodeSlots.get(h)[1], n);
            d.launch(KernelLaunch.grid((long) n * y.anchorsPerCell() * y.output().plane(), ctx.device()), 1,
                    KernelLaunch.BLOCK, stream.handle());
        }
        NmsKind kind = params.nmsKind() != null ? params.nmsKind() : specs.get(0).nmsKind();
        nms.setFloat(nmsThreshSlot, params.nms());
        nms.setInt(nmsKindSlot, KernelCodes.nms(kind));
        nms.setFloat(nmsBetaSlot, specs.get(0).betaNms());
        nms.launch(classes, n, NMS_BLOCK, stream.handle());

        if (!hostShared) {
            Status.cuda(cudaMemcpyAsync(headerHost.at(0), header.at(0), 12L * maxBatch, cudaMemcpyDeviceToHost,
                    stream.handle()), "cudaMemcpyAsync counts");
        }
        stream.synchronize();
        ByteBuffer head = headerHost.host();
        int[] candidates = new int[n];
        int[] found = new int[n];
        boolean[] fallback = new boolean[n];
        lastCandidates = 0;
        lastFallbacks = 0;
        for (int i = 0; i < n; i++) {
            candidates[i] = head.getInt(4 * i);
            found[i] = head.getInt(4 * (maxBatch + i));
            int overflow = head.getInt(4 * (2 * maxBatch + i));
            fallback[i] = candidates[i] > capacity || overflow != 0 || found[i] > recordCapacity;
            lastCandidates += candidates[i];
            if (fallback[i]) lastFallbacks++;
        }
        long recordBytes = 4L * RECORD_INTS * recordCapacity;
        if (!hostShared) {
            boolean any = false;
            for (int i = 0; i < n; i++) {
                if (fallback[i] || found[i] == 0) continue;
                Status.cuda(cudaMemcpyAsync(recordsHost.at(i * recordBytes), records.at(i * recordBytes),
                        4L * RECORD_INTS * found[i], cudaMemcpyDeviceToHost, stream.handle()), "cudaMemcpyAsync detections");
                any = true;
            }
            if (any) stream.synchronize();
        }
        ByteBuffer rec = recordsHost.host();
        List<List<Detection>> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            if (fallback[i]) {
                out.add(onCpu(i, geometry[i], params, names, network));
                continue;
            }
            List<int[]> rows = new ArrayList<>(found[i]);
            for (int r = 0; r < found[i]; r++) {
                int base = (int) (i * recordBytes + 4L * RECORD_INTS * r);
                int[] row = new int[RECORD_INTS];
                for (int k = 0; k < RECORD_INTS; k++) row[k] = rec.getInt(base + 4 * k);
                rows.add(row);
            }
            // Detections.finish order: confidence descending, then candidate order, then class
            rows.sort(Comparator.<int[]>comparingDouble(r -> -Float.intBitsToFloat(r[2]))
                    .thenComparingInt(r -> r[0]).thenComparingInt(r -> r[1]));
            List<Detection> dets = new ArrayList<>(rows.size());
            for (int[] r : rows) {
                dets.add(new Detection(r[1], names.get(r[1]), Float.intBitsToFloat(r[2]),
                        toPixels(Float.intBitsToFloat(r[3]), Float.intBitsToFloat(r[4]), Float.intBitsToFloat(r[5]),
                                Float.intBitsToFloat(r[6]), geometry[i])));
            }
            out.add(dets);
        }
        return out;
    }

    /** Candidates (anchors over the threshold) in all images of the last call. */
    int lastCandidates() { return lastCandidates; }

    /** Images of the last call decoded on the CPU because the GPU buffers were too small for them. */
    int lastFallbacks() { return lastFallbacks; }

    /** The CPU path for one image (too many candidates for the GPU buffers): same decode and NMS as CpuBackend. */
    private List<Detection> onCpu(int image, InputGeometry g, DetectParams params, List<String> names,
                                  CudaNetwork network) {
        List<Candidate> candidates = new ArrayList<>();
        for (int h = 0; h < heads.size(); h++) {
            YoloDecoder.decode(specs.get(h), FloatBuffer.wrap(network.headOutput(h, image)), 0, g.netWidth(),
                    g.netHeight(), params.threshold(), g, candidates);
        }
        return Detections.finish(candidates, specs, names, g, params.threshold(), params.nms(), params.nmsKind());
    }

    /** Relative centre/size to a pixel box clipped to the image (as Detections does). */
    static Box toPixels(float x, float y, float w, float h, InputGeometry g) {
        float left = clamp((x - w / 2) * g.imageWidth(), g.imageWidth());
        float right = clamp((x + w / 2) * g.imageWidth(), g.imageWidth());
        float top = clamp((y - h / 2) * g.imageHeight(), g.imageHeight());
        float bottom = clamp((y + h / 2) * g.imageHeight(), g.imageHeight());
        return new Box(left, top, right - left, bottom - top);
    }

    private static float clamp(float v, int max) {
        return Math.max(0, Math.min(max, v));
    }

    @Override
    public void close() {
        for (GpuBuffer b : buffers) b.close();
        buffers.clear();
    }
}
