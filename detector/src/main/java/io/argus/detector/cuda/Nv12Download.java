package io.argus.detector.cuda;

import static org.bytedeco.cuda.global.cudart.cudaMemcpy2D;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyDeviceToHost;
import static org.bytedeco.cuda.global.cudart.cudaSetDevice;

import io.argus.detector.BgrImage;
import io.argus.detector.yuv.Nv12Image;
import io.argus.gpu.DevicePointer;
import io.argus.gpu.Status;
import java.nio.ByteBuffer;
import org.bytedeco.javacpp.BytePointer;

/**
 * The one way a GPU picture comes back to the host: for what needs host pixels now and then (a snapshot at
 * {@code snapshots.fps}, a frame kept for training), never for detection. Copies the NV12 planes down (1.5 bytes a
 * pixel, half of what BGR would cost) and converts them with the CPU reference of the conversion kernel.
 */
public final class Nv12Download {
    private Nv12Download() {}

    /** Host BGR of {@code surface}, which lives on CUDA device {@code device}; the surface must still be held. */
    public static BgrImage toBgr(Nv12Surface surface, int device) {
        Status.cuda(cudaSetDevice(device), "cudaSetDevice(" + device + ")");
        int w = surface.width();
        int h = surface.height();
        int chromaRowBytes = 2 * Nv12Image.chromaWidth(w);
        int chromaRows = Nv12Image.chromaHeight(h);
        ByteBuffer luma = ByteBuffer.allocateDirect(w * h);
        ByteBuffer chroma = ByteBuffer.allocateDirect(chromaRowBytes * chromaRows);
        Status.cuda(cudaMemcpy2D(new BytePointer(luma), w, DevicePointer.at(surface.luma()), surface.lumaPitch(), w, h,
                cudaMemcpyDeviceToHost), "cudaMemcpy2D NV12 luma to host");
        Status.cuda(cudaMemcpy2D(new BytePointer(chroma), chromaRowBytes, DevicePointer.at(surface.chroma()),
                surface.chromaPitch(), chromaRowBytes, chromaRows, cudaMemcpyDeviceToHost), "cudaMemcpy2D NV12 chroma to host");
        return new Nv12Image(w, h, w, chromaRowBytes, luma, chroma).toBgr(surface.colour());
    }
}
