package io.argus.trainer.optim;

import java.nio.FloatBuffer;

/**
 * One trainable tensor: the FP32 master values the optimizer updates, the momentum buffer, and the gradient
 * accumulated over the passes of one step (multiplied by the loss scale, as the backward pass produced it).
 * {@code decays}: weight decay applies (convolution weights, as in Darknet; not biases or batch-norm scales).
 */
public final class ParameterTensor {
    private final String name;
    private final float[] master;
    private final float[] velocity;
    private final FloatBuffer gradient;
    private final boolean decays;

    public ParameterTensor(String name, float[] master, FloatBuffer gradient, boolean decays) {
        if (gradient.capacity() != master.length) {
            throw new IllegalArgumentException(name + ": gradient holds " + gradient.capacity() + " values, expected "
                    + master.length);
        }
        this.name = name;
        this.master = master;
        this.velocity = new float[master.length];
        this.gradient = gradient;
        this.decays = decays;
    }

    public String name() { return name; }

    public int size() { return master.length; }

    public float[] master() { return master; }

    public float[] velocity() { return velocity; }

    public FloatBuffer gradient() { return gradient; }

    public boolean decays() { return decays; }

    public void zeroGradient() {
        for (int i = 0; i < master.length; i++) gradient.put(i, 0f);
    }
}
