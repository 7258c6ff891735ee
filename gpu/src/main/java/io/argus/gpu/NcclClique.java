package io.argus.gpu;

import static org.bytedeco.cuda.global.nccl.ncclAllReduce;
import static org.bytedeco.cuda.global.nccl.ncclCommAbort;
import static org.bytedeco.cuda.global.nccl.ncclCommDestroy;
import static org.bytedeco.cuda.global.nccl.ncclCommInitAll;
import static org.bytedeco.cuda.global.nccl.ncclFloat32;
import static org.bytedeco.cuda.global.nccl.ncclGetErrorString;
import static org.bytedeco.cuda.global.nccl.ncclGetVersion;
import static org.bytedeco.cuda.global.nccl.ncclSum;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.PointerPointer;

/**
 * NCCL over several GPUs of this process: one communicator per device, made together ({@code ncclCommInitAll}), for
 * data-parallel training with one thread per GPU. Each rank's thread enqueues its collectives on its own stream; NCCL
 * needs no group calls then (those are for one thread driving several devices), only the same collectives in the
 * same order on every rank. A rank that fails before its part leaves the others waiting inside a collective: {@link
 * #abort} ends them.
 *
 * <p>NVLink multicast (NVLS) must stay off on shared hosts (NCCL_NVLS_ENABLE=0): a program using it can put a
 * shared host's GPUs out of service. Argus never asks for it; the variable is the host's to keep set.
 */
public final class NcclClique implements AutoCloseable {
    private final int[] devices;
    private final List<Rank> ranks = new ArrayList<>();
    private volatile boolean closed;

    private NcclClique(int[] devices, PointerPointer<ncclComm> comms) {
        this.devices = devices.clone();
        for (int r = 0; r < devices.length; r++) ranks.add(new Rank(r, new ncclComm(comms.get(r))));
    }

    /**
     * Communicators over {@code devices} (rank r on devices[r]).
     *
     * @throws CudaUnavailableException when CUDA or NCCL (libnccl.so.2) cannot be loaded
     * @throws IllegalArgumentException when a device is listed twice or does not exist
     */
    public static NcclClique of(int... devices) {
        CudaRuntime.require();
        loadNccl();
        if (devices.length == 0) throw new IllegalArgumentException("NCCL needs at least one device");
        int count = CudaRuntime.deviceCount();
        for (int i = 0; i < devices.length; i++) {
            if (devices[i] < 0 || devices[i] >= count) {
                throw new IllegalArgumentException("GPU " + devices[i] + " does not exist: this host has " + count
                        + " (0.." + (count - 1) + ")");
            }
            for (int j = 0; j < i; j++) {
                if (devices[j] == devices[i]) {
                    throw new IllegalArgumentException("GPU " + devices[i] + " listed twice in "
                            + Arrays.toString(devices) + ": one rank per GPU");
                }
            }
        }
        PointerPointer<ncclComm> comms = new PointerPointer<>(devices.length);
        check(ncclCommInitAll(comms, devices.length, new IntPointer(devices)),
                "ncclCommInitAll over GPUs " + Arrays.toString(devices));
        return new NcclClique(devices, comms);
    }

    /** NCCL's version, e.g. "2.28.3", once loaded. */
    public static String version() {
        loadNccl();
        int[] v = new int[1];
        check(ncclGetVersion(v), "ncclGetVersion");
        int code = v[0];
        return code >= 10000 ? (code / 10000) + "." + (code / 100 % 100) + "." + (code % 100)
                : (code / 1000) + "." + (code / 100 % 10) + "." + (code % 100);
    }

    private static void loadNccl() {
        try {
            Loader.load(org.bytedeco.cuda.global.nccl.class);
        } catch (Throwable t) {
            String why = t.getMessage() != null ? t.getMessage() : t.toString();
            throw new CudaUnavailableException("cannot load NCCL (libnccl.so.2), needed to train on several GPUs: "
                    + why + " (install NCCL 2 for CUDA 13, or put its lib directory, e.g. the nvidia-nccl-cu13 "
                    + "wheel's nvidia/nccl/lib, on LD_LIBRARY_PATH)");
        }
    }

    public int size() { return devices.length; }

    /** The device of rank {@code r}. */
    public int device(int r) { return devices[r]; }

    public Rank rank(int r) { return ranks.get(r); }

    /**
     * Ends every collective still running or waiting for a rank that will never come (a rank failed): the stuck
     * ranks' stream synchronizations then return with an error. The clique cannot be used afterwards.
     */
    public void abort() {
        if (closed) return;
        closed = true;
        for (Rank r : ranks) ncclCommAbort(r.comm);
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        for (Rank r : ranks) ncclCommDestroy(r.comm);
    }

    /** One rank's communicator: what that rank's thread calls. */
    public final class Rank {
        private final int index;
        private final ncclComm comm;

        private Rank(int index, ncclComm comm) {
            this.index = index;
            this.comm = comm;
        }

        public int index() { return index; }

        /** Ranks in the clique. */
        public int size() { return devices.length; }

        public int device() { return devices[index]; }

        /**
         * Enqueues on {@code stream} (a stream of this rank's device): the {@code count} FP32 values at {@code address}
         * become, in place, their sum over every rank. Every rank gets the same bits (NCCL reduces each element in one
         * order and then copies the result).
         */
        public void allReduceSum(long address, long count, CUstream_st stream) {
            if (closed) throw new IllegalStateException("NCCL clique over " + Arrays.toString(devices) + " is closed");
            check(ncclAllReduce(DevicePointer.at(address), DevicePointer.at(address), count, ncclFloat32, ncclSum,
                    comm, stream), "ncclAllReduce of " + count + " floats on rank " + index + " (GPU "
                    + devices[index] + ")");
        }
    }

    private static void check(int status, String what) {
        if (status != 0) {
            throw new CudaException(what + " failed: " + ncclGetErrorString(status).getString() + " (ncclResult "
                    + status + ")");
        }
    }
}
