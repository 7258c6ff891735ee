package io.argus.pipeline.video;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Which GPU each NVDEC camera of a model decodes on, so that a frame starts on the GPU that will detect it (an NVDEC
 * picture can only be read by its own GPU). A model on one GPU: that GPU (or the camera's {@code decodeDevice}, which
 * the config checks is the same). A model on several ({@code cuda.devices}): the camera's {@code decodeDevice} while
 * that GPU serves the model, else the model's serving GPU decoding the fewest of its cameras, so the cameras spread
 * over the GPUs as their batches do. The model's inference worker says which GPUs serve ({@link #serving}), again
 * when one is taken out; a camera asks at every connection ({@link #take}) and, while streaming, whether its GPU still
 * serves ({@link #serves}): a camera whose GPU was taken out reconnects onto another.
 *
 * <p>One per model id for the process (cameras and the inference worker find it by the id).
 */
public final class NvdecPlacement {
    private static final ConcurrentMap<String, NvdecPlacement> MODELS = new ConcurrentHashMap<>();

    private int[] serving;                                      // null: the model is not on several GPUs
    private final Map<Integer, Integer> cameras = new HashMap<>(); // cameras decoding on each device now

    /** The placement of model {@code id}'s cameras. */
    public static NvdecPlacement of(String model) {
        return MODELS.computeIfAbsent(model, m -> new NvdecPlacement());
    }

    /** The model's GPUs taking batches now; null when it does not run on several (one GPU, the CPU, stopped). */
    public synchronized void serving(int[] devices) {
        serving = devices != null ? devices.clone() : null;
    }

    /**
     * The device a camera decodes on for one connection, counted until {@link #release}d: {@code configured} (a
     * camera's {@code decodeDevice}, -1 for none) while it serves the model; on one GPU the configured device or
     * {@code modelDevice}; on several the serving GPU with the fewest cameras (ties: the first listed).
     */
    public synchronized int take(int configured, int modelDevice) {
        int device;
        if (serving == null || serving.length == 0) {
            device = configured >= 0 ? configured : modelDevice;
        } else if (configured >= 0 && contains(serving, configured)) {
            device = configured;
        } else {
            device = serving[0];
            for (int d : serving) if (cameras.getOrDefault(d, 0) < cameras.getOrDefault(device, 0)) device = d;
        }
        cameras.merge(device, 1, Integer::sum);
        return device;
    }

    /** A connection that decoded on {@code device} ended. */
    public synchronized void release(int device) {
        cameras.computeIfPresent(device, (d, n) -> n > 1 ? n - 1 : null);
    }

    /**
     * Whether a camera decoding on {@code device} should stay there: yes unless the model runs on several GPUs and
     * {@code device} is no longer one of them (while none serves, staying is as good as moving).
     */
    public synchronized boolean serves(int device) {
        return serving == null || serving.length == 0 || contains(serving, device);
    }

    /** Cameras decoding on each device now (for the status and tests). */
    public synchronized Map<Integer, Integer> cameras() { return Map.copyOf(cameras); }

    private static boolean contains(int[] devices, int device) {
        return Arrays.stream(devices).anyMatch(d -> d == device);
    }
}
