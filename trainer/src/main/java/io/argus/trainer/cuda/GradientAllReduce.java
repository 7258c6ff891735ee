package io.argus.trainer.cuda;

import static org.bytedeco.cuda.global.cudart.cudaEventCreateWithFlags;
import static org.bytedeco.cuda.global.cudart.cudaEventDestroy;
import static org.bytedeco.cuda.global.cudart.cudaEventDisableTiming;
import static org.bytedeco.cuda.global.cudart.cudaEventRecord;
import static org.bytedeco.cuda.global.cudart.cudaStreamWaitEvent;

import io.argus.gpu.GpuStream;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.NcclClique;
import io.argus.gpu.Status;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.cuda.cudart.CUevent_st;

/**
 * A data-parallel rank's gradient sum on its GPU, overlapped with the backward pass. In the iteration's last pass,
 * as soon as the layers of a bucket ({@link GradientBuckets}) have written their weight gradients, the training
 * stream adds the pass's gradients of that bucket into the FP32 gradients (the bucket's share of what {@code
 * accumulate_check} does for a whole pass) and records an event; a communication stream of its own waits for the
 * event and has NCCL sum the bucket over the ranks, in FP32, while the training stream goes on with the layers below.
 * After the backward pass the biases and batch-norm scales follow as one more piece; the training stream then waits
 * for every sum and checks the summed gradients for Inf and NaN. The check sees the sum, the same bits on every rank
 * (an overflow on any rank makes the sum Inf or NaN), so every rank skips or takes the step alike, with the one loss
 * scale they share.
 *
 * <p>Why FP32 sums: the FP16 pass gradients are loss-scaled, and a sum over ranks of values near FP16's limit would
 * overflow where one rank's would not; FP32 costs twice the bytes, which NVLink moves in well under the backward pass
 * the sums hide behind (yolov4-tiny: 24 MB per step).
 */
final class GradientAllReduce implements AutoCloseable {
    private static final String FILE = "train_optimizer.cu";

    private final NcclClique.Rank rank;
    private final GpuTrainContext ctx;
    private final GradientBuckets buckets;
    private final GpuStream comm;
    private final List<KernelLaunch> accumulate = new ArrayList<>();
    private final List<CUevent_st> ready = new ArrayList<>();
    private final CUevent_st tailReady = new CUevent_st();
    private final CUevent_st summed = new CUevent_st();
    private final KernelLaunch check;

    GradientAllReduce(NcclClique.Rank rank, ParameterArena arena, GpuTrainContext ctx, long flags, long bucketValues) {
        this.rank = rank;
        this.ctx = ctx;
        this.buckets = new GradientBuckets(arena, bucketValues);
        ctx.device.makeCurrent();
        // above the training stream's priority: a bucket's sum starts as soon as its event fires, not after the
        // backward kernels queued behind it
        this.comm = new GpuStream(GpuStream.Priority.HIGHEST);
        for (GradientBuckets.Bucket b : buckets.buckets()) {
            KernelLaunch k = ctx.kernel(FILE, "accumulate_check");
            k.pointer(ctx.stored(ctx.passGradient, b.from()));
            k.pointer(ctx.gradient + 4 * b.from());
            k.i64(b.values());
            k.i64(b.values());
            k.pointer(flags);
            accumulate.add(k);
            CUevent_st e = new CUevent_st();
            Status.cuda(cudaEventCreateWithFlags(e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
            ready.add(e);
        }
        Status.cuda(cudaEventCreateWithFlags(tailReady, cudaEventDisableTiming), "cudaEventCreateWithFlags");
        Status.cuda(cudaEventCreateWithFlags(summed, cudaEventDisableTiming), "cudaEventCreateWithFlags");
        check = ctx.kernel(FILE, "accumulate_check");   // W = 0: adds nothing, checks every value
        check.pointer(ctx.passGradient);
        check.pointer(ctx.gradient);
        check.i64(0);
        check.i64(arena.total());
        check.pointer(flags);
    }

    int ranks() { return rank.size(); }

    GradientBuckets buckets() { return buckets; }

    /** After layer {@code layer}'s backward is enqueued: starts the sum of the bucket it completes, if any. */
    void afterLayer(int layer) {
        GradientBuckets.Bucket b = buckets.triggeredBy(layer);
        if (b == null) return;
        int i = buckets.buckets().indexOf(b);
        accumulate.get(i).launch(ctx.grid(b.values()), ctx.stream.handle());
        Status.cuda(cudaEventRecord(ready.get(i), ctx.stream.handle()), "cudaEventRecord bucket");
        Status.cuda(cudaStreamWaitEvent(comm.handle(), ready.get(i), 0), "cudaStreamWaitEvent bucket");
        rank.allReduceSum(ctx.gradient + 4 * b.from(), b.values(), comm.handle());
    }

    /** After the backward pass: the biases and scales, then the training stream waits for all sums and checks them. */
    void finish() {
        Status.cuda(cudaEventRecord(tailReady, ctx.stream.handle()), "cudaEventRecord tail");
        Status.cuda(cudaStreamWaitEvent(comm.handle(), tailReady, 0), "cudaStreamWaitEvent tail");
        long tail = buckets.tailTo() - buckets.tailFrom();
        if (tail > 0) rank.allReduceSum(ctx.gradient + 4 * buckets.tailFrom(), tail, comm.handle());
        Status.cuda(cudaEventRecord(summed, comm.handle()), "cudaEventRecord summed");
        Status.cuda(cudaStreamWaitEvent(ctx.stream.handle(), summed, 0), "cudaStreamWaitEvent summed");
        check.launch(ctx.grid(buckets.tailTo()), ctx.stream.handle());
    }

    @Override
    public void close() {
        try {
            comm.synchronize();
        } finally {
            for (CUevent_st e : ready) cudaEventDestroy(e);
            cudaEventDestroy(tailReady);
            cudaEventDestroy(summed);
            comm.close();
        }
    }
}
