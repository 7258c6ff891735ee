package io.argus.trainer.nn;

import static io.argus.trainer.nn.ConvolutionalGradientTest.conv;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Max-pool, route, shortcut and upsample backward against finite differences: each sits between convolutions, so
 * the gradient it hands back decides the gradients of the convolutions before it.
 */
@Budget(seconds = 5)
class LayerGradientTest {
    static String net(int w, int h, int c) {
        return String.format(GradientCheck.NET, w, h, c);
    }

    @ParameterizedTest(name = "maxpool size {0} stride {1}")
    @CsvSource({"2,2", "2,1", "3,2", "3,1"})
    void maxPool(int size, int stride) {
        String cfg = net(9, 8, 3)
                + conv(4, 3, 1, 1, 1, true, "mish")
                + "[maxpool]\nsize=" + size + "\nstride=" + stride + "\n"
                + conv(5, 3, 1, 1, 1, true, "logistic");
        assertTrue(GradientCheck.run(cfg, 2, 30, 31L * size + stride) > 0);
    }

    @Test
    void unevenStridesPadFlagAndExplicitPoolPadding() {
        String cfg = net(9, 8, 3)
                + "[convolutional]\nfilters=4\nsize=3\nstride_x=2\nstride_y=1\npad=1\nbatch_normalize=1\n"
                + "activation=mish\n"                                    // 5 x 8
                + "[maxpool]\nsize=2\nstride_x=1\nstride_y=2\npadding=0\n"  // 4 x 4
                + conv(5, 3, 1, 1, 1, true, "logistic");
        assertTrue(GradientCheck.run(cfg, 2, 30, 13) > 0);
    }

    @Test
    void routeConcatenatesAndSplitsGroups() {
        String cfg = net(8, 8, 3)
                + conv(4, 3, 1, 1, 1, true, "mish")                  // 0
                + conv(6, 3, 1, 1, 1, true, "swish")                 // 1
                + "[route]\nlayers=-1\ngroups=2\ngroup_id=1\n"       // 2: second half of 1
                + conv(4, 3, 1, 1, 1, true, "mish")                  // 3
                + "[route]\nlayers=-1,-4\n"                          // 4: 3 and 0
                + conv(5, 1, 1, 0, 1, true, "logistic");             // 5
        assertTrue(GradientCheck.run(cfg, 2, 30, 7) > 0);
    }

    @ParameterizedTest(name = "shortcut activation {0}")
    @CsvSource({"linear", "leaky", "mish"})
    void shortcutAddsBothWays(String act) {
        String cfg = net(8, 7, 3)
                + conv(4, 3, 1, 1, 1, true, "mish")                  // 0
                + conv(4, 3, 1, 1, 1, true, "swish")                 // 1
                + "[shortcut]\nfrom=-2\nactivation=" + act + "\n"     // 2: 1 + 0
                + conv(3, 3, 1, 1, 1, false, "logistic");            // 3
        assertTrue(GradientCheck.run(cfg, 2, 30, act.hashCode()) > 0);
    }

    @ParameterizedTest(name = "upsample stride {0} scale {1}")
    @CsvSource({"2,1", "3,0.5"})
    void upsample(int stride, float scale) {
        String cfg = net(6, 5, 3)
                + conv(4, 3, 1, 1, 1, true, "mish")
                + "[upsample]\nstride=" + stride + "\nscale=" + scale + "\n"
                + conv(3, 3, 1, 1, 1, true, "logistic");
        assertTrue(GradientCheck.run(cfg, 2, 30, stride) > 0);
    }
}
