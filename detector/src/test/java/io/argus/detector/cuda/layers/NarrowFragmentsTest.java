package io.argus.detector.cuda.layers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.testkit.Budget;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The narrow tensor-core kernel's filter layout, without a GPU: the fragments {@link Convolutional#narrowFragments}
 * writes are read back as PTX's m16n8k16 B operand (lane l holds K rows 2(l % 4) + {0, 1} and + 8 of column l / 4 of
 * each 16 x 8 slice), multiplied with the input taps in the kernel's K order (tap row, tap column, channel), and the
 * sums must equal a plain convolution of Darknet's [filters][channels][size][size] at every output channel.
 */
@Budget(seconds = 5)
class NarrowFragmentsTest {

    @ParameterizedTest(name = "{0} of {1} channels -> {2} of {3} filters, {4}x{4}")
    @CsvSource({"32,32,64,64,3", "30,32,30,32,3", "64,64,32,32,1", "16,16,64,64,3", "12,16,20,32,1"})
    void fragmentsReadAsTheMmaOperandGiveTheConvolution(int channels, int inChannels, int filters, int paddedFilters,
                                                        int size) {
        SplittableRandom rnd = new SplittableRandom(channels * 31L + filters);
        float[] w = new float[filters * channels * size * size];
        for (int i = 0; i < w.length; i++) w[i] = (float) rnd.nextDouble(-1, 1);
        float[][] taps = new float[size * size][inChannels];   // one output pixel's input, padding channels zero
        for (float[] t : taps) for (int c = 0; c < channels; c++) t[c] = (float) rnd.nextDouble(-1, 1);

        float[] fragments = Convolutional.narrowFragments(w, filters, channels, inChannels, paddedFilters, size);
        int tiles = paddedFilters / 8, slices = size * size * inChannels / 16;
        assertEquals(slices * tiles * 32 * 4, fragments.length);
        double[] mma = new double[paddedFilters];
        for (int slice = 0; slice < slices; slice++) {
            for (int j = 0; j < tiles; j++) {
                for (int lane = 0; lane < 32; lane++) {
                    int column = j * 8 + lane / 4;
                    int[] rows = {2 * (lane % 4), 2 * (lane % 4) + 1, 2 * (lane % 4) + 8, 2 * (lane % 4) + 9};
                    for (int e = 0; e < 4; e++) {
                        int k = slice * 16 + rows[e];
                        float a = taps[k / inChannels][k % inChannels];
                        mma[column] += (double) a * fragments[((slice * tiles + j) * 32 + lane) * 4 + e];
                    }
                }
            }
        }
        for (int f = 0; f < paddedFilters; f++) {
            double expected = 0;
            if (f < filters) {
                for (int c = 0; c < channels; c++) {
                    for (int r = 0; r < size; r++) {
                        for (int q = 0; q < size; q++) {
                            expected += (double) taps[r * size + q][c] * w[((f * channels + c) * size + r) * size + q];
                        }
                    }
                }
            }
            assertEquals(expected, mma[f], 1e-9, "output channel " + f);
        }
    }
}
