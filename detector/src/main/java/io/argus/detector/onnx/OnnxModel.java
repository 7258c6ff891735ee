package io.argus.detector.onnx;

import com.google.protobuf.InvalidProtocolBufferException;
import io.argus.detector.onnx.proto.Onnx;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * An ONNX model read and validated: the description every later stage (fusion into our layers, the CPU and GPU
 * backends, the heads per family) starts from. Immutable.
 *
 * <p>Reading parses the file with protobuf-java's classes generated from our subset of ONNX's schema
 * ({@code src/main/proto/onnx.proto}), then refuses, with the file, what was expected and what was found:
 * <ul>
 *   <li>a file protobuf cannot parse (truncated, not ONNX), or one without a graph or opset;</li>
 *   <li>a default-domain opset outside {@value OnnxOperators#MIN_OPSET}..{@value OnnxOperators#MAX_OPSET};</li>
 *   <li>an input with a dynamic dimension other than the batch (dimension 0, which takes the batch size the model
 *       is read for): every tensor's shape is fixed at load;</li>
 *   <li>a node whose operator is not in {@link OnnxOperators#SUPPORTED} or not of the default domain;</li>
 *   <li>a node whose output shapes cannot be inferred ({@code OnnxShapeInference}), or a graph output whose declared
 *       shape differs from the inferred one.</li>
 * </ul>
 */
public final class OnnxModel {
    private final Path file;
    private final long irVersion;
    private final int opset;
    private final String producer;
    private final String graphName;
    private final List<OnnxValue> inputs;
    private final List<OnnxValue> outputs;
    private final List<OnnxTensor> initializers;
    private final List<OnnxNode> nodes;
    private final Map<String, OnnxValue> values;
    private final Map<String, String> metadata;
    private final List<String> names;

    private OnnxModel(Path file, long irVersion, int opset, String producer, String graphName, List<OnnxValue> inputs,
                      List<OnnxValue> outputs, List<OnnxTensor> initializers, List<OnnxNode> nodes,
                      Map<String, OnnxValue> values, Map<String, String> metadata, List<String> names) {
        this.file = file;
        this.irVersion = irVersion;
        this.opset = opset;
        this.producer = producer;
        this.graphName = graphName;
        this.inputs = List.copyOf(inputs);
        this.outputs = List.copyOf(outputs);
        this.initializers = List.copyOf(initializers);
        this.nodes = List.copyOf(nodes);
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
        this.metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
        this.names = List.copyOf(names);
    }

    /** Reads a model for batch 1. */
    public static OnnxModel read(Path file) {
        return read(file, 1);
    }

    /**
     * Reads a model whose input batch, when dimension 0 of an input is symbolic, is {@code batch}. Throws
     * {@link OnnxModelException} for a model it cannot take, {@link UncheckedIOException} when the file cannot be read.
     */
    public static OnnxModel read(Path file, int batch) {
        if (batch < 1) throw new IllegalArgumentException("batch must be positive, got " + batch);
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the ONNX model " + file + ": " + e.getMessage(), e);
        }
        Onnx.ModelProto model;
        try {
            model = Onnx.ModelProto.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            throw new OnnxModelException(file, "not a readable ONNX model (" + bytes.length + " bytes): protobuf says: "
                    + e.getMessage(), e);
        }
        try {
            return new Reader(file, model, batch).read();
        } catch (OnnxModelException e) {
            throw e;
        } catch (RuntimeException e) {
            // a message of a form no check expects (a hostile or broken file): refused, named, never a crash
            throw new OnnxModelException(file, "malformed model (" + e.getClass().getSimpleName() + ": " + e.getMessage()
                    + ")", e);
        }
    }

    /** The file it was read from. */
    public Path file() { return file; }

    public long irVersion() { return irVersion; }

    /** The opset of ONNX's default domain the graph binds to. */
    public int opset() { return opset; }

    /** The producer's name and version, e.g. "pytorch 2.11.0". */
    public String producer() { return producer; }

    public String graphName() { return graphName; }

    /** The graph's inputs other than initializers, with their static shapes (NCHW for an image input). */
    public List<OnnxValue> inputs() { return inputs; }

    /** The graph's outputs with their inferred shapes. */
    public List<OnnxValue> outputs() { return outputs; }

    /** The weights and other constants stored in the graph. */
    public List<OnnxTensor> initializers() { return initializers; }

    /** The nodes in graph order (topological). */
    public List<OnnxNode> nodes() { return nodes; }

    /** Every tensor of the graph by name, in order of definition: initializers, inputs, then node outputs. */
    public Map<String, OnnxValue> values() { return values; }

    public OnnxValue value(String name) {
        OnnxValue v = values.get(name);
        if (v == null) throw new IllegalArgumentException(file + ": no tensor named '" + name + "'");
        return v;
    }

    /** The model's metadata_props, in file order. */
    public Map<String, String> metadata() { return metadata; }

    /** The class names from the {@code names} metadata ({@link OnnxClassNames}); empty when there is none. */
    public List<String> names() { return names; }

    /** The nodes whose outputs were all folded to constants at load: the shape arithmetic, nothing to run. */
    public List<OnnxNode> foldedNodes() {
        return nodes.stream().filter(n -> n.outputs().stream().allMatch(o -> o.isEmpty() || values.get(o).constant() != null))
                .toList();
    }

    /** The checks and conversions of one read. */
    private static final class Reader {
        private final Path file;
        private final Onnx.ModelProto model;
        private final int batch;

        Reader(Path file, Onnx.ModelProto model, int batch) {
            this.file = file;
            this.model = model;
            this.batch = batch;
        }

        private OnnxModelException refuse(String message) {
            return new OnnxModelException(file, message);
        }

        OnnxModel read() {
            if (!model.hasGraph() || model.getOpsetImportCount() == 0) {
                throw refuse("not an ONNX model: expected a ModelProto with a graph and an opset_import, found "
                        + (model.hasGraph() ? "a graph" : "no graph") + " and " + model.getOpsetImportCount()
                        + " opset imports");
            }
            int opset = opset();
            Onnx.GraphProto graph = model.getGraph();

            Map<String, OnnxValue> values = new LinkedHashMap<>();
            List<OnnxTensor> initializers = new ArrayList<>();
            for (Onnx.TensorProto t : graph.getInitializerList()) {
                OnnxTensor tensor;
                try {
                    tensor = OnnxTensor.read(t, t.getName());
                } catch (IllegalArgumentException e) {
                    throw refuse(e.getMessage());
                }
                initializers.add(tensor);
                values.put(tensor.name(), new OnnxValue(tensor.name(), tensor.type(), tensor.shape(), false, tensor));
            }
            List<OnnxValue> inputs = new ArrayList<>();
            for (Onnx.ValueInfoProto in : graph.getInputList()) {
                if (values.containsKey(in.getName())) continue; // IR < 4 lists initializers among the inputs
                OnnxValue v = input(in);
                inputs.add(v);
                values.put(v.name(), v);
            }
            if (inputs.isEmpty()) throw refuse("the graph has no input: expected an image input such as images [1, 3, 640, 640]");

            List<OnnxNode> nodes = new ArrayList<>();
            for (int k = 0; k < graph.getNodeCount(); k++) nodes.add(node(graph.getNode(k), k));

            OnnxShapeInference inference = new OnnxShapeInference(values, opset);
            for (OnnxNode n : nodes) {
                try {
                    inference.infer(n);
                } catch (OnnxShapeInference.Refusal e) {
                    throw refuse("node '" + n.name() + "' (" + n.op() + "): cannot infer its output shapes: " + e.getMessage());
                } catch (RuntimeException e) {
                    // attributes or inputs of a form no rule expects (a hostile or broken file): named, not a crash
                    throw refuse("node '" + n.name() + "' (" + n.op() + "): cannot infer its output shapes: malformed ("
                            + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
                }
            }

            List<OnnxValue> outputs = new ArrayList<>();
            for (Onnx.ValueInfoProto out : graph.getOutputList()) outputs.add(output(out, values));

            Map<String, String> metadata = new LinkedHashMap<>();
            for (Onnx.StringStringEntryProto p : model.getMetadataPropsList()) metadata.put(p.getKey(), p.getValue());
            List<String> names = List.of();
            if (metadata.containsKey("names")) {
                try {
                    names = OnnxClassNames.parse(metadata.get("names"));
                } catch (IllegalArgumentException e) {
                    throw refuse("metadata 'names' is not a dict of class index to name: " + e.getMessage());
                }
            }
            String producer = (model.getProducerName() + " " + model.getProducerVersion()).strip();
            return new OnnxModel(file, model.getIrVersion(), opset, producer, graph.getName(), inputs, outputs,
                    initializers, nodes, values, metadata, names);
        }

        private int opset() {
            Long version = null;
            for (Onnx.OperatorSetIdProto o : model.getOpsetImportList()) {
                if (OnnxOperators.defaultDomain(o.getDomain())) version = o.getVersion();
            }
            if (version == null) {
                throw refuse("no opset of the default domain (ai.onnx): expected one of "
                        + OnnxOperators.MIN_OPSET + ".." + OnnxOperators.MAX_OPSET + ", found imports of "
                        + model.getOpsetImportList().stream().map(o -> "'" + o.getDomain() + "' " + o.getVersion()).toList());
            }
            if (version < OnnxOperators.MIN_OPSET || version > OnnxOperators.MAX_OPSET) {
                throw refuse("opset " + version + " is not supported: expected " + OnnxOperators.MIN_OPSET + ".."
                        + OnnxOperators.MAX_OPSET + " (export again with opset_version=17, as Ultralytics does)");
            }
            return version.intValue();
        }

        private OnnxValue input(Onnx.ValueInfoProto in) {
            String name = in.getName();
            if (!in.getType().hasTensorType() || !in.getType().getTensorType().hasShape()) {
                throw refuse("input '" + name + "' has no tensor shape: expected a tensor of static shape, e.g. [1, 3, 640, 640]");
            }
            Onnx.TypeProto.Tensor t = in.getType().getTensorType();
            OnnxType type = OnnxType.of(t.getElemType());
            if (type == null || !type.numeric()) {
                throw refuse("input '" + name + "' has element type " + OnnxTensor.describe(t.getElemType())
                        + ": expected FLOAT (or another number type)");
            }
            List<Onnx.TensorShapeProto.Dimension> dims = t.getShape().getDimList();
            long[] shape = new long[dims.size()];
            for (int d = 0; d < shape.length; d++) {
                Onnx.TensorShapeProto.Dimension dim = dims.get(d);
                if (dim.hasDimValue() && dim.getDimValue() > 0) {
                    shape[d] = dim.getDimValue();
                } else if (d == 0) {
                    shape[d] = batch; // a dynamic batch is bound when reading
                } else {
                    String what = dim.hasDimParam() ? "'" + dim.getDimParam() + "'"
                            : dim.hasDimValue() ? "of size " + dim.getDimValue() : "without a size";
                    throw refuse("input '" + name + "' has a dynamic dimension " + d + " (" + what + "): expected a"
                            + " fixed size; export with a fixed input size (Ultralytics: dynamic=False, imgsz=640;"
                            + " torch.onnx.export: no dynamic_axes but the batch)");
                }
            }
            return new OnnxValue(name, type, shape, false, null);
        }

        private OnnxNode node(Onnx.NodeProto p, int index) {
            String name = p.getName().isEmpty() ? p.getOpType() + "_" + index : p.getName();
            if (!OnnxOperators.supported(p.getOpType(), p.getDomain())) {
                String domain = p.getDomain().isEmpty() ? "ai.onnx" : p.getDomain();
                throw refuse("node '" + name + "' (op " + p.getOpType() + ", domain " + domain + ") is not supported;"
                        + " supported (domain ai.onnx): " + String.join(", ", OnnxOperators.SUPPORTED));
            }
            Map<String, OnnxAttribute> attributes = new HashMap<>();
            for (Onnx.AttributeProto a : p.getAttributeList()) {
                if (!a.getRefAttrName().isEmpty()) {
                    throw refuse("node '" + name + "' (" + p.getOpType() + "): attribute '" + a.getName()
                            + "' refers to a function's attribute: expected a value");
                }
                try {
                    attributes.put(a.getName(), OnnxAttribute.read(a));
                } catch (IllegalArgumentException e) {
                    throw refuse("node '" + name + "' (" + p.getOpType() + "): " + e.getMessage());
                }
            }
            return new OnnxNode(name, p.getOpType(), p.getDomain(), p.getInputList(), p.getOutputList(), attributes);
        }

        /** The inferred output, checked against the dimensions the file declares (its symbolic ones aside). */
        private OnnxValue output(Onnx.ValueInfoProto out, Map<String, OnnxValue> values) {
            OnnxValue v = values.get(out.getName());
            if (v == null) {
                throw refuse("output '" + out.getName() + "' is not a graph input, an initializer or the output of a node");
            }
            if (out.getType().hasTensorType() && out.getType().getTensorType().hasShape() && !v.upperBound()) {
                List<Onnx.TensorShapeProto.Dimension> dims = out.getType().getTensorType().getShape().getDimList();
                long[] inferred = v.shape();
                boolean same = dims.size() == inferred.length;
                for (int d = 0; same && d < dims.size(); d++) {
                    if (dims.get(d).hasDimValue() && dims.get(d).getDimValue() != inferred[d]) same = false;
                }
                if (!same) {
                    throw refuse("output '" + out.getName() + "' is declared " + dims.stream()
                            .map(d -> d.hasDimValue() ? String.valueOf(d.getDimValue()) : d.getDimParam())
                            .collect(Collectors.joining(", ", "[", "]")) + " but infers to " + Arrays.toString(inferred));
                }
            }
            return v;
        }
    }
}
