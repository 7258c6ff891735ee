package io.argus.trainer.loss;

/**
 * One labelled object as Darknet's label files give it: centre x, y and size w, h relative to the image (0..1),
 * and the class index.
 */
public record Truth(float x, float y, float w, float h, int classId) {
    public float left() { return x - w / 2; }

    public float right() { return x + w / 2; }

    public float top() { return y - h / 2; }

    public float bottom() { return y + h / 2; }
}
