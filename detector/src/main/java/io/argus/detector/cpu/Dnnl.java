package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.*;

import io.argus.detector.darknet.Activation;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.dnnl.dnnl_engine;
import org.bytedeco.dnnl.dnnl_exec_arg_t;
import org.bytedeco.dnnl.dnnl_memory;
import org.bytedeco.dnnl.dnnl_memory_desc;
import org.bytedeco.dnnl.dnnl_post_ops;
import org.bytedeco.dnnl.dnnl_primitive;
import org.bytedeco.dnnl.dnnl_primitive_attr;
import org.bytedeco.dnnl.dnnl_primitive_desc;
import org.bytedeco.dnnl.dnnl_stream;
import org.bytedeco.javacpp.Pointer;

/**
 * Thin, checked access to oneDNN's C API: one CPU engine per process, descriptors, memories over our own native
 * buffers, and primitives with their argument lists prepared once so that running one allocates nothing.
 */
final class Dnnl {
    private Dnnl() {}

    private static dnnl_engine engine;

    static synchronized dnnl_engine engine() {
        if (engine == null) {
            dnnl_engine e = new dnnl_engine();
            check(dnnl_engine_create(e, dnnl_cpu, 0), "engine_create");
            engine = e;
        }
        return engine;
    }

    static void check(int status, String what) {
        if (status != dnnl_success) throw new IllegalStateException("oneDNN " + what + " failed: status " + status);
    }

    /** Owns the oneDNN objects of one layer and destroys them together. */
    static final class Resources implements AutoCloseable {
        private final List<Object> owned = new ArrayList<>();

        dnnl_stream stream() {
            dnnl_stream s = new dnnl_stream();
            check(dnnl_stream_create(s, engine(), dnnl_stream_default_flags), "stream_create");
            owned.add(s);
            return s;
        }

        dnnl_memory_desc desc(long[] dims, int tag) { return desc(dims, dnnl_f32, tag); }

        dnnl_memory_desc desc(long[] dims, int dataType, int tag) {
            dnnl_memory_desc d = new dnnl_memory_desc();
            check(dnnl_memory_desc_create_with_tag(d, dims.length, dims, dataType, tag), "memory_desc_create");
            owned.add(d);
            return d;
        }

        /** The part of {@code parent} of size {@code dims} starting at {@code offsets} (e.g. a channel slice). */
        dnnl_memory_desc submemory(dnnl_memory_desc parent, long[] dims, long[] offsets) {
            dnnl_memory_desc d = new dnnl_memory_desc();
            check(dnnl_memory_desc_create_submemory(d, parent, dims, offsets), "memory_desc_create_submemory");
            owned.add(d);
            return d;
        }

        /** A reorder (layout and/or type conversion) from {@code from} to {@code to}, its memories bound. */
        Primitive reorder(dnnl_memory_desc fromDesc, Pointer from, dnnl_memory_desc toDesc, Pointer to, Scratchpad scratch) {
            dnnl_primitive_desc pd = new dnnl_primitive_desc();
            check(dnnl_reorder_primitive_desc_create(pd, fromDesc, engine(), toDesc, engine(), attr(Activation.LINEAR)), "reorder");
            return primitive(pd, scratch, DNNL_ARG_FROM, DNNL_ARG_TO)
                    .arg(DNNL_ARG_FROM, memory(fromDesc, from)).arg(DNNL_ARG_TO, memory(toDesc, to));
        }

