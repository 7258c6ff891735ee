package io.argus.detector.darknet;

/** A feature map shape for one image: channels x height x width (Darknet's NCHW, batch excluded). */
public record Shape(int channels, int height, int width) {
    public Shape {
        if (channels <= 0 || height <= 0 || width <= 0) {
            throw new IllegalArgumentException("non-positive shape " + channels + "x" + height + "x" + width);
        }
    }

    /** Number of floats for one image. */
    public int size() { return channels * height * width; }

    public int plane() { return height * width; }

    @Override
    public String toString() { return channels + "x" + height + "x" + width; }
}
