package io.argus.detector.cuda;

import static org.bytedeco.cuda.global.cudart.cudaMemcpyAsync;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyDeviceToHost;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyHostToDevice;
import static org.bytedeco.cuda.global.cudart.cudaMemsetAsync;

import io.argus.detector.Box;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.onnx.OnnxHead;
import io.argus.detector.onnx.OnnxInput;
import io.argus.detector.onnx.OnnxInterpreter;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuBuffer;
import io.argus.gpu.GpuStream;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.MemoryMode;
import io.argus.gpu.Status;
import io.argus.gpu.Transfers;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * An imported model's detections from its graph's output, as {@link OnnxHead#detections} makes them on the CPU.
 * With the tail on the GPU ({@link OnnxTailKernel}), the family's decode kernel (onnx_heads.cu) turns the output into
 * candidates and nms.cu's per-class NMS keeps the detections, so only those (32 bytes each) travel to the host; an
 * image with more candidates than the buffers hold is decoded on the host from its downloaded output instead. With
 * the tail on the host (a graph with NMS in it, or a kernel that did not match the graph at load), the tail's input
 * layers come down per image and the graph's tail and the head's decoding run on the host.
 */
final class OnnxPostprocess implements AutoCloseable {
    private static final String FILE = "onnx_heads.cu";
    private static final int GEOMETRY_BYTES = 32;   // struct OnnxGeometry in onnx_heads.cu
    private static final int RECORD_INTS = GpuPostprocess.RECORD_INTS;

    private final OnnxHead head;
    private final OnnxTailKernel tail;
    private final DeviceContext ctx;
    private final boolean hostShared;   // GpuPostprocess.hostShared
    private final int maxBatch;
    private final int classes;
    private final int capacity;
    private final int recordCapacity = 1024;
    private final List<GpuBuffer> buffers = new ArrayList<>();
    private GpuBuffer geometryHost, geometryDevice, header, records, headerHost, recordsHost;
    private KernelLaunch decode, nms;
    private int decodeThreshSlot, decodeNSlot, nmsThreshSlot;
    private int lastCandidates;
    private int lastFallbacks;

    OnnxPostprocess(DeviceContext ctx, MemoryMode mode, OnnxHead head, CudaNetwork network, int maxBatch) {
        this.head = head;
        this.tail = network.tail();
        this.ctx = ctx;
        this.hostShared = GpuPostprocess.hostShared(mode, ctx);
        this.maxBatch = maxBatch;
        this.classes = head.classes();
        this.capacity = tail == null ? 0 : Math.min(items(tail), 4096);
        if (tail == null) return;
        try {
            allocate();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Candidates one image can have: anchors (yolov8) or rows. */
    private static int items(OnnxTailKernel t) {
        long[] s = t.shape();
        return (int) (t.family() == OnnxHead.Family.YOLOV8 ? s[2] : s[1]);
    }

    private void allocate() {
        long geometryBytes = (long) GEOMETRY_BYTES * maxBatch;
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

        long[] s = tail.shape();
        if (tail.family() == OnnxHead.Family.YOLOV8) {
            decode = KernelLaunch.of(ctx.kernels(), FILE, "onnx_decode_yolov8");
            decode.pointer(tail.output());
            decode.i32((int) s[2]);
            decode.i32(classes);
        } else {
            decode = KernelLaunch.of(ctx.kernels(), FILE, "onnx_decode_rows");
            decode.pointer(tail.output());
            decode.i32((int) s[1]);
            decode.i32((int) s[2]);
            decode.i32(classes);
            decode.i32(tail.family() == OnnxHead.Family.YOLOX ? 1 : 0);
            decode.i32(head.inputWidth());
            decode.i32(head.inputHeight());
        }
        decodeThreshSlot = decode.f32(0.25f);
        decode.pointer(geometryDevice.address());
        decode.pointer(boxes.address());
        decode.pointer(keys.address());
        decode.pointer(probs.address());
        decode.pointer(header.address());
        decode.i32(capacity);
        decodeNSlot = decode.i32(1);

        // OnnxHead's NMS: Darknet's per-class greedy NMS by IoU (NmsKind.DEFAULT), whatever the params ask
        nms = KernelLaunch.of(ctx.kernels(), "nms.cu", "nms_per_class");
        nms.pointer(boxes.address());
        nms.pointer(probs.address());
        nms.pointer(keys.address());
        nms.pointer(header.address());
        nms.i32(capacity);
        nms.i32(classes);
        nmsThreshSlot = nms.f32(0.45f);
        nms.i32(0);
        nms.f32(0.6f);
        nms.pointer(records.address());
        nms.pointer(header.address() + 4L * maxBatch);
        nms.i32(recordCapacity);
        nms.pointer(header.address() + 8L * maxBatch);
    }

    private GpuBuffer keep(GpuBuffer b) {
        buffers.add(b);
        return b;
    }

    /** Whether the graph's tail runs on the GPU. */
    boolean onGpu() { return tail != null; }

    /** Detections of the first n images of the last forward; waits for the stream. */
    List<List<Detection>> run(int n, OnnxInput.Geometry[] geometry, DetectParams params, List<String> names,
                              CudaNetwork network) {
        if (tail == null) return onHost(n, geometry, params, names, network);
        GpuStream stream = network.stream();
        ByteBuffer g = geometryHost.host();
        for (int i = 0; i < n; i++) {
            OnnxInput.Geometry gi = geometry[i];
            int o = GEOMETRY_BYTES * i;
            g.putFloat(o, gi.gain());
            g.putFloat(o + 4, gi.padX());
            g.putFloat(o + 8, gi.padY());
            g.putInt(o + 12, gi.imageWidth());
            g.putInt(o + 16, gi.imageHeight());
        }
        if (!hostShared) {
            Status.cuda(cudaMemcpyAsync(geometryDevice.at(0), geometryHost.at(0), (long) GEOMETRY_BYTES * n,
                    cudaMemcpyHostToDevice, stream.handle()), "cudaMemcpyAsync geometry");
        }
        Status.cuda(cudaMemsetAsync(header.at(0), 0, 12L * maxBatch, stream.handle()), "cudaMemsetAsync counts");
        decode.setFloat(decodeThreshSlot, params.threshold());
        decode.setInt(decodeNSlot, n);
        decode.launch(KernelLaunch.grid((long) n * items(tail), ctx.device()), stream.handle());
        nms.setFloat(nmsThreshSlot, params.nms());
        nms.launch(classes, n, GpuPostprocess.NMS_BLOCK, stream.handle());
        if (!hostShared) {
            Status.cuda(cudaMemcpyAsync(headerHost.at(0), header.at(0), 12L * maxBatch, cudaMemcpyDeviceToHost,
                    stream.handle()), "cudaMemcpyAsync counts");
        }
        stream.synchronize();
        ByteBuffer head = headerHost.host();
        int[] found = new int[n];
        boolean[] fallback = new boolean[n];
        lastCandidates = 0;
        lastFallbacks = 0;
        for (int i = 0; i < n; i++) {
            int candidates = head.getInt(4 * i);
            found[i] = head.getInt(4 * (maxBatch + i));
            int overflow = head.getInt(4 * (2 * maxBatch + i));
            fallback[i] = candidates > capacity || overflow != 0 || found[i] > recordCapacity;
            lastCandidates += candidates;
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
                out.add(this.head.detections(output(i), geometry[i], names, params.threshold(), params.nms()));
                continue;
            }
            List<int[]> rows = new ArrayList<>(found[i]);
            for (int r = 0; r < found[i]; r++) {
                int base = (int) (i * recordBytes + 4L * RECORD_INTS * r);
                int[] row = new int[RECORD_INTS];
                for (int k = 0; k < RECORD_INTS; k++) row[k] = rec.getInt(base + 4 * k);
                rows.add(row);
            }
            // OnnxHead's order: confidence descending, then candidate order, then class
            rows.sort(Comparator.<int[]>comparingDouble(r -> -Float.intBitsToFloat(r[2]))
                    .thenComparingInt(r -> r[0]).thenComparingInt(r -> r[1]));
            List<Detection> dets = new ArrayList<>(rows.size());
            for (int[] r : rows) {
                dets.add(new Detection(r[1], names.get(r[1]), Float.intBitsToFloat(r[2]),
                        pixels(Float.intBitsToFloat(r[3]), Float.intBitsToFloat(r[4]), Float.intBitsToFloat(r[5]),
                                Float.intBitsToFloat(r[6]), geometry[i])));
            }
            out.add(dets);
        }
        return out;
    }

    /** The graph's tail and the head's decoding on the host, image by image. */
    private List<List<Detection>> onHost(int n, OnnxInput.Geometry[] geometry, DetectParams params,
                                         List<String> names, CudaNetwork network) {
        List<List<Detection>> out = new ArrayList<>(n);
        lastCandidates = 0;
        lastFallbacks = n;
        for (int i = 0; i < n; i++) {
            List<Detection> d = head.detections(output(i, network), geometry[i], names, params.threshold(), params.nms());
            lastCandidates += d.size();
            out.add(d);
        }
        return out;
    }

    /** Graph output 0 of image {@code image} of the last forward (the kernel's, downloaded). */
    private OnnxInterpreter.Tensor output(int image) {
        float[] v = Transfers.downloadFloats(tail.output() + 4L * image * tail.perImage(), tail.perImage());
        return new OnnxInterpreter.Tensor(tail.shape(), v);
    }

    /** Graph output 0 of image {@code image}: the kernel's, or the graph's tail run here on the layers' outputs. */
    OnnxInterpreter.Tensor output(int image, CudaNetwork network) {
        network.stream().synchronize();
        if (tail != null) return output(image);
        int[] layers = head.tail().inputLayers();
        float[][] in = new float[layers.length][];
        for (int k = 0; k < layers.length; k++) in[k] = network.layerOutput(layers[k], image);
        return head.tail().run(in).get(0);
    }

    /** Candidates over the threshold in the last call (with the tail on the host: its detections). */
    int lastCandidates() { return lastCandidates; }

    /** Images of the last call decoded on the host. */
    int lastFallbacks() { return lastFallbacks; }

    /** A box relative to the source image (centre, size) in its pixels, clipped to it, as OnnxHead does. */
    private static Box pixels(float x, float y, float w, float h, OnnxInput.Geometry g) {
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