        /**
         * A reorder that also rescales: {@code to = from x fromScale / toScale} (oneDNN's quantization model, where a
         * quantized tensor's real value is its scale times its integers), rounded and saturated into an 8-bit type.
         * Plain {@link #reorder} when both scales are 1.
         */
        Primitive reorder(dnnl_memory_desc fromDesc, Pointer from, float fromScale, dnnl_memory_desc toDesc, Pointer to,
                          float toScale, Scratchpad scratch) {
            if (fromScale == toScale) return reorder(fromDesc, from, toDesc, to, scratch);
            dnnl_primitive_attr a = attr(Activation.LINEAR);
            scaled(a, DNNL_ARG_FROM, 0);
            scaled(a, DNNL_ARG_TO, 0);
            dnnl_primitive_desc pd = new dnnl_primitive_desc();
            check(dnnl_reorder_primitive_desc_create(pd, fromDesc, engine(), toDesc, engine(), a), "reorder");
            return primitive(pd, scratch, DNNL_ARG_FROM, DNNL_ARG_TO, DNNL_ARG_ATTR_SCALES | DNNL_ARG_FROM,
                    DNNL_ARG_ATTR_SCALES | DNNL_ARG_TO)
                    .arg(DNNL_ARG_FROM, memory(fromDesc, from)).arg(DNNL_ARG_TO, memory(toDesc, to))
                    .arg(DNNL_ARG_ATTR_SCALES | DNNL_ARG_FROM, scales(fromScale))
                    .arg(DNNL_ARG_ATTR_SCALES | DNNL_ARG_TO, scales(toScale));
        }

        /**
         * {@code to (+)= factor x from}: a reorder (layouts and views may differ) that adds onto what {@code to} holds
         * when {@code add} (oneDNN's sum post-op), else overwrites it. Training moves gradients with it.
         */
        Primitive move(dnnl_memory_desc fromDesc, Pointer from, float factor, dnnl_memory_desc toDesc, Pointer to,
                       boolean add, Scratchpad scratch) {
            dnnl_primitive_attr a = attr(Activation.LINEAR);
            if (add) {
                dnnl_post_ops po = new dnnl_post_ops();
                check(dnnl_post_ops_create(po), "post_ops_create");
                owned.add(po);
                check(dnnl_post_ops_append_sum(po, 1f, 0, dnnl_data_type_undef), "post_ops_append_sum");
                check(dnnl_primitive_attr_set_post_ops(a, po), "set_post_ops");
            }
            if (factor != 1f) scaled(a, DNNL_ARG_FROM, 0);
            dnnl_primitive_desc pd = new dnnl_primitive_desc();
            check(dnnl_reorder_primitive_desc_create(pd, fromDesc, engine(), toDesc, engine(), a), "reorder");
            Primitive p = factor != 1f
                    ? primitive(pd, scratch, DNNL_ARG_FROM, DNNL_ARG_TO, DNNL_ARG_ATTR_SCALES | DNNL_ARG_FROM)
                    : primitive(pd, scratch, DNNL_ARG_FROM, DNNL_ARG_TO);
            p.arg(DNNL_ARG_FROM, memory(fromDesc, from)).arg(DNNL_ARG_TO, memory(toDesc, to));
            if (factor != 1f) p.arg(DNNL_ARG_ATTR_SCALES | DNNL_ARG_FROM, scales(factor));
            return p;
        }

        /**
         * An attribute for training's primitives: scratch memory from the network's Scratchpad, and deterministic
         * (the same sums in the same order every run, as a checkpoint's resume needs).
         */
        dnnl_primitive_attr trainingAttr() {
            dnnl_primitive_attr a = attr(Activation.LINEAR);
            check(dnnl_primitive_attr_set_deterministic(a, 1), "set_deterministic");
            return a;
        }

        /** {@code act} (not LINEAR) applied in place to the FP32 or BF16 tensor {@code desc} at {@code data}. */
        Primitive activation(Activation act, dnnl_memory_desc desc, Pointer data, Scratchpad scratch) {
            dnnl_primitive_desc pd = new dnnl_primitive_desc();
            check(dnnl_eltwise_forward_primitive_desc_create(pd, engine(), dnnl_forward_inference, eltwiseAlgorithm(act),
                    desc, desc, eltwiseAlpha(act), 0f, attr(Activation.LINEAR)), "eltwise " + act);
            dnnl_memory m = memory(desc, data);
            return primitive(pd, scratch, DNNL_ARG_SRC, DNNL_ARG_DST).arg(DNNL_ARG_SRC, m).arg(DNNL_ARG_DST, m);
        }

