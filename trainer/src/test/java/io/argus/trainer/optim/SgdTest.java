package io.argus.trainer.optim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.testkit.Budget;
import java.nio.FloatBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Two steps of Darknet's momentum SGD with decay, computed by hand, with the loss scale divided out. */
@Budget(seconds = 5)
class SgdTest {
    @Test
    void momentumDecayAndLossScale() {
        float[] w = {1f, -2f};
        FloatBuffer g = FloatBuffer.wrap(new float[] {8f, 16f});       // gradient x loss scale 8
        ParameterTensor weights = new ParameterTensor("w", w, g, true);
        float[] b = {0.5f};
        ParameterTensor bias = new ParameterTensor("b", b, FloatBuffer.wrap(new float[] {-8f}), false);
        SgdStep step = new SgdStep(0.1f, 0.9f, 0.01f, 4, 0);
        float largest = Sgd.step(List.of(weights, bias), step, 8f);
        // v = -(g/8 + decay*batch*w); w += lr/batch * v
        float v0 = -(1f + 0.04f * 1f);
        float v1 = -(2f + 0.04f * -2f);
        assertArrayEquals(new float[] {1f + 0.025f * v0, -2f + 0.025f * v1}, w, 1e-7f);
        assertEquals(0.5f + 0.025f * 1f, b[0], 1e-7f, "no decay on biases");
        assertEquals(0f, g.get(0), "gradients cleared");
        assertEquals(Math.abs(0.025f * v1), largest, 1e-7f);
        // second step without gradient: momentum carries on
        float w0 = w[0];
        Sgd.step(List.of(weights, bias), step, 8f);
        float v0b = 0.9f * v0 - 0.04f * w0;
        assertEquals(w0 + 0.025f * v0b, w[0], 1e-7f);
    }

    @Test
    void emaStartsAtTheWeightsThenAverages() {
        float[] w = {1f};
        ParameterTensor t = new ParameterTensor("w", w, FloatBuffer.allocate(1), true);
        Ema ema = new Ema(List.of(t));
        ema.update(0.9f);
        assertEquals(1f, ema.shadow(0)[0]);
        w[0] = 2f;
        ema.update(0.9f);
        assertEquals(1.1f, ema.shadow(0)[0], 1e-6f);
    }
}
