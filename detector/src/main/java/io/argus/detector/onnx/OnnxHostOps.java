package io.argus.detector.onnx;

import io.argus.detector.darknet.HostOps;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/** Nodes of an imported graph that compute one feature map a layer reads, run by the {@link OnnxInterpreter}. */
final class OnnxHostOps implements HostOps {
    private final OnnxInterpreter interpreter;
    private final List<OnnxNode> nodes;
    private final List<String> inputs;
    private final List<long[]> inputShapes;
    private final String output;

    OnnxHostOps(OnnxInterpreter interpreter, List<OnnxNode> nodes, List<String> inputs, List<long[]> inputShapes,
                String output) {
        this.interpreter = interpreter;
        this.nodes = List.copyOf(nodes);
        this.inputs = List.copyOf(inputs);
        this.inputShapes = List.copyOf(inputShapes);
        this.output = output;
    }

    @Override
    public void apply(float[][] in, float[] out) {
        Map<String, OnnxInterpreter.Tensor> env = new HashMap<>();
        for (int i = 0; i < inputs.size(); i++) env.put(inputs.get(i), new OnnxInterpreter.Tensor(inputShapes.get(i), in[i]));
        interpreter.run(nodes, env);
        float[] result = env.get(output).data();
        if (result.length != out.length) {
            throw new IllegalStateException("'" + output + "' has " + result.length + " values, expected " + out.length);
        }
        System.arraycopy(result, 0, out, 0, out.length);
    }

    @Override
    public String describe() {
        TreeSet<String> ops = new TreeSet<>();
        for (OnnxNode n : nodes) ops.add(n.op());
        return nodes.size() + " ONNX nodes (" + String.join(", ", ops) + ") computing '" + output + "'";
    }
}
