package io.argus.gpu.cudnn;

import static org.bytedeco.cuda.global.cudnn.*;

import io.argus.gpu.CudaException;
import io.argus.gpu.CudaLog;
import io.argus.gpu.CudnnDescriptor;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuDevice;
import io.argus.gpu.GpuStream;
import io.argus.gpu.Workspace;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.bytedeco.cuda.cudnn.cudnnContext;

/**
 * The one cuDNN convolution planner of a device, for inference and training alike: forward (with a fused
 * epilogue), backward data and backward filter, FP16 or FP32, through cuDNN's graph (backend) API. A plan is looked
 * up in this device's plans (two networks of one shape share it), else rebuilt from the disk cache (no timing), else
 * searched: cuDNN's heuristics (mode A, then the fallback list) propose configurations, those the {@link
 * EngineFilter} allows that finalize within the workspace limit are timed on the caller's real buffers, and the
 * fastest is kept here and on disk. The workspace grows only to what the timed candidates need.
 *
 * <p>Planning belongs at start (or at a model swap), never in the hot path: callers plan every batch size they
 * will run before serving. One instance per device ({@link #of}), beside its {@link DeviceContext}.
 */
public final class ConvolutionPlanner {
    private static final int MAX_HEURISTIC_RESULTS = 64;

    /** How many problems were answered from memory, from the disk cache, and searched (with candidates timed). */
    public record Counts(int fromMemory, int fromDisk, int searched, int timedCandidates) {
        public Counts minus(Counts before) {
            return new Counts(fromMemory - before.fromMemory, fromDisk - before.fromDisk, searched - before.searched,
                    timedCandidates - before.timedCandidates);
        }

        public String describe() {
            return fromDisk + " from the plan cache, " + searched + " searched (" + timedCandidates
                    + " candidates timed), " + fromMemory + " already planned on this device";
        }
    }

    /** Each device context's planner: contexts live as long as the process, so do their planners. */
    private static final Map<DeviceContext, ConvolutionPlanner> PLANNERS = new ConcurrentHashMap<>();

    private final GpuDevice device;
    private final Map<String, ConvolutionPlan> plans = new HashMap<>();
    private final Map<Path, PlanCache> disks = new HashMap<>();
    private DeviceIdentity identity;
    private final AtomicInteger fromMemory = new AtomicInteger();
    private final AtomicInteger fromDisk = new AtomicInteger();
    private final AtomicInteger searched = new AtomicInteger();
    private final AtomicInteger timed = new AtomicInteger();

    private ConvolutionPlanner(GpuDevice device) {
        this.device = device;
    }

    /**
     * The planner of the context's device, made on first use and kept as long as the context (the process): so a
     * second network on the device reuses the same algorithms and gives identical results.
     */
    public static ConvolutionPlanner of(DeviceContext ctx) {
        return PLANNERS.computeIfAbsent(ctx, c -> new ConvolutionPlanner(c.device()));
    }

    public Counts counts() {
        return new Counts(fromMemory.get(), fromDisk.get(), searched.get(), timed.get());
    }

    /** Forgets this device's plans in memory (the disk cache stays): a later plan call rebuilds or searches. */
    public synchronized void forgetPlans() {
        plans.clear();   // not closed: a network may still execute them
    }

    /**
     * The plan for {@code problem}, or null when cuDNN has no engine for it that the numerics allow within the
     * limit (the caller tries a less fused form). {@code operands} are the real buffers (written while timing);
     * {@code workspace} grows to what candidates need and is left at least as large as the plan's need. Work is
     * enqueued through {@code handle}, which must be set to {@code stream}.
     */
    public synchronized ConvolutionPlan plan(ConvolutionProblem problem, Operands operands, Workspace workspace,
                                             GpuStream stream, cudnnContext handle, PlanSettings settings) {
        String key = problem.key();
        PlanCache disk = settings.cacheDirectory() == null ? null : disk(settings.cacheDirectory());
        ConvolutionPlan known = plans.get(key);
        if (known != null) {
            fromMemory.incrementAndGet();
            if (disk != null && !disk.contains(key)) disk.store(key, known.entry(), known.describe());
            workspace.ensure(known.workspaceBytes());
            return known;
        }
        try (ConvolutionGraph graph = new ConvolutionGraph(handle, problem)) {
            if (graph.graph() == null) {
                if (CudaLog.verbose()) CudaLog.info("cuDNN rejects the graph " + key + ": " + graph.problem());
                return null;
            }
            ConvolutionPlan p = disk == null ? null : rebuild(graph, problem, disk.load(key), operands, workspace,
                    stream, handle, settings);
            if (p != null) {
                fromDisk.incrementAndGet();
            } else {
                p = search(graph, problem, operands, workspace, stream, handle, settings);
                if (p == null) return null;
                searched.incrementAndGet();
                if (disk != null) disk.store(key, p.entry(), p.describe());
            }
            plans.put(key, p);
            workspace.ensure(p.workspaceBytes());
            return p;
        }
    }

