package io.argus.gpu;

/** A CUDA, cuDNN or NVRTC call failed: the message names the call, the status and what it was doing. */
public class CudaException extends RuntimeException {
    public CudaException(String message) {
        super(message);
    }

    public CudaException(String message, Throwable cause) {
        super(message, cause);
    }
}
