package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Model;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.detector.post.Preprocess;
import io.argus.detector.testing.ProjectFiles;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.MemoryMode;
import io.argus.gpu.TensorView;
import io.argus.gpu.Transfers;
import io.argus.testkit.Budget;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The preprocess kernel against Darknet's resize on the CPU ({@link Preprocess}), for every sample image (several
 * sizes) in one batch, plain resize and letterbox, from heap frames and from frames written into the managed frame
 * slots: equal up to FP16 rounding of the result.
 */
@Tag("gpu")
@Budget(seconds = 5)
class GpuPreprocessTest {
    @BeforeAll
    static void needsGpu() {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void matchesDarknetResize(boolean letterbox) throws Exception {
        String cfg = Files.readString(ProjectFiles.cfg("yolov4-tiny"));
        if (letterbox) cfg = cfg.replaceFirst("\\[net\\]", "[net]\nletter_box=1");
        NetworkSpec spec = NetworkSpec.parse(ProjectFiles.cfg("yolov4-tiny"), cfg, 416, 416);
        Model model = new Model(spec, WeightsInit.darknet(spec, 1), Model.genericNames(spec.classes()));
        List<BgrImage> images = new ArrayList<>();
        for (String s : new String[] {"dog.jpg", "eagle.jpg", "giraffe.jpg", "horses.jpg", "person.jpg"}) {
            images.add(BgrImage.read(ProjectFiles.sample(s)));
        }
        // a frame with row padding (stride > 3 x width)
        BgrImage dog = images.get(0);
        int stride = 3 * dog.width() + 40;
        ByteBuffer padded = ByteBuffer.allocate(stride * dog.height());
        for (int y = 0; y < dog.height(); y++) padded.put(y * stride, dog.pixels(), y * dog.stride(), 3 * dog.width());
        images.add(new BgrImage(dog.width(), dog.height(), stride, padded));
        int n = images.size();
        int size = spec.inputShape().size();
        CudaOptions options = new CudaOptions(0, MemoryMode.UNIFIED, CudaOptions.Fusion.ALL, true, true, 1, null);
        DetectParams few = new DetectParams(0.999f, 0.45f, null);   // random weights: keep NMS out of the way
        try (CudaBackend gpu = CudaBackend.open(model, n, options)) {
            TensorView input = gpu.network().input();
            assertEquals(4, input.pixelStride(), "yolov4-tiny's image: RGB and a zero a pixel");
            short[] loud = new short[(int) (n * input.imageStride())];
            Arrays.fill(loud, Float.floatToFloat16(42f));   // the padding channel must be written, not left
            Transfers.upload(input.base(), loud);
            gpu.detect(images, few);
            check(spec, images, gpu, "heap frames", letterbox);
            short[] written = Transfers.downloadHalves(input.base(), n * input.imageStride());
            int unpadded = 0;
            for (int p = 3; p < written.length; p += 4) if (written[p] != 0) unpadded++;
            assertEquals(0, unpadded, "pixels whose fourth (padding) channel is not zero");
            // the same frames written into managed frame slots: read in place
            List<BgrImage> inSlots = new ArrayList<>();
            int largest = 0;
            for (BgrImage im : images) largest = Math.max(largest, im.stride() * im.height());
            for (int i = 0; i < n; i++) {
                BgrImage im = images.get(i);
                int bytes = im.stride() * im.height();
                ByteBuffer slot = gpu.frameSlot(i, largest);
                slot.put(0, im.pixels(), 0, bytes);
                inSlots.add(new BgrImage(im.width(), im.height(), im.stride(), slot));
            }
            gpu.detect(inSlots, few);
            check(spec, images, gpu, "managed frame slots", letterbox);
        }
    }

    private static void check(NetworkSpec spec, List<BgrImage> images, CudaBackend gpu, String what,
                              boolean letterbox) {
        int size = spec.inputShape().size();
        Preprocess pre = new Preprocess();
        FloatBuffer cpu = FloatBuffer.allocate(size);
        double worst = 0;
        for (int b = 0; b < images.size(); b++) {
            pre.into(images.get(b), 416, 416, letterbox, cpu, 0);
            float[] g = gpu.network().inputImage(b);
            for (int i = 0; i < size; i++) {
                float expected = Float.float16ToFloat(Float.floatToFloat16(cpu.get(i)));
                worst = Math.max(worst, Math.abs(g[i] - expected));
            }
        }
        System.out.printf(Locale.ROOT, "preprocess %s letterbox=%b: max |gpu - cpu| = %.2e%n", what, letterbox, worst);
        // one FP16 step at 1.0 is 2^-11: allow a rounding flip where the float results differ in the last bit
        assertTrue(worst <= 1e-3, what + ": max difference " + worst);
    }
}
