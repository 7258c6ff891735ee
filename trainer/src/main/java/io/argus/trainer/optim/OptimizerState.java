package io.argus.trainer.optim;

import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.NetworkSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * What the optimizer carries from one step to the next beside the weights, so that a resumed run takes the very step
 * an uninterrupted one would: every parameter tensor's SGD momentum and, once an EMA of the weights runs, the FP32
 * masters it averages (a backend's weights are then the EMA, so the masters are not in the .weights file).
 *
 * <p>Tensors are in Darknet's layout and in {@link #shapes}' order (per convolution in layer order: weights, biases,
 * batch-norm scales), whatever a backend's own layout is: a checkpoint of the CPU resumes on a GPU and back.
 */
public record OptimizerState(List<Tensor> tensors, boolean emaRunning) {
    /** One tensor: its momentum, and its masters while the EMA runs (null otherwise). */
    public record Tensor(String name, float[] momentum, float[] master) {
        public Tensor {
            if (master != null && master.length != momentum.length) {
                throw new IllegalArgumentException(name + ": " + momentum.length + " momentum values but "
                        + master.length + " masters");
            }
        }
    }

    /** A tensor's name and number of values. */
    public record Shape(String name, int size) {
        @Override
        public String toString() { return "'" + name + "' of " + size + " values"; }
    }

    public OptimizerState {
        tensors = List.copyOf(tensors);
        for (Tensor t : tensors) {
            if ((t.master() != null) != emaRunning) {
                throw new IllegalArgumentException(t.name() + ": masters " + (emaRunning ? "missing" : "present")
                        + " while the EMA " + (emaRunning ? "runs" : "does not run"));
            }
        }
    }

    /** The name of a convolution's tensor ({@code part}: weights, biases or scales), the same on every backend. */
    public static String tensorName(int layer, String part) {
        return "layer " + layer + " " + part;
    }

    /** The parameter tensors of a network, in checkpoint order. */
    public static List<Shape> shapes(NetworkSpec spec) {
        List<Shape> out = new ArrayList<>();
        for (ConvolutionalSpec c : spec.convolutionalLayers()) {
            out.add(new Shape(tensorName(c.index(), "weights"), c.weightCount()));
            out.add(new Shape(tensorName(c.index(), "biases"), c.filters()));
            if (c.batchNormalize()) out.add(new Shape(tensorName(c.index(), "scales"), c.filters()));
        }
        return out;
    }

    /** This state's tensors as shapes. */
    public List<Shape> shapes() {
        return tensors.stream().map(t -> new Shape(t.name(), t.momentum().length)).toList();
    }

    /**
     * How {@code found} tensor shapes differ from {@code expected}, in words: the counts when they differ, and the
     * first tensor that differs ("tensor 2 is 'layer 1 weights' of 576 values, expected 'layer 1 weights' of 1152
     * values"); null when they are the same.
     */
    public static String mismatch(List<Shape> found, List<Shape> expected) {
        String first = null;
        for (int i = 0; i < Math.min(found.size(), expected.size()) && first == null; i++) {
            if (!found.get(i).equals(expected.get(i))) {
                first = "tensor " + i + " is " + found.get(i) + ", expected " + expected.get(i);
            }
        }
        if (found.size() != expected.size()) {
            return found.size() + " tensors, expected " + expected.size() + (first == null ? "" : " (" + first + ")");
        }
        return first;
    }
}
