package io.argus.pipeline.video;

import java.util.Locale;

/**
 * Which decoder reads a camera ({@code cameras[].decoder}). CPU: FFmpeg's software decoders, frames as BGR bytes in
 * the frame pool. NVDEC: the GPU's video decoder, frames kept on the GPU as NV12 surfaces and converted straight
 * into the detector's batch tensor (kernels/nv12.cu). AUTO: NVDEC when the camera's model runs on CUDA and NVDEC
 * takes the stream, else the CPU with the reason counted.
 */
public enum DecoderMode {
    AUTO, CPU, NVDEC;

    public String configName() { return name().toLowerCase(Locale.ROOT); }

    /** The config spelling ("auto", "cpu", "nvdec"), any case. */
    public static DecoderMode parse(String s) {
        for (DecoderMode m : values()) if (m.configName().equalsIgnoreCase(s)) return m;
        throw new IllegalArgumentException("expected one of auto, cpu, nvdec, found \"" + s + "\"");
    }
}