        /** Tells {@code a} that argument {@code arg} comes with scales at run time (mask 0: one per tensor). */
        void scaled(dnnl_primitive_attr a, int arg, int mask) {
            check(dnnl_primitive_attr_set_scales_mask(a, arg, mask), "set_scales_mask");
        }

        /** A memory of FP32 scales (one, or one per channel) for an argument {@code DNNL_ARG_ATTR_SCALES | arg}. */
        dnnl_memory scales(float... values) {
            Pointer p = bytes(4L * values.length);
            new org.bytedeco.javacpp.FloatPointer(p).put(values);
            return memory(desc(new long[] {values.length}, dnnl_f32, dnnl_x), p);
        }

        dnnl_memory_desc strided(long[] dims, long[] strides) {
            dnnl_memory_desc d = new dnnl_memory_desc();
            check(dnnl_memory_desc_create_with_strides(d, dims.length, dims, dnnl_f32, strides), "memory_desc_strides");
            owned.add(d);
            return d;
        }

        /** From now on {@code o} (a primitive descriptor, ...) is destroyed with these resources. */
        void own(Object o) { owned.add(o); }

        /** {@code bytes} of native memory, 64-byte aligned, freed with these resources. */
        Pointer bytes(long bytes) {
            org.bytedeco.javacpp.BytePointer b = new org.bytedeco.javacpp.BytePointer(bytes + 64);
            if (b.isNull()) throw new OutOfMemoryError("cannot allocate " + bytes + " native bytes");
            owned.add(b);
            long start = b.address() + (64 - b.address() % 64) % 64;
            return new Pointer() {
                {
                    address = start;
                }
            };
        }

        /** A memory over {@code handle} (ours, not oneDNN's); its layout is {@code desc}. */
        dnnl_memory memory(dnnl_memory_desc desc, Pointer handle) {
            dnnl_memory m = new dnnl_memory();
            check(dnnl_memory_create(m, desc, engine(), handle), "memory_create");
            owned.add(m);
            return m;
        }

        dnnl_primitive_attr attr(Activation act) {
            dnnl_primitive_attr a = new dnnl_primitive_attr();
            check(dnnl_primitive_attr_create(a), "attr_create");
            owned.add(a);
            // scratch memory comes from the network's Scratchpad, not from an allocation per execution
            check(dnnl_primitive_attr_set_scratchpad_mode(a, dnnl_scratchpad_mode_user), "set_scratchpad_mode");
            if (act != Activation.LINEAR) {
                dnnl_post_ops po = new dnnl_post_ops();
                check(dnnl_post_ops_create(po), "post_ops_create");
                owned.add(po);
                appendActivation(po, act);
                check(dnnl_primitive_attr_set_post_ops(a, po), "set_post_ops");
            }
            return a;
        }

        /** The primitive of {@code pd} (built with an {@link #attr}), its scratchpad bound to {@code scratch}. */
        Primitive primitive(dnnl_primitive_desc pd, Scratchpad scratch, int... argKinds) {
            owned.add(pd);
            dnnl_primitive p = new dnnl_primitive();
            check(dnnl_primitive_create(p, pd), "primitive_create");
            owned.add(p);
            dnnl_memory scratchMemory = scratch.bind(dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0));
            Primitive prim = new Primitive(pd, p, argKinds.length + (scratchMemory != null ? 1 : 0));
            owned.add(prim.args);
            if (scratchMemory != null) prim.arg(DNNL_ARG_SCRATCHPAD, scratchMemory);
            return prim;
        }

