package io.argus.detector.darknet;

/**
 * Parameters of one {@code [convolutional]} layer in Darknet's order and layout. {@code scales}, {@code mean}
 * and {@code variance} are null without batch_normalize. {@code weights} is [filters][c/groups][size][size].
 */
public record ConvWeights(float[] biases, float[] scales, float[] mean, float[] variance, float[] weights) {
    /** Darknet's batch-norm epsilon. */
    public static final float BN_EPSILON = 0.00001f;

    public static ConvWeights zeros(ConvolutionalSpec spec) {
        int n = spec.filters();
        boolean bn = spec.batchNormalize();
        return new ConvWeights(new float[n], bn ? new float[n] : null, bn ? new float[n] : null,
                bn ? new float[n] : null, new float[spec.weightCount()]);
    }

    public boolean batchNormalized() { return scales != null; }

    /** Floats this layer occupies in a .weights file. */
    public int floatCount() {
        return biases.length * (batchNormalized() ? 4 : 1) + weights.length;
    }

    /**
     * Batch norm folded into the convolution for inference: w' = w * s/sqrt(var+eps), b' = b - mean * s/sqrt(var+eps).
     * Returns {weights', bias'}.
     */
    public float[][] folded() {
        int n = biases.length;
        int perFilter = weights.length / n;
        float[] w = weights.clone();
        float[] b = biases.clone();
        if (batchNormalized()) {
            for (int f = 0; f < n; f++) {
                float k = (float) (scales[f] / Math.sqrt(variance[f] + BN_EPSILON));
                for (int i = 0; i < perFilter; i++) w[f * perFilter + i] *= k;
                b[f] = biases[f] - mean[f] * k;
            }
        }
        return new float[][] {w, b};
    }

    public ConvWeights copy() {
        return new ConvWeights(biases.clone(), scales == null ? null : scales.clone(),
                mean == null ? null : mean.clone(), variance == null ? null : variance.clone(), weights.clone());
    }
}
