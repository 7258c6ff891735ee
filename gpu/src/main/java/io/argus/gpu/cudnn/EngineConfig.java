package io.argus.gpu.cudnn;

import static org.bytedeco.cuda.global.cudnn.*;

import io.argus.gpu.CudaException;
import io.argus.gpu.CudnnDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An engine configuration as a value: cuDNN's global engine index and its knob choices (knob type -> value). It is
 * all cuDNN needs to rebuild the configuration for the same graph on the same GPU and library, which is what the
 * disk plan cache keeps ("engine 12 knobs 3=1,7=64"), as cudnn-frontend serializes its plans.
 */
public record EngineConfig(long engine, Map<Integer, Long> knobs) {

    public EngineConfig {
        knobs = Map.copyOf(new TreeMap<>(knobs));
    }

    /** The engine index and knob choices of a finalized execution plan's configuration. */
    static EngineConfig ofPlan(CudnnDescriptor plan, ConvolutionGraph owner) {
        CudnnDescriptor config = owner.own(new CudnnDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, "engine config"));
        if (CudnnDescriptor.getDescriptors(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                new CudnnDescriptor[] {config}) != 1) {
            throw new CudaException("cuDNN execution plan: no engine config");
        }
        return read(config, owner);
    }

    /**
     * Reads the engine index and knob choices of a configuration, into as many knob descriptors as there are knob
     * types (cudnn-frontend's way). Reading a heuristics result after a count-only query kept no knob at all on the
     * H100 (cuDNN 9.19), and plans rebuilt from the disk cache then ran other kernels: training 10x slower.
     */
    static EngineConfig read(CudnnDescriptor config, ConvolutionGraph owner) {
        CudnnDescriptor engine = owner.own(new CudnnDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, "engine"));
        if (CudnnDescriptor.getDescriptors(config, CUDNN_ATTR_ENGINECFG_ENGINE, new CudnnDescriptor[] {engine}) != 1) {
            throw new CudaException("cuDNN engine config: no engine");
        }
        long index = engine.getInt64(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, "global index");
        CudnnDescriptor[] choices = new CudnnDescriptor[CUDNN_KNOB_TYPE_COUNTS];
        for (int i = 0; i < choices.length; i++) {
            choices[i] = owner.own(new CudnnDescriptor(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, "knob choice"));
        }
        int got = Math.min(choices.length,
                CudnnDescriptor.getDescriptors(config, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, choices));
        Map<Integer, Long> knobs = new TreeMap<>();
        for (int i = 0; i < got; i++) {
            int[] type = choices[i].getEnums(CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1);
            if (type.length != 1) throw new CudaException("cuDNN knob choice: no knob type");
            knobs.put(type[0], choices[i].getInt64(CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, "knob value"));
        }
        return new EngineConfig(index, knobs);
    }

    /** The engine descriptor of this index for the graph (finalized), owned by the graph. */
    CudnnDescriptor engineFor(ConvolutionGraph graph) {
        return graph.own(new CudnnDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, "engine " + engine))
                .descriptors(CUDNN_ATTR_ENGINE_OPERATION_GRAPH, "operation graph", graph.graph())
                .int64(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, "global index", engine)
                .finish();
    }

    /** Rebuilds the configuration on {@code graph}: the engine by index, then each knob choice. */
    CudnnDescriptor build(ConvolutionGraph graph, CudnnDescriptor engineDescriptor) {
        List<CudnnDescriptor> choices = new ArrayList<>();
        for (Map.Entry<Integer, Long> k : knobs.entrySet()) {
            choices.add(graph.own(new CudnnDescriptor(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, "knob choice"))
                    .enumeration(CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, "knob type", k.getKey())
                    .int64(CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, "knob value", k.getValue())
                    .finish());
        }
        CudnnDescriptor cfg = graph.own(new CudnnDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, "engine config"))
                .descriptors(CUDNN_ATTR_ENGINECFG_ENGINE, "engine", engineDescriptor);
        if (!choices.isEmpty()) {
            cfg.descriptors(CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, "knob choices", choices.toArray(new CudnnDescriptor[0]));
        }
        return cfg.finish();
    }

    /** "12 3=1,7=64": the text form of the disk cache. */
    public String text() {
        StringBuilder s = new StringBuilder(Long.toString(engine));
        String sep = " ";
        for (Map.Entry<Integer, Long> k : new TreeMap<>(knobs).entrySet()) {
            s.append(sep).append(k.getKey()).append('=').append(k.getValue());
            sep = ",";
        }
        return s.toString();
    }

    /** Parses {@link #text()}; throws IllegalArgumentException on anything else. */
    public static EngineConfig parse(String text) {
        String t = text.strip();
        int space = t.indexOf(' ');
        long engine = Long.parseLong(space < 0 ? t : t.substring(0, space));
        if (engine < 0) throw new IllegalArgumentException("negative engine index " + engine);
        Map<Integer, Long> knobs = new TreeMap<>();
        if (space >= 0) {
            for (String kv : t.substring(space + 1).split(",")) {
                int eq = kv.indexOf('=');
                if (eq <= 0) throw new IllegalArgumentException("knob without '=': " + kv);
                int type = Integer.parseInt(kv.substring(0, eq).strip());
                if (type < 0 || knobs.put(type, Long.parseLong(kv.substring(eq + 1).strip())) != null) {
                    throw new IllegalArgumentException("bad or repeated knob " + kv);
                }
            }
        }
        return new EngineConfig(engine, knobs);
    }
}
