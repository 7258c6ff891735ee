package io.argus.trainer.data;

/**
 * The network input size of each iteration: the cfg's throughout, or one that changes every few iterations
 * (multi-scale training). A pure function of the iteration, so the batches of an iteration are made at its size
 * whichever thread makes them and however far ahead, on every rank alike, and a resumed run sees the sizes an
 * uninterrupted one would have.
 */
public interface InputSizes {
    /** A width x height input. */
    record Size(int width, int height) {
        public Size {
            if (width <= 0 || height <= 0) throw new IllegalArgumentException("input " + width + "x" + height);
        }

        /** A network's input size. */
        public static Size of(io.argus.detector.darknet.NetworkSpec spec) {
            return new Size(spec.net().width(), spec.net().height());
        }

        /** Floats of one planar RGB image at this size. */
        public int imageFloats() { return 3 * width * height; }

        @Override
        public String toString() { return width + "x" + height; }
    }

    /** The input of iteration {@code iteration}, counted from 0 (iterations done before it). */
    Size at(long iteration);

    /** The largest input any iteration gets: what buffers that hold any iteration's images are made for. */
    Size largest();

    /** The same size for every iteration. */
    static InputSizes fixed(int width, int height) {
        Size size = new Size(width, height);
        return new InputSizes() {
            @Override
            public Size at(long iteration) { return size; }

            @Override
            public Size largest() { return size; }
        };
    }
}
