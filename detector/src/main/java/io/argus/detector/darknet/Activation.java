package io.argus.detector.darknet;

import java.util.Locale;

/** Darknet activations supported by Argus, with their forward and derivative as Darknet defines them. */
public enum Activation {
    LINEAR, LEAKY, RELU, LOGISTIC, MISH, SWISH;

    /** Darknet's softplus threshold inside mish. */
    static final float MISH_THRESHOLD = 20f;

    public static Activation parse(String word) {
        return valueOf(word.toUpperCase(Locale.ROOT));
    }

    public static String[] names() {
        Activation[] all = values();
        String[] n = new String[all.length];
        for (int i = 0; i < all.length; i++) n[i] = all[i].name().toLowerCase(Locale.ROOT);
        return n;
    }

    public float apply(float x) {
        return switch (this) {
            case LINEAR -> x;
            case LEAKY -> x > 0 ? x : 0.1f * x;
            case RELU -> x > 0 ? x : 0;
            case LOGISTIC -> logistic(x);
            case MISH -> x * (float) Math.tanh(softplus(x));
            case SWISH -> x * logistic(x);
        };
    }

    /** d activation / d x, evaluated at the pre-activation input x. */
    public float derivative(float x) {
        return switch (this) {
            case LINEAR -> 1f;
            case LEAKY -> x > 0 ? 1f : 0.1f;
            case RELU -> x > 0 ? 1f : 0f;
            case LOGISTIC -> {
                float s = logistic(x);
                yield s * (1 - s);
            }
            case MISH -> {
                // d/dx x*tanh(sp(x)) = tanh(sp) + x * (1 - tanh^2(sp)) * sigmoid(x)
                float t = (float) Math.tanh(softplus(x));
                yield t + x * (1 - t * t) * logistic(x);
            }
            case SWISH -> {
                float s = logistic(x);
                yield s + x * s * (1 - s);
            }
        };
    }

    public static float logistic(float x) {
        return (float) (1.0 / (1.0 + Math.exp(-x)));
    }

    /** Darknet's softplus: exact in the middle, linear/exponential tails beyond the threshold. */
    static float softplus(float x) {
        if (x > MISH_THRESHOLD) return x;
        if (x < -MISH_THRESHOLD) return (float) Math.exp(x);
        return (float) Math.log1p(Math.exp(x));
    }
}
