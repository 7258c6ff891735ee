package io.argus.gpu.cudnn;

import static org.bytedeco.cuda.global.cudnn.cudnnBackendExecute;

import io.argus.gpu.CudaException;
import io.argus.gpu.CudnnDescriptor;
import io.argus.gpu.Status;
import java.util.Locale;
import org.bytedeco.cuda.cudnn.cudnnContext;

/**
 * A finalized cuDNN execution plan for one {@link ConvolutionProblem}: what runs, the workspace it needs and how it
 * was chosen. Plans belong to the device's {@link ConvolutionPlanner} and live as long as the process (two networks
 * of one shape share one); they are executed with any cuDNN handle of that device.
 */
public final class ConvolutionPlan {
    /** Where a plan came from: timed now, cuDNN's first choice untimed, or rebuilt from the disk cache. */
    public enum Origin { TIMED, HEURISTIC, DISK }

    private final CudnnDescriptor plan;
    private final long workspace;
    private final EngineConfig config;
    private final String engine;
    private final float milliseconds;
    private final int candidates;
    private final Origin origin;

    ConvolutionPlan(CudnnDescriptor plan, long workspace, EngineConfig config, String engine, float milliseconds,
                    int candidates, Origin origin) {
        this.plan = plan;
        this.workspace = workspace;
        this.config = config;
        this.engine = engine;
        this.milliseconds = milliseconds;
        this.candidates = candidates;
        this.origin = origin;
    }

    public long workspaceBytes() { return workspace; }

    public EngineConfig config() { return config; }

    /** What the disk cache keeps of this plan. */
    PlanCache.Entry entry() { return new PlanCache.Entry(config, workspace); }

    public Origin origin() { return origin; }

    /** Device time measured while choosing (NaN when not timed). */
    public float milliseconds() { return milliseconds; }

    /** "engine 12 tc, 0.123 ms best of 4, ws 1.0 MiB, config 12 3=1,7=64" for logs. */
    public String describe() {
        String ws = String.format(Locale.ROOT, "ws %.1f MiB, config %s", workspace / 1048576.0, config.text());
        return switch (origin) {
            case TIMED -> String.format(Locale.ROOT, "%s, %.3f ms best of %d, %s", engine, milliseconds, candidates, ws);
            case HEURISTIC -> engine + " (heuristic), " + ws;
            case DISK -> engine + " (plan cache), " + ws;
        };
    }

    /** Enqueues the operation on the handle's current stream. */
    public void execute(cudnnContext handle, CudnnDescriptor variantPack) {
        int s = cudnnBackendExecute(handle, plan.handle(), variantPack.handle());
        if (s != 0) throw new CudaException("cudnnBackendExecute (" + engine + ") failed: " + Status.cudnnMessage(s));
    }

    CudnnDescriptor descriptor() { return plan; }

    String engineName() { return engine; }

    void close() { plan.close(); }
}
