package io.argus.detector.post;

import io.argus.detector.darknet.YoloSpec;
import java.nio.FloatBuffer;
import java.util.List;

/**
 * Darknet's get_yolo_detections: reads an activated [yolo] output (layout [anchor][entry][row][col]) and keeps
 * every anchor whose objectness exceeds the threshold, as a box relative to the network input.
 */
public final class YoloDecoder {
    private YoloDecoder() {}

    /**
     * @param out     activated head output; one image starts at {@code offset}
     * @param netW    network input width (anchors are in input pixels)
     */
    public static void decode(YoloSpec head, FloatBuffer out, int offset, int netW, int netH, float thresh,
                              InputGeometry geometry, List<Candidate> into) {
        int lw = head.output().width();
        int lh = head.output().height();
        int plane = lw * lh;
        int entries = head.entries();
        int classes = head.classes();
        for (int n = 0; n < head.anchorsPerCell(); n++) {
            int base = offset + n * entries * plane;
            for (int cell = 0; cell < plane; cell++) {
                float objectness = out.get(base + 4 * plane + cell);
                if (!(objectness > thresh)) continue;
                int col = cell % lw;
                int row = cell / lw;
                float[] box = YoloBox.decode(head, n, col, row, out.get(base + cell), out.get(base + plane + cell),
                        out.get(base + 2 * plane + cell), out.get(base + 3 * plane + cell), netW, netH);
                float[] prob = new float[classes];
                for (int k = 0; k < classes; k++) {
                    float p = objectness * out.get(base + (5 + k) * plane + cell);
                    prob[k] = p > thresh ? p : 0;
                }
                into.add(new Candidate(geometry.toImageX(box[0]), geometry.toImageY(box[1]), geometry.toImageW(box[2]),
                        geometry.toImageH(box[3]), objectness, prob));
            }
        }
    }
}
