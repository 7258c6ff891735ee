package io.argus.gpu;

/** Diagnostics of the CUDA backend on stderr: plan choices and fallbacks with -Dargus.cuda.verbose=true. */
public final class CudaLog {
    private static final boolean VERBOSE = Boolean.parseBoolean(System.getProperty("argus.cuda.verbose",
            System.getenv().getOrDefault("ARGUS_CUDA_VERBOSE", "false")));

    private CudaLog() {}

    public static boolean verbose() { return VERBOSE; }

    public static void info(String message) {
        System.err.println("argus cuda: " + message);
    }
}
