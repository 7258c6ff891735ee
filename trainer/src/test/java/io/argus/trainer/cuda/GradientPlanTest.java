package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.RouteSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.testkit.Budget;
import io.argus.trainer.ProjectFiles;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How the GPU network lays out its feature-map gradients (host-side, no GPU): tensors live at the same time in the
 * backward pass never share bytes, each is cleared before its first write and after the last read of whatever held
 * its bytes before, no clear touches a live tensor, and the arena is far below the whole-network sum. Checked on the
 * shipped cfgs and on the GPU tests' small networks, by a byte-level simulation of the backward pass whose reads and
 * writes are derived from the cfg here, not by the plan.
 */
@Budget(seconds = 20)
class GradientPlanTest {
    static final double MIB = 1 << 20;

    static NetworkSpec cfg(String name, int size) {
        return NetworkSpec.load(ProjectFiles.home().resolve("config/models/cfg/" + name + ".cfg"), size, size);
    }

    static List<NetworkSpec> specs() {
        List<NetworkSpec> out = new ArrayList<>();
        for (String n : new String[] {"yolov4-tiny", "yolov3-tiny", "yolov4", "yolov4-tiny-3l", "yolov3"}) {
            out.add(cfg(n, 416));
        }
        out.add(GpuTests.spec("conv", GpuLayerGradientTest.CONV));
        out.add(GpuTests.spec("pool-route", GpuLayerGradientTest.POOL_ROUTE));
        out.add(GpuTests.spec("shortcut-upsample", GpuLayerGradientTest.SHORTCUT_UPSAMPLE));
        return out;
    }

    @Test
    void yolov4TinyAt416Batch64InFp16() {
        NetworkSpec spec = cfg("yolov4-tiny", 416);
        GradientPlan plan = GradientPlan.of(spec, 64, 2, false, false);
        GradientPlan whole = GradientPlan.of(spec, 64, 2, false, true);
        System.out.printf(Locale.ROOT, "yolov4-tiny 416 b64 fp16 gradients: whole network %.1f MiB, planned %.1f MiB "
                        + "(most live at one step %.1f MiB); forward-only outputs moved from the feature maps %.1f MiB%n",
                plan.wholeNetworkBytes() / MIB, plan.bytes() / MIB, plan.liveBound() / MIB,
                plan.forwardOnlyBytes() / MIB);
        // the old layout: what argus bench train reported as "feature-map gradients" on the H100
        assertEquals(1407.5, whole.bytes() / MIB, 0.05);
        assertEquals(whole.bytes(), plan.wholeNetworkBytes());
        assertTrue(plan.bytes() <= 0.3 * plan.wholeNetworkBytes(), plan.bytes() / MIB + " MiB");
        assertTrue(plan.bytes() >= plan.liveBound());
        // the same bytes are cleared per pass as before (each tensor once), in a few dozen memsets instead of one
        long cleared = 0;
        int memsets = 0;
        for (int step = 0; step < plan.steps(); step++) {
            for (long[] r : plan.clears(step)) {
                cleared += r[1];
                memsets++;
            }
        }
        System.out.printf(Locale.ROOT, "  cleared per pass %.1f MiB in %d memsets%n", cleared / MIB, memsets);
        assertTrue(cleared >= plan.wholeNetworkBytes() && cleared <= plan.wholeNetworkBytes() + 256L * memsets);
    }

    @Test
    void otherNetworks() {
        for (NetworkSpec spec : specs()) {
            for (int bytes : new int[] {2, 4}) {
                GradientPlan plan = GradientPlan.of(spec, 64, bytes, false, false);
                System.out.printf(Locale.ROOT, "%-22s b64 %s gradients: whole network %8.1f MiB, planned %8.1f MiB, "
                                + "most live at one step %8.1f MiB, forward-only outputs %7.1f MiB%n",
                        spec.file().getFileName(), bytes == 2 ? "fp16" : "fp32", plan.wholeNetworkBytes() / MIB,
                        plan.bytes() / MIB, plan.liveBound() / MIB, plan.forwardOnlyBytes() / MIB);
                assertTrue(plan.bytes() >= plan.liveBound());
                assertTrue(plan.bytes() <= plan.wholeNetworkBytes() + 256L * spec.layers().size());
            }
        }
    }