        @Override
        public void close() {
            for (int i = owned.size() - 1; i >= 0; i--) {
                Object o = owned.get(i);
                if (o instanceof dnnl_primitive p) dnnl_primitive_destroy(p);
                else if (o instanceof dnnl_primitive_desc pd) dnnl_primitive_desc_destroy(pd);
                else if (o instanceof dnnl_memory m) dnnl_memory_destroy(m);
                else if (o instanceof dnnl_memory_desc d) dnnl_memory_desc_destroy(d);
                else if (o instanceof dnnl_post_ops po) dnnl_post_ops_destroy(po);
                else if (o instanceof dnnl_primitive_attr a) dnnl_primitive_attr_destroy(a);
                else if (o instanceof dnnl_stream s) dnnl_stream_destroy(s);
                else if (o instanceof Pointer ptr) ptr.close();
            }
            owned.clear();
        }
    }

    /** oneDNN's name for the implementation {@code pd} stands on, e.g. "brg_conv_fwd:avx512_core". */
    static String implementation(dnnl_primitive_desc pd) {
        try (org.bytedeco.javacpp.PointerPointer<org.bytedeco.javacpp.BytePointer> out = new org.bytedeco.javacpp.PointerPointer<>(1)) {
            check(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, out), "query impl_info_str");
            return out.getString(0);
        }
    }

    /** "direct" or "winograd" for a {@code dnnl_convolution_*} algorithm. */
    static String algorithmName(int algorithm) {
        if (algorithm == dnnl_convolution_direct) return "direct";
        if (algorithm == dnnl_convolution_winograd) return "winograd";
        if (algorithm == dnnl_convolution_auto) return "auto";
        return "algorithm " + algorithm;
    }

    /** Darknet activations as oneDNN eltwise post-ops (leaky = relu with slope 0.1, swish with alpha 1). */
    static void appendActivation(dnnl_post_ops po, Activation act) {
        if (act == Activation.LINEAR) return;
        check(dnnl_post_ops_append_eltwise(po, eltwiseAlgorithm(act), eltwiseAlpha(act), 0f), act.name().toLowerCase(java.util.Locale.ROOT));
    }

    /** oneDNN's eltwise algorithm for a Darknet activation other than LINEAR. */
    static int eltwiseAlgorithm(Activation act) {
        return switch (act) {
            case LINEAR -> throw new IllegalArgumentException("linear has no eltwise algorithm");
            case LEAKY, RELU -> dnnl_eltwise_relu;
            case LOGISTIC -> dnnl_eltwise_logistic;
            case MISH -> dnnl_eltwise_mish;
            case SWISH -> dnnl_eltwise_swish;
        };
    }

    /** The alpha of {@link #eltwiseAlgorithm}: relu's negative slope, swish's beta. */
    static float eltwiseAlpha(Activation act) {
        return switch (act) {
            case LEAKY -> 0.1f;
            case SWISH -> 1f;
            default -> 0f;
        };
    }

    /** Something that runs on a stream: a oneDNN primitive, or our own convolution made of several. */
    interface Executable {
        void execute(dnnl_stream stream);
    }

    /** A created primitive with its argument list; {@link #execute} allocates nothing. */
    static final class Primitive implements Executable {
        final dnnl_primitive_desc pd;
        final dnnl_primitive primitive;
        final dnnl_exec_arg_t args;
        private final int count;
        private int filled;

        Primitive(dnnl_primitive_desc pd, dnnl_primitive primitive, int count) {
            this.pd = pd;
            this.primitive = primitive;
            this.count = count;
            this.args = new dnnl_exec_arg_t(count);
        }

        Primitive arg(int kind, dnnl_memory memory) {
            args.position(filled).arg(kind).memory(memory);
            filled++;
            args.position(0);
            return this;
        }

        @Override
        public void execute(dnnl_stream stream) {
            if (filled != count) throw new IllegalStateException(filled + " of " + count + " arguments set");
            int status = dnnl_primitive_execute(primitive, stream, count, args);
            if (status != dnnl_success) check(status, "execute of " + Dnnl.implementation(pd));
        }

        /** The implementation this primitive runs, as oneDNN names it. */
        String implementation() {
            dnnl_primitive_desc own = new dnnl_primitive_desc();   // owned by the primitive: not destroyed here
            check(dnnl_primitive_get_primitive_desc(primitive, own), "primitive_get_primitive_desc");
            return Dnnl.implementation(own);
        }

        dnnl_memory_desc query(int what) {
            return dnnl_primitive_desc_query_md(pd, what, 0);
        }
    }
}
