package io.argus.detector.onnx;

import java.util.List;
import java.util.Map;

/**
 * One node of the graph: its name (exporters name every node; an unnamed one gets {@code op_index}), operator and
 * domain ({@code ""} is ONNX's default domain, ai.onnx), the tensors it reads ({@code ""} for an optional input left
 * out) and writes, and its attributes by name.
 */
public record OnnxNode(String name, String op, String domain, List<String> inputs, List<String> outputs,
                       Map<String, OnnxAttribute> attributes) {
    public OnnxNode {
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
        attributes = Map.copyOf(attributes);
    }

    /** Input i, or "" when the node has fewer inputs (an optional one left out). */
    public String input(int i) { return i < inputs.size() ? inputs.get(i) : ""; }

    public OnnxAttribute attribute(String attributeName) { return attributes.get(attributeName); }

    long intAttribute(String attributeName, long otherwise) {
        OnnxAttribute a = attributes.get(attributeName);
        return a == null ? otherwise : a.i();
    }

    float floatAttribute(String attributeName, float otherwise) {
        OnnxAttribute a = attributes.get(attributeName);
        return a == null ? otherwise : a.f();
    }

    String stringAttribute(String attributeName, String otherwise) {
        OnnxAttribute a = attributes.get(attributeName);
        return a == null ? otherwise : a.s();
    }

    /** An ints attribute, or null when absent. */
    long[] intsAttribute(String attributeName) {
        OnnxAttribute a = attributes.get(attributeName);
        return a == null ? null : a.ints();
    }
}
