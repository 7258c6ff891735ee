package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.dnnl_sgemm;

import org.bytedeco.javacpp.FloatPointer;

/** Row-major C = alpha op(A) op(B) + beta C through oneDNN, which picks AVX-512/AVX2 kernels from CPU features. */
public final class Sgemm {
    private Sgemm() {}

    /**
     * @param transA 'N' or 'T'
     */
    public static void multiply(char transA, char transB, long m, long n, long k, float alpha, FloatPointer a, long lda,
                                FloatPointer b, long ldb, float beta, FloatPointer c, long ldc) {
        check(dnnl_sgemm((byte) transA, (byte) transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc));
    }

    static void check(int status) {
        if (status != 0) throw new IllegalStateException("oneDNN sgemm failed with status " + status);
    }
}
