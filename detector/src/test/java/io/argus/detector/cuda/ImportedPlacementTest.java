package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.detector.BgrImage;
import io.argus.detector.onnx.OnnxInput;
import io.argus.testkit.Budget;
import java.nio.FloatBuffer;
import org.junit.jupiter.api.Test;

/**
 * Without a GPU: where the CUDA backend's frame input puts a picture for an imported model (the kernel then fills the
 * pixels) is where {@link OnnxInput#write} puts it, for both conventions, odd and extreme sizes, and non-square inputs.
 */
@Budget(seconds = 5)
class ImportedPlacementTest {
    @Test
    void placementEqualsOnnxInputs() {
        int[][] sizes = {{768, 576}, {576, 768}, {640, 640}, {1280, 720}, {37, 1001}, {1, 1}, {1001, 3}, {63, 64}};
        int[][] nets = {{640, 640}, {416, 416}, {64, 64}, {640, 384}};
        for (OnnxInput.Convention c : OnnxInput.Convention.values()) {
            OnnxInput input = new OnnxInput(c);
            for (int[] net : nets) {
                FloatBuffer scratch = FloatBuffer.allocate(3 * net[0] * net[1]);
                for (int[] s : sizes) {
                    BgrImage im = BgrImage.of(s[0], s[1], new byte[3 * s[0] * s[1]]);
                    int[] placement = new int[4];
                    OnnxInput.Geometry ours = FrameInput.placeImported(c, s[0], s[1], net[0], net[1], placement);
                    assertEquals(input.write(im, net[0], net[1], scratch, 0), ours, c + " " + s[0] + "x" + s[1]
                            + " into " + net[0] + "x" + net[1]);
                    // the resized picture fits inside the input where it lands
                    assertEquals(true, placement[2] >= 0 && placement[3] >= 0 && placement[0] + placement[2] <= net[0]
                            && placement[1] + placement[3] <= net[1], c + " " + s[0] + "x" + s[1]);
                }
            }
        }
    }
}
