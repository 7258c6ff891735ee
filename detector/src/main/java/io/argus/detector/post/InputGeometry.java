package io.argus.detector.post;

/**
 * Where a source image lands in the network input: Darknet's plain resize (stretch to the whole input) or
 * letterbox (keep aspect, centre, pad with grey). Maps boxes back from network-relative to source pixels, as
 * Darknet's correct_yolo_boxes does.
 */
public record InputGeometry(int netWidth, int netHeight, int imageWidth, int imageHeight, int resizedWidth,
                            int resizedHeight, int offsetX, int offsetY) {

    public static InputGeometry of(int netWidth, int netHeight, int imageWidth, int imageHeight, boolean letterbox) {
        if (!letterbox) return new InputGeometry(netWidth, netHeight, imageWidth, imageHeight, netWidth, netHeight, 0, 0);
        int newW;
        int newH;
        // Darknet: compare float ratios, integer arithmetic for the other side
        if ((float) netWidth / imageWidth < (float) netHeight / imageHeight) {
            newW = netWidth;
            newH = imageHeight * netWidth / imageWidth;
        } else {
            newH = netHeight;
            newW = imageWidth * netHeight / imageHeight;
        }
        return new InputGeometry(netWidth, netHeight, imageWidth, imageHeight, newW, newH, (netWidth - newW) / 2,
                (netHeight - newH) / 2);
    }

    public boolean letterboxed() { return resizedWidth != netWidth || resizedHeight != netHeight; }

    /** Network-relative centre x (0..1 of the input) to image-relative (0..1 of the source). */
    public float toImageX(float x) {
        float deltaW = netWidth - resizedWidth;
        float ratioW = (float) resizedWidth / netWidth;
        return (x - deltaW / 2f / netWidth) / ratioW;
    }

    public float toImageY(float y) {
        float deltaH = netHeight - resizedHeight;
        float ratioH = (float) resizedHeight / netHeight;
        return (y - deltaH / 2f / netHeight) / ratioH;
    }

    public float toImageW(float w) { return w * netWidth / resizedWidth; }

    public float toImageH(float h) { return h * netHeight / resizedHeight; }
}
