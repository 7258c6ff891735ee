package io.argus.gpu;

import static org.bytedeco.cuda.global.cudart.cuGetErrorString;
import static org.bytedeco.cuda.global.cudart.cudaGetErrorString;
import static org.bytedeco.cuda.global.cudnn.cudnnGetErrorString;
import static org.bytedeco.cuda.global.cudnn.cudnnGetLastErrorString;
import static org.bytedeco.cuda.global.nvrtc.nvrtcGetErrorString;

import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.PointerPointer;

/** Status checks for the four C APIs the backend calls: every failure becomes a {@link CudaException}. Public for
 * the trainer's CUDA backend (io.argus.trainer.cuda). */
public final class Status {
    private Status() {}

    /** CUDA runtime. */
    public static void cuda(int status, String what) {
        if (status != 0) {
            throw new CudaException(what + " failed: " + cudaGetErrorString(status).getString() + " (cudaError "
                    + status + ")");
        }
    }

    /** CUDA driver API (modules, kernel launches). */
    public static void driver(int status, String what) {
        if (status != 0) {
            PointerPointer<BytePointer> text = new PointerPointer<>(1);
            String name = cuGetErrorString(status, text) == 0 && text.get(0) != null
                    ? new BytePointer(text.get(0)).getString() : "unknown";
            throw new CudaException(what + " failed: " + name + " (CUresult " + status + ")");
        }
    }

    public static void cudnn(int status, String what) {
        if (status != 0) throw new CudaException(what + " failed: " + cudnnMessage(status));
    }

    /** cuDNN's name for the status plus its last detailed message, if it left one. */
    public static String cudnnMessage(int status) {
        String name = cudnnGetErrorString(status).getString();
        byte[] detail = new byte[1024];
        cudnnGetLastErrorString(detail, detail.length);
        int len = 0;
        while (len < detail.length && detail[len] != 0) len++;
        String last = new String(detail, 0, len).strip();
        return name + " (cudnnStatus " + status + ")" + (last.isEmpty() ? "" : ": " + last);
    }

    public static void nvrtc(int status, String what) {
        if (status != 0) {
            throw new CudaException(what + " failed: " + nvrtcGetErrorString(status).getString() + " (nvrtcResult "
                    + status + ")");
        }
    }
}
