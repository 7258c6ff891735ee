package io.argus.pipeline.video.nvdec;

import static org.bytedeco.cuda.global.cudart.cuDevicePrimaryCtxRelease;
import static org.bytedeco.cuda.global.cudart.cuDevicePrimaryCtxRetain;
import static org.bytedeco.ffmpeg.global.avutil.AV_HWDEVICE_TYPE_CUDA;
import static org.bytedeco.ffmpeg.global.avutil.av_buffer_unref;
import static org.bytedeco.ffmpeg.global.avutil.av_hwdevice_ctx_alloc;
import static org.bytedeco.ffmpeg.global.avutil.av_hwdevice_ctx_init;

import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuStream;
import io.argus.gpu.Status;
import io.argus.recording.Ffmpeg;
import org.bytedeco.cuda.cudart.CUctx_st;
import org.bytedeco.ffmpeg.avutil.AVBufferRef;
import org.bytedeco.ffmpeg.avutil.AVHWDeviceContext;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.javacpp.Pointer;

/**
 * FFmpeg's CUDA device (AV_HWDEVICE_TYPE_CUDA) over OUR device's primary context, the one every Argus kernel, cuDNN
 * and the runtime API use, so decoded surfaces are plain device pointers our kernels read.
 *
 * <p>Why not {@code av_hwdevice_ctx_create}: without flags it creates a second context (surfaces would belong to
 * another context); with AV_CUDA_USE_PRIMARY_CONTEXT it insists on setting the primary context's flags to
 * blocking sync and fails ("Primary context already active with incompatible flags") once our runtime has started
 * it. Instead we allocate the device, fill in {@code AVCUDADeviceContext.cuda_ctx} with the retained primary
 * context and {@code .stream} with the decoder's stream, and {@code av_hwdevice_ctx_init} it: FFmpeg then uses the
 * context as given and never destroys it (it destroys only contexts it created itself), and its NVDEC copies of
 * each picture into the frame pool run on our stream, so a kernel enqueued on that stream after a frame arrives
 * reads it complete.
 *
 * <p>One consequence, checked against libavutil 60's strings: FFmpeg's private {@code internal->cuda_device} stays 0
 * (only its create paths set it), and the frame pool asks that device for its texture alignment (the surfaces'
 * pitch alignment). On device 0 that is exact; on another device it is device 0's value, 512 bytes on every NVIDIA
 * GPU so far, and our kernel takes any pitch anyway.
 */
final class CudaHwDevice implements AutoCloseable {
    private final int device;
    private AVBufferRef ref;

    private CudaHwDevice(int device, AVBufferRef ref) {
        this.device = device;
        this.ref = ref;
    }

    /** The FFmpeg device over device {@code index}'s primary context, its copies on {@code stream}. */
    static CudaHwDevice open(DeviceContext ctx, GpuStream stream) {
        int index = ctx.device().index();
        CUctx_st primary = new CUctx_st();
        Status.driver(cuDevicePrimaryCtxRetain(primary, index), "cuDevicePrimaryCtxRetain for NVDEC on device " + index);
        AVBufferRef ref = av_hwdevice_ctx_alloc(AV_HWDEVICE_TYPE_CUDA);
        if (ref == null) {
            cuDevicePrimaryCtxRelease(index);
            throw new IllegalStateException("av_hwdevice_ctx_alloc(CUDA) failed: this FFmpeg was built without CUDA");
        }
        AVHWDeviceContext hw = new AVHWDeviceContext(ref.data());
        Pointer hwctx = hw.hwctx();
        // struct AVCUDADeviceContext { CUcontext cuda_ctx; CUstream stream; AVCUDADeviceContextInternal *internal; }
        // (libavutil/hwcontext_cuda.h, unchanged from FFmpeg 4 to 8). The bytedeco presets do not map it, so the two
        // pointers are written at offsets 0 and 8; internal stays NULL and av_hwdevice_ctx_init allocates it.
        LongPointer fields = new LongPointer(hwctx).capacity(3);
        fields.put(0, primary.address());
        fields.put(1, stream.handle().address());
        int r = av_hwdevice_ctx_init(ref);
        if (r < 0) {
            av_buffer_unref(ref);
            cuDevicePrimaryCtxRelease(index);
            throw new IllegalStateException("av_hwdevice_ctx_init(CUDA) failed: " + Ffmpeg.error(r)
                    + " (libcuda.so.1 not loadable by FFmpeg?)");
        }
        return new CudaHwDevice(index, ref);
    }

    AVBufferRef ref() { return ref; }

    @Override
    public void close() {
        if (ref == null) return;
        av_buffer_unref(ref);
        ref = null;
        cuDevicePrimaryCtxRelease(device);
    }
}