    private PlanCache disk(Path dir) {
        if (identity == null) identity = DeviceIdentity.of(device);
        return disks.computeIfAbsent(dir, d -> new PlanCache(d, identity));
    }

    /** The stored configuration rebuilt on this graph and run once, or null (logged) when it no longer works. */
    private ConvolutionPlan rebuild(ConvolutionGraph graph, ConvolutionProblem problem, PlanCache.Entry entry,
                                    Operands operands, Workspace workspace, GpuStream stream, cudnnContext handle,
                                    PlanSettings settings) {
        if (entry == null) return null;
        EngineConfig stored = entry.config();
        CudnnDescriptor plan = null;
        try {
            CudnnDescriptor engine = stored.engineFor(graph);
            String name = EngineFilter.describe(stored.engine(), notes(engine), problem.numerics());
            if (name == null) throw new CudaException("the numerics do not allow engine " + stored.engine());
            CudnnDescriptor config = stored.build(graph, engine);
            plan = executionPlan(handle, config);
            if (plan == null) throw new CudaException("engine " + stored.text() + " does not finalize");
            long ws = plan.getInt64(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, "workspace size");
            if (ws > settings.workspaceLimit()) throw new CudaException("needs more workspace than the limit");
            // the same engine and knobs need the same workspace; a difference means cuDNN built another kernel
            if (ws != entry.workspaceBytes()) {
                throw new CudaException("rebuilt it needs " + ws + " bytes of workspace, chosen it needed "
                        + entry.workspaceBytes() + ": not the configuration that was timed");
            }
            ConvolutionPlan p = new ConvolutionPlan(plan, ws, stored, name, Float.NaN, 0, ConvolutionPlan.Origin.DISK);
            workspace.ensure(ws);
            run(p, operands, workspace, stream, handle);   // proves it launches; no timing
            return p;
        } catch (CudaException e) {
            if (plan != null) plan.close();
            CudaLog.info("plan cache: entry for " + problem.key() + " not used: " + e.getMessage());
            return null;
        }
    }

    private static void run(ConvolutionPlan p, Operands operands, Workspace workspace, GpuStream stream,
                            cudnnContext handle) {
        try (CudnnDescriptor pack = operands.pack(workspace.address())) {
            p.execute(handle, pack);
            stream.synchronize();
        }
    }

    private static final class Candidate {
        final ConvolutionPlan plan;
        float ms;

        Candidate(ConvolutionPlan plan) {
            this.plan = plan;
        }
    }

    private ConvolutionPlan search(ConvolutionGraph graph, ConvolutionProblem problem, Operands operands,
                                   Workspace workspace, GpuStream stream, cudnnContext handle, PlanSettings settings) {
        List<Candidate> found = candidates(graph, problem, handle, settings);
        Candidate best = null;
        boolean timing = settings.candidates() > 1;
        try {
            for (Candidate c : found) {
                try {
                    workspace.ensure(c.plan.workspaceBytes());
                    try (CudnnDescriptor pack = operands.pack(workspace.address())) {
                        c.ms = timing ? time(c.plan, pack, stream, handle) : 0f;
                        if (!timing) {
                            c.plan.execute(handle, pack);   // the heuristic's choice: proven once, not timed
                            stream.synchronize();
                        }
                    }
                    if (timing) timed.incrementAndGet();
                } catch (CudaException e) {
                    c.ms = Float.POSITIVE_INFINITY;
                    if (CudaLog.verbose()) CudaLog.info("candidate " + c.plan.describe() + " failed: " + e.getMessage());
                }
                if (best == null || c.ms < best.ms) best = c;
                if (!timing && c.ms == 0f) break;
            }
            if (best != null && best.ms == Float.POSITIVE_INFINITY) best = null;   // every candidate failed
            if (best == null) return null;
            ConvolutionPlan b = best.plan;
            return new ConvolutionPlan(planOf(b), b.workspaceBytes(), b.config(), engineName(b),
                    timing ? best.ms : Float.NaN, found.size(),
                    timing ? ConvolutionPlan.Origin.TIMED : ConvolutionPlan.Origin.HEURISTIC);
        } finally {
            for (Candidate c : found) if (best == null || c != best) c.plan.close();
        }
    }

