package io.argus.gpu;

/**
 * The CUDA backend cannot run here: a library (CUDA runtime, cuDNN, NVRTC) or the driver is missing, or there is
 * no CUDA device. The message names what is missing and how to provide it.
 */
public final class CudaUnavailableException extends CudaException {
    public CudaUnavailableException(String message) {
        super(message);
    }

    public CudaUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
