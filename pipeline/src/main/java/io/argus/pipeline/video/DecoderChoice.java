package io.argus.pipeline.video;

import io.argus.detector.backends.Detector;

/**
 * Which decoder a camera gets before any stream is opened, from {@code cameras[].decoder} and where its model runs.
 * NVDEC only pays when the model runs on CUDA: its pictures stay on the GPU and go straight into the batch; for a
 * CPU model they would have to come back over PCIe, which the CPU decoder avoids. So AUTO picks NVDEC exactly when
 * the model runs on CUDA (backend cuda, or auto with CUDA usable), on the model's device; an explicit NVDEC for a
 * model on the CPU is refused with the reason. Whether NVDEC then takes the stream (codec, profile, libnvcuvid) is
 * known only when it is opened: an {@link NvdecRefusal} there sends AUTO to the CPU decoder, counted.
 *
 * @param nvdec  decode with NVDEC (else the CPU decoder)
 * @param device the CUDA device NVDEC decodes on (the model's); -1 for the CPU decoder
 * @param reason why NVDEC was refused (null when it was chosen, when the config said cpu, or when auto chose the CPU
 *               decoder from the start: nothing fell back then, so a camera counts no NVDEC fallback)
 * @param detail what decided, in words
 */
public record DecoderChoice(boolean nvdec, int device, NvdecRefusal.Reason reason, String detail) {

    public static DecoderChoice of(String camera, DecoderMode mode, Detector.Backend modelBackend, int modelDevice,
                                   String cudaProblem) throws NvdecRefusal {
        if (mode == DecoderMode.CPU) return new DecoderChoice(false, -1, null, "decoder: cpu");
        boolean modelOnCuda = modelBackend == Detector.Backend.CUDA
                || (modelBackend == Detector.Backend.AUTO && cudaProblem == null);
        if (modelOnCuda && cudaProblem == null) return new DecoderChoice(true, modelDevice, null, "model on CUDA");
        // a model configured for the CPU is the reason whether or not this host has CUDA
        boolean noCuda = modelBackend != Detector.Backend.CPU && cudaProblem != null;
        NvdecRefusal.Reason reason = noCuda ? NvdecRefusal.Reason.NO_CUDA : NvdecRefusal.Reason.MODEL_ON_CPU;
        String detail = noCuda ? cudaProblem : "the camera's model runs on the CPU";
        if (mode == DecoderMode.NVDEC) throw new NvdecRefusal(camera, reason, detail);
        // auto on a model that runs on the CPU: the CPU decoder is the choice, not a fallback from NVDEC
        return new DecoderChoice(false, -1, null, detail);
    }
}
