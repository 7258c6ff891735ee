package io.argus.trainer.optim;

import java.util.List;

/**
 * Exponential moving average of the weights (Darknet's ema_alpha): shadow = alpha shadow + (1 - alpha) w after each
 * update, started from the weights themselves. Checkpoints save the shadow, as Darknet saves the EMA weights.
 */
public final class Ema {
    private final List<ParameterTensor> tensors;
    private final float[][] shadow;
    private boolean started;

    public Ema(List<ParameterTensor> tensors) {
        this.tensors = List.copyOf(tensors);
        this.shadow = new float[tensors.size()][];
        for (int i = 0; i < tensors.size(); i++) shadow[i] = new float[tensors.get(i).size()];
    }

    public boolean started() { return started; }

    public void update(float alpha) {
        for (int t = 0; t < tensors.size(); t++) {
            float[] w = tensors.get(t).master();
            float[] s = shadow[t];
            if (!started) {
                System.arraycopy(w, 0, s, 0, w.length);
            } else {
                for (int i = 0; i < w.length; i++) s[i] = alpha * s[i] + (1 - alpha) * w[i];
            }
        }
        started = true;
    }

    /**
     * Continues an average that a checkpoint saved: the shadow takes {@code values} (one array per tensor, in the
     * constructor's order; copied) and the next update moves it instead of starting it.
     */
    public void resume(List<float[]> values) {
        if (values.size() != shadow.length) {
            throw new IllegalArgumentException(values.size() + " tensors to resume the EMA from, expected "
                    + shadow.length);
        }
        for (int t = 0; t < shadow.length; t++) {
            if (values.get(t).length != shadow[t].length) {
                throw new IllegalArgumentException(tensors.get(t).name() + ": " + values.get(t).length
                        + " values to resume the EMA from, expected " + shadow[t].length);
            }
            System.arraycopy(values.get(t), 0, shadow[t], 0, shadow[t].length);
        }
        started = true;
    }

    /** The averaged values of tensor {@code t} (in the order given to the constructor). */
    public float[] shadow(int t) { return shadow[t]; }
}
