package io.argus.pipeline.video;

/**
 * NVDEC cannot read this camera, and why: the message names the camera and the reason, the {@link Reason} is what
 * {@code decoder: auto} counts when it falls back to the CPU decoder.
 */
public final class NvdecRefusal extends Exception {
    public enum Reason {
        /** No usable CUDA (no driver, no device, runtime missing): {@code CudaRuntime.problem()} says which. */
        NO_CUDA,
        /** The camera's model runs on the CPU: NVDEC's pictures would only come back over PCIe. */
        MODEL_ON_CPU,
        /** FFmpeg has no NVDEC hwaccel for the stream's codec (e.g. MJPEG from a USB camera). */
        CODEC_UNSUPPORTED,
        /** NVDEC was offered but did not take the stream: libnvcuvid.so.1 missing, or this GPU's NVDEC lacks the profile, bit depth or size. */
        STREAM_REFUSED,
        /** Decoded surfaces are not 8-bit NV12 (e.g. 10-bit P010): the conversion kernel reads NV12 only. */
        SURFACE_FORMAT,
        /** The camera's {@code decodeDevice} is not one of its model's GPUs: its pictures could not be detected there. */
        NOT_THE_MODELS_GPU,
        /** The URL could not be opened or has no video stream (not NVDEC's fault; the CPU decoder would fail too). */
        OPEN_FAILED
    }

    private final Reason reason;

    public NvdecRefusal(String camera, Reason reason, String detail) {
        super("camera " + camera + ": NVDEC decoder refused (" + reason.name().toLowerCase(java.util.Locale.ROOT)
                + "): " + detail);
        this.reason = reason;
    }

    public Reason reason() { return reason; }
}
