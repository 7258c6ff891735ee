package io.argus.detector.cpu;

import io.argus.detector.darknet.Activation;
import io.argus.detector.darknet.YoloSpec;
import java.nio.FloatBuffer;

/**
 * [yolo] forward as Darknet: logistic on x, y, objectness and classes (not with new_coords, where the previous
 * convolution already applied it), then x, y scaled by scale_x_y around 0.5. w, h stay raw.
 */
final class YoloLayer implements CpuLayer {
    private final YoloSpec spec;
    private final LayerOutput input;
    private final LayerOutput output;

    YoloLayer(YoloSpec spec, LayerOutput input, LayerOutput output) {
        this.spec = spec;
        this.input = input;
        this.output = output;
    }

    @Override
    public LayerOutput output() { return output; }

    @Override
    public void forward(int n) {
        FloatBuffer in = input.buffer(n);
        FloatBuffer out = output.buffer(n);   // [yolo] outputs are never aliased: offset 0
        int plane = spec.output().plane();
        int entries = spec.entries();
        float scale = spec.scaleXY();
        float shift = -0.5f * (scale - 1);
        out.put(0, in, input.offset(n), n * spec.output().size());
        for (int b = 0; b < n; b++) {
            for (int a = 0; a < spec.anchorsPerCell(); a++) {
                int base = b * spec.output().size() + a * entries * plane;
                if (!spec.newCoords()) {
                    for (int i = 0; i < 2 * plane; i++) out.put(base + i, Activation.logistic(out.get(base + i)));
                    int obj = base + 4 * plane;
                    for (int i = 0; i < (1 + spec.classes()) * plane; i++) {
                        out.put(obj + i, Activation.logistic(out.get(obj + i)));
                    }
                }
                if (scale != 1f) {
                    for (int i = 0; i < 2 * plane; i++) out.put(base + i, out.get(base + i) * scale + shift);
                }
            }
        }
    }
}