    @ParameterizedTest(name = "overwrite {0}")
    @ValueSource(booleans = {false, true})
    void liveTensorsNeverShareBytes(boolean overwrite) {
        for (NetworkSpec spec : specs()) {
            for (int batch : new int[] {1, 64}) {
                GradientPlan plan = GradientPlan.of(spec, batch, 2, overwrite, false);
                int count = spec.layers().size();
                int[][] interval = intervals(spec);
                for (int a = 0; a < count; a++) {
                    if (plan.size(a) == 0) continue;
                    assertEquals(interval[a][0], plan.firstWrite(a), spec.file() + " layer " + a + " first write");
                    assertEquals(interval[a][1], plan.lastRead(a), spec.file() + " layer " + a + " last read");
                    assertEquals(0, plan.offset(a) % GradientPlan.ALIGNMENT);
                    assertTrue(plan.offset(a) + plan.size(a) <= plan.bytes());
                    for (int b = a + 1; b < count; b++) {
                        if (plan.size(b) == 0) continue;
                        boolean together = interval[a][0] <= interval[b][1] && interval[b][0] <= interval[a][1];
                        boolean share = plan.offset(a) < plan.offset(b) + plan.size(b)
                                && plan.offset(b) < plan.offset(a) + plan.size(a);
                        if (together && share) {
                            fail(spec.file() + " b" + batch + ": layers " + a + " " + Arrays.toString(interval[a])
                                    + " and " + b + " " + Arrays.toString(interval[b]) + " live together, share bytes");
                        }
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "overwrite {0}")
    @ValueSource(booleans = {false, true})
    void aSimulatedBackwardReadsOnlyWhatItWroteOnZeros(boolean overwrite) {
        for (NetworkSpec spec : specs()) {
            simulate(spec, GradientPlan.of(spec, 1, 2, overwrite, false), spec.file() + " b1 fp16");
            simulate(spec, GradientPlan.of(spec, 2, 4, overwrite, false), spec.file() + " b2 fp32");
            simulate(spec, GradientPlan.of(spec, 2, 2, overwrite, true), spec.file() + " b2 fp16 keepAll");
        }
    }

    /** With keepAll: the whole-network layout (layer order, packed), one clear before the pass, all readable after. */
    @Test
    void keepAllIsTheWholeNetworkLayout() {
        NetworkSpec spec = GpuTests.spec("pool-route", GpuLayerGradientTest.POOL_ROUTE);
        GradientPlan plan = GradientPlan.of(spec, 4, 2, false, true);
        long at = 0;
        for (LayerSpec l : spec.layers()) {
            if (!GradientPlan.hasTensor(l)) continue;
            assertEquals(at, plan.offset(l.index()));
            at += GradientPlan.packedBytes(l.output(), 4, 2);
            assertTrue(plan.keptAfterPass(l.index()));
        }
        assertEquals(at, plan.bytes());
        assertEquals(1, plan.clears(0).size());
        assertArrayEquals(new long[] {0, at}, plan.clears(0).get(0));
        for (int s = 1; s < plan.steps(); s++) assertTrue(plan.clears(s).isEmpty());
    }

    /** Beta 0 for a convolution exactly where the network chose it before the plan existed. */
    @Test
    void soleWritersAsBefore() {
        for (NetworkSpec spec : specs()) {
            int[] writers = GpuTrainNetwork.gradientWriters(spec);
            for (boolean overwrite : new boolean[] {false, true}) {
                GradientPlan plan = GradientPlan.of(spec, 1, 2, overwrite, false);
                for (LayerSpec l : spec.layers()) {
                    int i = l.index();
                    boolean old = l instanceof ConvolutionalSpec && overwrite && i > 0
                            && writers[GpuTrainNetwork.owner(spec, i - 1)] == 1;
                    assertEquals(old, plan.soleWriter(i), spec.file() + " layer " + i);
                }
            }
        }
    }

    /** Which gradients GpuLayerGradientTest can read after a pass (batch 4) in each precision. */
    @Test
    void gradientsKeptInTheGpuTestNetworks() {
        for (NetworkSpec spec : specs().subList(5, 8)) {
            for (int bytes : new int[] {2, 4}) {
                GradientPlan plan = GradientPlan.of(spec, 4, bytes, false, false);
                StringBuilder kept = new StringBuilder();
                int tensors = 0, readable = 0;
                for (LayerSpec l : spec.layers()) {
                    if (!GradientPlan.hasTensor(l)) continue;
                    tensors++;
                    if (plan.keptAfterPass(l.index())) {
                        readable++;
                        kept.append(' ').append(l.index());
                    }
                }
                System.out.printf(Locale.ROOT, "%s b4 %d-byte: %d of %d gradients readable after a pass:%s%n",
                        spec.file(), bytes, readable, tensors, kept);
                assertTrue(readable >= 1);
            }
        }
    }

    @Test
    void theHeadGradientOfASmallNetworkIsOverwrittenUnlessKept() {
        NetworkSpec spec = GpuTests.spec("conv", GpuLayerGradientTest.CONV);
        GradientPlan plan = GradientPlan.of(spec, 4, 2, false, false);
        // layer 5 (the head, written by the loss) ends at its own backward; layer 3's gradient starts after it
        assertFalse(plan.keptAfterPass(5));
        assertTrue(plan.keptAfterPass(0), "layer 0's gradient is the last one written");
        assertTrue(GradientPlan.of(spec, 4, 2, false, true).keptAfterPass(5));
    }

    /**
     * Per layer with a tensor of its own: {step of the first write, step of the last read}, from the cfg: the losses
     * are step 0, layer i's backward step count - i; a consumer writes the gradient of each input's owner (an alias
     * route stands for its source); a tensor nobody writes is live at its own backward only.
     */
    static int[][] intervals(NetworkSpec spec) {
        int count = spec.layers().size();
        int[][] out = new int[count][];
        for (LayerSpec l : spec.layers()) {
            if (!GradientPlan.hasTensor(l)) continue;
            out[l.index()] = new int[] {count - l.index(), count - l.index()};
        }
        for (LayerSpec l : spec.layers()) {
            if (l instanceof RouteSpec r && GpuTrainNetwork.isAlias(r)) continue;
            int step = l instanceof YoloSpec ? 0 : count - l.index();
            for (int in : l.inputs()) {
                if (in < 0) continue;
                int o = in;
                while (spec.layers().get(o) instanceof RouteSpec r && GpuTrainNetwork.isAlias(r)) o = r.layers()[0];
                out[o][0] = Math.min(out[o][0], step);
            }
        }
        return out;
    }

    /**
     * Every 16 bytes of the arena (sizes are multiples of 8 channels of at least 2 bytes, offsets of 256) carry the
     * layer whose gradient they hold, ZERO once cleared, FREE before. Step by step: the plan's clears may only hit
     * tensors read for the last time at an earlier step; the layer's backward must find its own gradient intact (its
     * writers' sums, or zeros where nobody writes it); then every write (each consumer into each input's owner, the
     * losses at step 0) must find its bytes ZERO (the first write) or its own (later writes).
     */
    static void simulate(NetworkSpec spec, GradientPlan plan, String what) {
        final int free = -2, zero = -1;
        final int cell = 16;
        int count = spec.layers().size();
        int[][] interval = intervals(spec);
        assertEquals(0, plan.bytes() % cell);
        int[] holder = new int[Math.toIntExact(plan.bytes() / cell)];
        Arrays.fill(holder, free);
        List<List<Integer>> writes = new ArrayList<>();   // per step, the owners written
        for (int s = 0; s <= count; s++) writes.add(new ArrayList<>());
        for (LayerSpec l : spec.layers()) {
            if (l instanceof RouteSpec r && GpuTrainNetwork.isAlias(r)) continue;
            int step = l instanceof YoloSpec ? 0 : count - l.index();
            for (int in : l.inputs()) {
                if (in < 0) continue;
                int o = in;
                while (spec.layers().get(o) instanceof RouteSpec r && GpuTrainNetwork.isAlias(r)) o = r.layers()[0];
                writes.get(step).add(o);
            }
        }
        // the forward pass: forward-only outputs (tagged OUTPUT + layer) written by their layer, read by consumers
        final int output = 1 << 20;
        for (LayerSpec l : spec.layers()) {
            int i = l.index();
            if (l instanceof RouteSpec r && GpuTrainNetwork.isAlias(r) || l instanceof YoloSpec) continue;
            for (int in : l.inputs()) {
                if (in < 0) continue;
                int o = GpuTrainNetwork.owner(spec, in);
                if (!plan.forwardOnly(o)) continue;
                for (long c = plan.outputOffset(o) / cell; c < (plan.outputOffset(o) + plan.outputSize(o)) / cell; c++) {
                    if (holder[(int) c] != output + o) {
                        fail(what + ": forward " + i + " reads layer " + o + "'s output, byte " + c * cell
                                + " held by " + holder[(int) c]);
                    }
                }
            }
            if (plan.forwardOnly(i)) {
                assertEquals(0, plan.outputOffset(i) % GradientPlan.ALIGNMENT);
                for (long c = plan.outputOffset(i) / cell; c < (plan.outputOffset(i) + plan.outputSize(i)) / cell; c++) {
                    int h = holder[(int) c];
                    if (h >= output && plan.lastUse(h - output) >= i) {
                        fail(what + ": forward " + i + " writes its output over layer " + (h - output) + "'s, read "
                                + "until forward " + plan.lastUse(h - output));
                    }
                    holder[(int) c] = output + i;
                }
            }
        }
        int[] outputHolder = holder.clone();
        for (int s = 0; s <= count; s++) {
            for (long[] r : plan.clears(s)) {
                assertEquals(0, r[0] % cell);
                assertEquals(0, r[1] % cell);
                for (long c = r[0] / cell; c < (r[0] + r[1]) / cell; c++) {
                    int h = holder[(int) c];
                    if (h >= 0 && h < output && interval[h][1] >= s) {   // outputs: dead after the forward
                        fail(what + ": step " + s + " clears byte " + c * cell + " of layer " + h + ", live "
                                + Arrays.toString(interval[h]));
                    }
                    holder[(int) c] = zero;
                }
            }
            int layer = count - s;
            if (s > 0 && plan.size(layer) > 0) {
                int expected = interval[layer][0] < s ? layer : zero;
                for (long c = plan.offset(layer) / cell; c < (plan.offset(layer) + plan.size(layer)) / cell; c++) {
                    if (holder[(int) c] != expected) {
                        fail(what + ": step " + s + " reads layer " + layer + "'s gradient, byte " + c * cell
                                + " held by " + holder[(int) c]);
                    }
                }
            }
            for (int o : writes.get(s)) {
                boolean firstWrite = interval[o][0] == s;
                for (long c = plan.offset(o) / cell; c < (plan.offset(o) + plan.size(o)) / cell; c++) {
                    int h = holder[(int) c];
                    if (firstWrite ? h != zero && h != o : h != o) {
                        fail(what + ": step " + s + " writes layer " + o + "'s gradient at byte " + c * cell
                                + ", held by " + (h == zero ? "zero" : h == free ? "nobody (never cleared)"
                                : "layer " + h));
                    }
                    holder[(int) c] = o;
                }
            }
        }
        for (int i = 0; i < count; i++) {
            if (plan.size(i) == 0) continue;
            boolean kept = true;
            for (long c = plan.offset(i) / cell; c < (plan.offset(i) + plan.size(i)) / cell; c++) {
                kept &= holder[(int) c] == i || holder[(int) c] == zero && interval[i][0] == interval[i][1];
            }
            assertEquals(kept, plan.keptAfterPass(i), what + ": layer " + i + " kept after the pass");
        }
        for (int i = 0; i < count; i++) {
            if (!plan.forwardOnly(i)) continue;
            boolean kept = true;
            for (long c = plan.outputOffset(i) / cell; c < (plan.outputOffset(i) + plan.outputSize(i)) / cell; c++) {
                kept &= holder[(int) c] == output + i;
            }
            assertEquals(kept, plan.outputKeptAfterPass(i), what + ": layer " + i + "'s output kept after the pass");
        }
        assertTrue(outputHolder.length == holder.length);
    }

    /**
     * Forward-only outputs are exactly those of layers with a tensor whose every consumer (through alias routes) is a
     * [route] or an [upsample]: their backward reads gradients only.
     */
    @Test
    void forwardOnlyOutputsAreReadByNoBackward() {
        for (NetworkSpec spec : specs()) {
            GradientPlan plan = GradientPlan.of(spec, 2, 2, false, false);
            GradientPlan keep = GradientPlan.of(spec, 2, 2, false, true);
            int count = spec.layers().size();
            boolean[] readByBackward = new boolean[count];
            for (LayerSpec l : spec.layers()) {
                if (l instanceof RouteSpec r && GpuTrainNetwork.isAlias(r)) continue;
                boolean gradientsOnly = l instanceof RouteSpec || l instanceof io.argus.detector.darknet.UpsampleSpec;
                for (int in : l.inputs()) {
                    if (in >= 0 && !gradientsOnly) readByBackward[GpuTrainNetwork.owner(spec, in)] = true;
                }
            }
            for (LayerSpec l : spec.layers()) {
                int i = l.index();
                boolean expected = GradientPlan.hasTensor(l) && !readByBackward[i];
                assertEquals(expected, plan.forwardOnly(i), spec.file() + " layer " + i + " " + l.kind());
                assertFalse(keep.forwardOnly(i));
                assertTrue(keep.outputKeptAfterPass(i));
                if (expected) {
                    assertEquals(GradientPlan.packedBytes(l.output(), 2, 2), plan.outputSize(i));
                    assertTrue(plan.outputOffset(i) + plan.outputSize(i) <= plan.bytes());
                }
                for (int j = i + 1; j < count; j++) {
                    if (!plan.forwardOnly(i) || !plan.forwardOnly(j)) continue;
                    boolean together = i <= plan.lastUse(j) && j <= plan.lastUse(i);
                    boolean share = plan.outputOffset(i) < plan.outputOffset(j) + plan.outputSize(j)
                            && plan.outputOffset(j) < plan.outputOffset(i) + plan.outputSize(i);
                    assertFalse(together && share, spec.file() + " outputs " + i + " and " + j);
                }
            }
        }
    }
}
