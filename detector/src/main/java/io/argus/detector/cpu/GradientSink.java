package io.argus.detector.cpu;

import org.bytedeco.dnnl.dnnl_memory_desc;
import org.bytedeco.javacpp.Pointer;

/**
 * Where a training layer's backward pass puts dLoss/dInput for one of its inputs: into the gradient of the layer that
 * wrote that input. A layer read by several (a route's source, a shortcut's two) gets a share from each: the reader
 * that runs first in backward order writes the gradient, the others add onto it ({@code add}), so no gradient is
 * cleared and summed in an extra pass. A gradient that some reader covers only in part (a route's channel group) is
 * cleared before backward and only added to ({@link CpuTrainingNetwork}).
 *
 * @param gradient the input's layer's gradient, FP32 channels last
 * @param add      add onto it (false: overwrite)
 */
record GradientSink(LayerOutput gradient, boolean add) {
    /** A primitive putting {@code factor x from} (layout {@code fromDesc}) into the view {@code toDesc} of the gradient. */
    Dnnl.Primitive from(Dnnl.Resources r, dnnl_memory_desc fromDesc, Pointer from, float factor,
                        dnnl_memory_desc toDesc, Scratchpad scratch) {
        return r.move(fromDesc, from, factor, toDesc, gradient.pointer(), add, scratch);
    }

    /** Whether a primitive whose output covers the whole gradient may write it directly (instead of via scratch). */
    boolean writable() { return !add; }
}
