package io.argus.pipeline.config;

import io.vertx.core.json.JsonArray;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The GPUs one model runs on: {@code models[].cuda.device: N} (one), {@code devices: [0, 1]} (these), or
 * {@code devices: all} (every device of the host, counted when the model opens). With more than one the model runs
 * one inference worker per GPU and its batches go to the least loaded (docs/cuda.md "Several GPUs").
 *
 * @param listed the devices in the order given; empty for all of the host's
 */
public record CudaDevices(List<Integer> listed) {
    public static final CudaDevices ALL = new CudaDevices(List.of());

    public CudaDevices {
        listed = List.copyOf(listed);
    }

    public static CudaDevices of(Integer... devices) { return new CudaDevices(List.of(devices)); }

    /** Every device of the host. */
    public boolean all() { return listed.isEmpty(); }

    /** The device a one-GPU path uses (a detector opened alone, a default NVDEC device): the first listed, or 0. */
    public int first() { return all() ? 0 : listed.get(0); }

    /** Whether the model may run on more than one GPU: all of them, or two or more listed. */
    public boolean several() { return all() || listed.size() > 1; }

    /**
     * The device indexes on a host with {@code deviceCount} devices: all of them, or those listed (a listed device
     * the host lacks fails when its worker opens, naming it).
     */
    public int[] resolve(int deviceCount) {
        if (!all()) return listed.stream().mapToInt(Integer::intValue).toArray();
        if (deviceCount < 1) throw new IllegalStateException("cuda.devices: all, but this host has no CUDA device");
        return java.util.stream.IntStream.range(0, deviceCount).toArray();
    }

    /** Whether {@code device} is one of these (any device for all). */
    public boolean includes(int device) { return all() ? device >= 0 : listed.contains(device); }

    /** As the config says it: {@code all} or {@code 0, 1}. */
    public String describe() {
        return all() ? "all" : listed.stream().map(String::valueOf).collect(Collectors.joining(", "));
    }

    /** For the model's status: {@code "all"} or the list. */
    public Object toJson() { return all() ? "all" : new JsonArray(listed); }
}