    /** Device time of one execution: once to warm up (and catch failures), then the mean of three. */
    private static float time(ConvolutionPlan p, CudnnDescriptor pack, GpuStream stream, cudnnContext handle) {
        p.execute(handle, pack);
        stream.synchronize();
        int runs = 3;
        return stream.time(() -> {
            for (int i = 0; i < runs; i++) p.execute(handle, pack);
        }) / runs;
    }

    /**
     * Finalized plans for the configurations the heuristics propose (mode A, then the fallback list while fewer than
     * wanted and the settings ask for a wide search, or mode A gave none), in their order, that the filter allows and that
     * fit the workspace limit.
     */
    private List<Candidate> candidates(ConvolutionGraph graph, ConvolutionProblem problem, cudnnContext handle,
                                       PlanSettings settings) {
        List<Candidate> out = new ArrayList<>();
        for (int mode : new int[] {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
            CudnnDescriptor heur = graph.own(new CudnnDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, "heuristics"));
            heur.descriptors(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, "operation graph", graph.graph())
                    .enumeration(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, "mode", mode);
            if (heur.tryFinish() != 0) continue;
            int count = (int) Math.min(MAX_HEURISTIC_RESULTS, CudnnDescriptor.count(heur,
                    CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR));
            if (count == 0) continue;
            CudnnDescriptor[] configs = new CudnnDescriptor[count];
            for (int i = 0; i < count; i++) {
                configs[i] = graph.own(new CudnnDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, "engine config"));
            }
            int got = CudnnDescriptor.getDescriptors(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, configs);
            for (int i = 0; i < got && out.size() < settings.candidates(); i++) {
                Candidate c = candidate(graph, problem, configs[i], handle, settings);
                if (c != null && out.stream().noneMatch(o -> o.plan.config().equals(c.plan.config()))) out.add(c);
                else if (c != null) c.plan.close();
            }
            if (out.size() >= settings.candidates() || !(settings.wideSearch() || out.isEmpty())) break;
        }
        if (settings.wideSearch() && (out.size() < 2 || !problem.numerics().tensorCores())) {
            everyEngine(graph, problem, handle, settings, out);
        }
        return out;
    }

    /**
     * Adds every engine of the graph that neither heuristic proposed, by global index with its default knobs, that
     * the filter allows and that finalizes within the limit, up to {@link #MAX_HEURISTIC_RESULTS} candidates in all.
     * The heuristics propose few IEEE FP32 (CUDA-core) engines in NHWC: timing every engine took yolov4-tiny's FP32
     * training at batch 64 on the H200 from 1,339 to 1,452 img/s (its second 3x3 layer's forward, for one, 1.50 ms on
     * the heuristics' best, 1.09 ms on an FFT engine they had not proposed). Only for a wide search (training), for
     * IEEE FP32 or where the heuristics left fewer than two candidates; engines compiled at run time only where the
     * others leave fewer than two ({@link #compiledAtRunTime}).
     */
    private void everyEngine(ConvolutionGraph graph, ConvolutionProblem problem, cudnnContext handle,
                             PlanSettings settings, List<Candidate> out) {
        long count;
        try {
            count = graph.graph().getInt64(CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, "engine global count");
        } catch (CudaException e) {
            return;
        }
        List<Long> compiled = new ArrayList<>();
        for (long index = 0; index < count && out.size() < MAX_HEURISTIC_RESULTS; index++) {
            if (!addEngine(graph, problem, handle, settings, out, index, false)) compiled.add(index);
        }
        // no choice left among the precompiled engines: then the compiled ones, for this problem only (yolov4-tiny's
        // FP32 NHWC backward data of its 3x3 stride-2 layer had only the generic engine 0 without them, and its FP32
        // training at batch 64 ran at 661 img/s instead of 1,447 with the compiled engine 84 on the H200)
        for (int i = 0; i < compiled.size() && out.size() < 2; i++) {
            addEngine(graph, problem, handle, settings, out, compiled.get(i), true);
        }
    }

    /**
     * Adds engine {@code index} with its default knobs as a candidate unless already there, unsupported or over the
     * limit. Returns false only when it was left out for being compiled at run time and {@code compiled} is false.
     */
    private boolean addEngine(ConvolutionGraph graph, ConvolutionProblem problem, cudnnContext handle,
                              PlanSettings settings, List<Candidate> out, long index, boolean compiled) {
        if (out.stream().anyMatch(o -> o.plan.config().engine() == index)) return true;
        CudnnDescriptor config;
        try {
            EngineConfig defaults = new EngineConfig(index, java.util.Map.of());
            CudnnDescriptor engine = defaults.engineFor(graph);
            if (!compiled && compiledAtRunTime(engine)) return false;
            config = defaults.build(graph, engine);
        } catch (CudaException e) {
            return true;   // the engine does not support this graph
        }
        Candidate c = candidate(graph, problem, config, handle, settings);
        if (c != null) out.add(c);
        return true;
    }

    /**
     * Whether finalizing the engine compiles its kernel (NVRTC). The every-engine search leaves those out while
     * others give it a choice: compiling a kernel for each of them made the trainer's GPU tests several times slower,
     * and one such compile crashed the JVM inside NVRTC (SIGSEGV under nvrtcCompileProgram, from ExecutionPlan
     * finalize, planning an FP32 layer). The heuristics' own proposals, compiled or not, are still tried.
     */
    private static boolean compiledAtRunTime(CudnnDescriptor engine) {
        for (int note : engine.getEnums(CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE, 8)) {
            if (note == CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION) return true;
        }
        return false;
    }

    private Candidate candidate(ConvolutionGraph graph, ConvolutionProblem problem, CudnnDescriptor config,
                                cudnnContext handle, PlanSettings settings) {
        String name;
        try {
            CudnnDescriptor engine = graph.own(new CudnnDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, "engine"));
            if (CudnnDescriptor.getDescriptors(config, CUDNN_ATTR_ENGINECFG_ENGINE, new CudnnDescriptor[] {engine})
                    != 1) {
                return null;
            }
            long index = engine.getInt64(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, "global index");
            name = EngineFilter.describe(index, notes(engine), problem.numerics());
        } catch (CudaException e) {
            return null;
        }
        if (name == null) return null;
        CudnnDescriptor plan = executionPlan(handle, config);
        if (plan == null) return null;
        long ws = plan.getInt64(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, "workspace size");
        if (ws > settings.workspaceLimit()) {
            plan.close();
            return null;
        }
        // the knobs as the finalized plan resolved them (a heuristics result may leave some to the engine): what the
        // disk cache must keep to rebuild this very kernel
        EngineConfig value;
        try {
            value = EngineConfig.ofPlan(plan, graph);
        } catch (CudaException e) {
            plan.close();
            return null;
        }
        return new Candidate(new ConvolutionPlan(plan, ws, value, name, Float.NaN, 0, ConvolutionPlan.Origin.HEURISTIC));
    }

    private static int[] notes(CudnnDescriptor engine) {
        return engine.getEnums(CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE, 16);
    }

    /** A finalized execution plan of the configuration, or null when it does not finalize. */
    private static CudnnDescriptor executionPlan(cudnnContext handle, CudnnDescriptor config) {
        CudnnDescriptor plan = new CudnnDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, "execution plan");
        plan.cudnnHandle(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, "handle", handle);
        plan.descriptors(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, "engine config", config);
        if (plan.tryFinish() != 0) {
            plan.close();
            return null;
        }
        return plan;
    }

    // the winner keeps its descriptor: a candidate's plan handed over to the kept ConvolutionPlan
    private static CudnnDescriptor planOf(ConvolutionPlan p) { return p.descriptor(); }

    private static String engineName(ConvolutionPlan p) { return p.engineName(); }
}
