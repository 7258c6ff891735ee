package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.testing.ProjectFiles;
import io.argus.testkit.Budget;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The image's pixel stride on the GPU: 4 halves where only a plain convolution reads it (every shipped cfg), 8 where
 * another kind of layer does, whose kernels move 16-byte vectors.
 */
@Budget(seconds = 5)
class InputPixelStrideTest {
    @ParameterizedTest
    @ValueSource(strings = {"yolov4-tiny", "yolov3-tiny", "yolov4-tiny-3l", "yolov7-tiny", "yolov3", "yolov4",
            "yolov4-csp"})
    void everyShippedCfgTakesFourHalfPixels(String name) {
        assertEquals(4, CudaNetwork.inputPixelStride(NetworkSpec.load(ProjectFiles.cfg(name), 416, 416)), name);
    }

    @Test
    void aPoolOrAGroupedConvolutionFirstKeepsEightHalfPixels() {
        String head = "[net]\nwidth=32\nheight=32\nchannels=3\n\n";
        String tail = "[convolutional]\nfilters=8\nsize=1\nstride=1\npad=0\nactivation=linear\n";
        NetworkSpec pool = NetworkSpec.parse(Path.of("pool-first.cfg"),
                head + "[maxpool]\nsize=2\nstride=2\n\n" + tail, 0, 0);
        assertEquals(8, CudaNetwork.inputPixelStride(pool));
        NetworkSpec grouped = NetworkSpec.parse(Path.of("grouped-first.cfg"),
                head + "[convolutional]\nfilters=3\nsize=3\nstride=1\npad=1\ngroups=3\nactivation=leaky\n\n" + tail, 0, 0);
        assertEquals(8, CudaNetwork.inputPixelStride(grouped));
        NetworkSpec plain = NetworkSpec.parse(Path.of("plain-first.cfg"), head + tail, 0, 0);
        assertEquals(4, CudaNetwork.inputPixelStride(plain));
    }
}
