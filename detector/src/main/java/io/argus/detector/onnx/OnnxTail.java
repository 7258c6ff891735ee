package io.argus.detector.onnx;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What an imported graph computes after its last layers: the heads' decoding (DFL, grids and strides, anchors,
 * sigmoids, the final concatenation), run on the host per image by the {@link OnnxInterpreter}. Its inputs are layer
 * outputs ({@link #inputLayers()}, NCHW FP32 of one image); its outputs are the graph's.
 */
public final class OnnxTail {
    private final OnnxInterpreter interpreter;
    private final List<OnnxNode> nodes;
    private final List<String> inputs;
    private final int[] inputLayers;
    private final List<long[]> inputShapes;
    private final List<String> outputs;
    private final List<long[]> outputShapes;

    OnnxTail(OnnxInterpreter interpreter, List<OnnxNode> nodes, List<String> inputs, int[] inputLayers,
             List<long[]> inputShapes, List<String> outputs, List<long[]> outputShapes) {
        this.interpreter = interpreter;
        this.nodes = List.copyOf(nodes);
        this.inputs = List.copyOf(inputs);
        this.inputLayers = inputLayers.clone();
        this.inputShapes = List.copyOf(inputShapes);
        this.outputs = List.copyOf(outputs);
        this.outputShapes = List.copyOf(outputShapes);
    }

    /** The layers whose outputs the tail reads, in the order {@link #run} takes them. */
    public int[] inputLayers() { return inputLayers.clone(); }

    /** The graph's output names, in the order {@link #run} returns them. */
    public List<String> outputs() { return outputs; }

    /** The static shape of output {@code i} for one image. */
    public long[] outputShape(int i) { return outputShapes.get(i).clone(); }

    /** The nodes run per image. */
    public List<OnnxNode> nodes() { return nodes; }

    /** The graph's outputs for one image from its layers' outputs ({@code inputs[i]}: layer inputLayers()[i], NCHW). */
    public List<OnnxInterpreter.Tensor> run(float[][] layerOutputs) {
        Map<String, OnnxInterpreter.Tensor> env = new HashMap<>();
        for (int i = 0; i < inputs.size(); i++) {
            env.put(inputs.get(i), new OnnxInterpreter.Tensor(inputShapes.get(i), layerOutputs[i]));
        }
        interpreter.run(nodes, env);
        List<OnnxInterpreter.Tensor> out = new ArrayList<>(outputs.size());
        for (String o : outputs) {
            OnnxInterpreter.Tensor t = env.get(o);
            // an output that is an input's array (a layer's output as is, or only reshaped) must outlive the scratch
            for (float[] in : layerOutputs) if (t.data() == in) t = new OnnxInterpreter.Tensor(t.shape(), in.clone());
            out.add(t);
        }
        return out;
    }
}
