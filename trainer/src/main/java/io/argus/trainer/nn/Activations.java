package io.argus.trainer.nn;

import io.argus.detector.darknet.Activation;
import java.nio.FloatBuffer;

/**
 * Activations over ranges of a buffer, forward and backward, with the kind chosen once per range (not per element).
 * The math is {@link Activation}'s, so training and the inference engine agree exactly.
 */
final class Activations {
    private Activations() {}

    /** Mish and swish need the pre-activation value for their derivative; the others can use the output. */
    static boolean needsPreActivation(Activation act) {
        return act == Activation.MISH || act == Activation.SWISH;
    }

    /** {@code out[i] = act(in[i])} for i in [from, to); in and out may be the same buffer. */
    static void forward(Activation act, FloatBuffer in, FloatBuffer out, int from, int to) {
        switch (act) {
            case LINEAR -> {
                if (in != out) out.put(from, in, from, to - from);
            }
            case LEAKY -> {
                for (int i = from; i < to; i++) {
                    float v = in.get(i);
                    out.put(i, v > 0 ? v : 0.1f * v);
                }
            }
            case RELU -> {
                for (int i = from; i < to; i++) {
                    float v = in.get(i);
                    out.put(i, v > 0 ? v : 0f);
                }
            }
            default -> {
                for (int i = from; i < to; i++) out.put(i, act.apply(in.get(i)));
            }
        }
    }

    /**
     * {@code grad[i] *= act'(.)} for i in [from, to). {@code source} holds the pre-activation values for mish and
     * swish ({@link #needsPreActivation}), the outputs otherwise.
     */
    static void backward(Activation act, FloatBuffer source, FloatBuffer grad, int from, int to) {
        switch (act) {
            case LINEAR -> { }
            case LEAKY -> {
                for (int i = from; i < to; i++) if (!(source.get(i) > 0)) grad.put(i, 0.1f * grad.get(i));
            }
            case RELU -> {
                for (int i = from; i < to; i++) if (!(source.get(i) > 0)) grad.put(i, 0f);
            }
            case LOGISTIC -> {
                for (int i = from; i < to; i++) {
                    float y = source.get(i);
                    grad.put(i, grad.get(i) * y * (1 - y));
                }
            }
            case MISH, SWISH -> {
                for (int i = from; i < to; i++) grad.put(i, grad.get(i) * act.derivative(source.get(i)));
            }
        }
    }
}
