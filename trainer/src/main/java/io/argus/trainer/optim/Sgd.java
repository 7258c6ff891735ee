package io.argus.trainer.optim;

import java.nio.FloatBuffer;
import java.util.List;

/**
 * Darknet's update_convolutional_layer on FP32 masters, with the gradient still multiplied by the loss scale:
 * v = momentum v - (g / lossScale + decay batch w) (decay on weights only), w += learning_rate / batch v.
 * Clears the gradients. Returns the largest absolute change of any parameter.
 */
public final class Sgd {
    private Sgd() {}

    public static float step(List<ParameterTensor> tensors, SgdStep s, float lossScale) {
        float unscale = 1f / lossScale;
        float rate = s.learningRate() / s.batch();
        float largest = 0;
        for (ParameterTensor t : tensors) {
            float[] w = t.master();
            float[] v = t.velocity();
            FloatBuffer g = t.gradient();
            float decay = t.decays() ? s.decay() * s.batch() : 0f;
            for (int i = 0; i < w.length; i++) {
                float vi = s.momentum() * v[i] - (g.get(i) * unscale + decay * w[i]);
                float dw = rate * vi;
                w[i] += dw;
                v[i] = vi;
                g.put(i, 0f);
                largest = Math.max(largest, Math.abs(dw));
            }
        }
        return largest;
    }
}
