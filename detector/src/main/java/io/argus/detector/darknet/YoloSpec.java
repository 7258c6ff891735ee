package io.argus.detector.darknet;

/**
 * {@code [yolo]}: a detection head over a grid. {@code mask} selects which of the {@code anchors} (pixel w,h
 * pairs at network resolution) this head predicts; each cell outputs mask.length x (4 + 1 + classes) values.
 */
public record YoloSpec(int index, int line, Shape output, int classes, int[] mask, float[] anchors,
                       float scaleXY, boolean newCoords, NmsKind nmsKind, float betaNms, YoloTraining training)
        implements LayerSpec {

    /**
     * Darknet's NMS kinds: DEFAULT suppresses by IoU (do_nms_sort); GREEDY ("greedynms") by DIoU with exponent 0.6
     * (box_diou); DIOU ("diounms") by IoU - (d/c)^beta_nms (box_diounms); CORNERS by IoU.
     */
    public enum NmsKind { DEFAULT, GREEDY, DIOU, CORNERS }

    /**
     * Keys that only training reads, kept so the trainer sees them (Darknet's defaults where absent).
     * iouLoss is one of mse, iou, giou, diou, ciou. {@code random}: multi-scale training, read as a number as Darknet
     * reads it (0 off, 1 sizes from 1/1.4 to 1.4 times the cfg's, another value that factor instead of 1.4).
     */
    public record YoloTraining(float jitter, float ignoreThresh, float truthThresh, float random, float iouThresh,
                               float iouNormalizer, float clsNormalizer, float objNormalizer, String iouLoss,
                               float maxDelta, boolean objectnessSmooth, float resize, float labelSmoothEps) {}

    @Override
    public int[] inputs() { return new int[] {index - 1}; }

    @Override
    public String kind() { return "yolo"; }

    /** Anchors predicted by this head. */
    public int anchorsPerCell() { return mask.length; }

    /** Values per anchor: x, y, w, h, objectness, classes. */
    public int entries() { return 5 + classes; }

    public float anchorWidth(int n) { return anchors[2 * mask[n]]; }

    public float anchorHeight(int n) { return anchors[2 * mask[n] + 1]; }
}
