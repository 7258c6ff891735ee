package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Model;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.detector.testing.ProjectFiles;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.GpuBuffer;
import io.argus.gpu.MemoryMode;
import io.argus.testkit.Budget;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.Pointer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Frames in page-locked host memory (a camera pool's, {@code camera.pinnedFrames}) are uploaded from where they lie:
 * the network reads exactly the input it reads from the same pictures on the heap, no byte of theirs is copied on the
 * host, a batch mixing both copies only the heap frames, and frames staged ahead ({@link FrameInput#prestage}) from
 * pinned memory arrive the same; in both memory modes.
 */
@Tag("gpu")
@Budget(seconds = 20)   // 5.6-7.0 s on an H200 host, the model opened twice
class GpuPinnedFramesTest {
    private final List<GpuBuffer> pinned = new ArrayList<>();

    @BeforeAll
    static void needsGpu() {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
    }

    @AfterEach
    void free() {
        pinned.forEach(GpuBuffer::close);
    }

    @ParameterizedTest
    @EnumSource(value = MemoryMode.class, names = {"DEVICE", "UNIFIED"})
    void pinnedFramesAreReadWhereTheyLie(MemoryMode memory) throws Exception {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov4-tiny"), 416, 416);
        Model model = new Model(spec, WeightsInit.darknet(spec, 1), Model.genericNames(spec.classes()));
        List<BgrImage> heap = ProjectFiles.samples("dog.jpg", "eagle.jpg", "giraffe.jpg");
        List<BgrImage> locked = heap.stream().map(this::pinnedCopy).toList();
        assertTrue(GpuBuffer.pinnedHost(new Pointer(locked.get(0).pixels()).address()), "the copies are page-locked");
        assertFalse(GpuBuffer.pinnedHost(new Pointer(ByteBuffer.allocateDirect(64)).address()),
                "an ordinary direct buffer is not");
        CudaOptions options = new CudaOptions(0, memory, CudaOptions.Fusion.ALL, true, true, 1, null);
        DetectParams few = new DetectParams(0.999f, 0.45f, null);
        try (CudaBackend gpu = CudaBackend.open(model, 3, options)) {
            long c0 = gpu.hostCopiedBytes();
            gpu.detect(heap, few);
            float[][] expected = inputs(gpu, 3);
            long heapBytes = gpu.hostCopiedBytes() - c0;
            assertTrue(heapBytes >= bytes(heap.get(0)) + bytes(heap.get(1)) + bytes(heap.get(2)),
                    memory + ": heap frames are copied on the host (" + heapBytes + " bytes)");

            long c1 = gpu.hostCopiedBytes();
            gpu.detect(locked, few);
            assertEquals(0, gpu.hostCopiedBytes() - c1, memory + ": pinned frames copied on the host");
            assertSame(expected, inputs(gpu, 3), memory + ", pinned");

            List<BgrImage> mixed = List.of(locked.get(0), heap.get(1), locked.get(2));
            long c2 = gpu.hostCopiedBytes();
            gpu.detect(mixed, few);
            long mixedBytes = gpu.hostCopiedBytes() - c2;
            assertTrue(mixedBytes >= bytes(heap.get(1)) && mixedBytes < bytes(heap.get(1)) + 16,
                    memory + ": only the heap frame is copied, found " + mixedBytes + " bytes");
            assertSame(expected, inputs(gpu, 3), memory + ", mixed");

            // staged ahead from pinned memory: announced during the heap batch, then called
            List<BgrImage> reversed = List.of(locked.get(2), locked.get(1), locked.get(0));
            gpu.detect(heap, few, reversed);
            long c3 = gpu.hostCopiedBytes();
            gpu.detect(reversed, few);
            assertEquals(0, gpu.hostCopiedBytes() - c3, memory + ": frames ahead copied again");
            float[][] got = inputs(gpu, 3);
            for (int i = 0; i < 3; i++) assertArrayEquals(expected[2 - i], got[i], memory + ", ahead: image " + i);
        }
    }

    private BgrImage pinnedCopy(BgrImage im) {
        int n = (int) bytes(im);
        GpuBuffer g = GpuBuffer.pinnedPortable(n, "test frame");
        pinned.add(g);
        ByteBuffer b = g.host();
        b.put(0, im.pixels(), 0, n);
        return new BgrImage(im.width(), im.height(), im.stride(), b);
    }

    private static long bytes(BgrImage im) {
        return (long) im.stride() * (im.height() - 1) + 3L * im.width();
    }

    private static void assertSame(float[][] expected, float[][] got, String what) {
        for (int i = 0; i < expected.length; i++) assertArrayEquals(expected[i], got[i], what + ": image " + i);
    }

    private static float[][] inputs(CudaBackend gpu, int n) {
        float[][] out = new float[n][];
        for (int i = 0; i < n; i++) out[i] = gpu.network().inputImage(i);
        return out;
    }
}
