package io.argus.detector.onnx;

import java.util.List;
import java.util.Set;

/**
 * The operators of ONNX's default domain the importer accepts: those today's YOLO exports use (YOLOv5, YOLOv8 and
 * YOLO11, YOLOX, YOLOv9 from their own exporters and torch.onnx.export, with or without NMS in the graph) and
 * Argus's own export. A node of any other operator, or of another domain (com.microsoft, custom ops), is refused at
 * load. Upsample is not here: ONNX deprecated it at opset 10, below the supported opsets, where exporters write Resize.
 */
public final class OnnxOperators {
    /** In the order the refusal lists them. */
    public static final List<String> SUPPORTED = List.of(
            // convolution and normalisation
            "Conv", "BatchNormalization", "MaxPool", "AveragePool", "GlobalAveragePool", "MatMul", "Gemm",
            // activations
            "Sigmoid", "Relu", "LeakyRelu", "Tanh", "Softplus", "HardSigmoid", "HardSwish", "Softmax", "Clip",
            // arithmetic
            "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Exp", "Neg", "Floor", "Ceil", "Min", "Max", "Equal", "Where",
            // layout
            "Concat", "Split", "Slice", "Resize", "Reshape", "Transpose", "Flatten", "Unsqueeze", "Squeeze", "Expand",
            "Tile", "Pad", "Gather", "Identity", "Cast",
            // shapes and constants
            "Shape", "Constant", "ConstantOfShape", "Range",
            // heads and post-processing
            "ReduceMax", "ArgMax", "TopK", "NonMaxSuppression");

    private static final Set<String> SET = Set.copyOf(SUPPORTED);

    /** The lowest and highest default-domain opset accepted. */
    public static final int MIN_OPSET = 11, MAX_OPSET = 21;

    private OnnxOperators() {}

    /** Whether a node of this op and domain is accepted ("" and "ai.onnx" are both the default domain). */
    public static boolean supported(String op, String domain) {
        return defaultDomain(domain) && SET.contains(op);
    }

    static boolean defaultDomain(String domain) {
        return domain.isEmpty() || domain.equals("ai.onnx");
    }
}
