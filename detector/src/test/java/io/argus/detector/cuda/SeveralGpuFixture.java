package io.argus.detector.cuda;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Model;
import io.argus.detector.testing.RandomWeights;
import io.argus.gpu.MemoryMode;
import java.util.List;

/**
 * What the several-GPU tests share: yolov4-tiny 416 with random weights calibrated on two sample pictures (so it
 * detects plenty above the threshold), the CUDA options, and the reference: the pictures' detections by one backend
 * on device 0.
 */
record SeveralGpuFixture(Model model, List<BgrImage> images, DetectParams params, CudaOptions options,
                         List<List<Detection>> expected) {
    static SeveralGpuFixture load() {
        Model model = RandomWeights.calibratedTiny(416, 13, 6, "dog.jpg", "horses.jpg");
        List<BgrImage> images = RandomWeights.pictures("dog.jpg", "horses.jpg");
        DetectParams params = new DetectParams(0.25f, 0.45f, null);
        CudaOptions options = new CudaOptions(0, MemoryMode.DEVICE, CudaOptions.Fusion.ALL, true, true, 2, null);
        try (CudaBackend one = CudaBackend.open(model, 2, options)) {
            return new SeveralGpuFixture(model, images, params, options, one.detect(images, params));
        }
    }
}
