package io.argus.trainer.nn;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Convolution forward/backward against finite differences: every activation, batch norm, groups, stride, padding. */
@Budget(seconds = 5)
class ConvolutionalGradientTest {
    static String conv(int filters, int size, int stride, int pad, int groups, boolean bn, String act) {
        return "[convolutional]\nfilters=" + filters + "\nsize=" + size + "\nstride=" + stride + "\npadding=" + pad
                + "\ngroups=" + groups + "\nbatch_normalize=" + (bn ? 1 : 0) + "\nactivation=" + act + "\n";
    }

    @ParameterizedTest(name = "{0}, batch norm {1}")
    @CsvSource({"leaky,true", "mish,true", "linear,true", "logistic,true", "relu,true", "swish,true",
            "leaky,false", "mish,false", "logistic,false"})
    void twoConvolutionsMatchFiniteDifferences(String act, boolean bn) {
        // the second layer's gradient reaches the first layer's parameters through its input gradient
        String cfg = String.format(GradientCheck.NET, 7, 6, 3)
                + conv(4, 3, 1, 1, 1, bn, act)
                + conv(6, 3, 2, 1, 2, bn, act);
        assertTrue(GradientCheck.run(cfg, 2, 25, act.hashCode()) > 0);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"1x1 direct,1,1,0,1", "1x1 grouped,1,1,0,2", "3x3 no padding,3,1,0,1", "5x5 stride 2,5,2,2,1",
            "3x3 depthwise,3,1,1,4"})
    void shapesMatchFiniteDifferences(String name, int size, int stride, int pad, int groups) {
        String cfg = String.format(GradientCheck.NET, 8, 8, 4)
                + conv(4, 3, 1, 1, 1, true, "leaky")
                + conv(8, size, stride, pad, groups, true, "mish");
        assertTrue(GradientCheck.run(cfg, 3, 25, name.hashCode()) > 0);
    }
}
