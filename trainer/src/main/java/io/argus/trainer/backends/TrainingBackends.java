package io.argus.trainer.backends;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.gpu.CudaRuntime;
import io.argus.trainer.cuda.CudaTrainingBackend;
import io.argus.trainer.cuda.CudaTrainingOptions;
import io.argus.trainer.train.CpuTrainingBackend;
import io.argus.trainer.train.TrainingBackend;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The one place a training backend is chosen and opened: {@code argus train}, {@code argus bench train} and the
 * pipeline's fine-tunes all come here. {@code cpu} is the CPU; {@code cuda} the GPU, refused at start with the reason
 * when CUDA is not usable; {@code auto} the GPU when CUDA is usable (the same probe as the detector's backend auto:
 * driver, runtime, cuDNN, NVRTC and a device), else the CPU with a note saying why.
 *
 * <p>Choosing and opening are two steps so that a caller can fail (or note the fallback) when it starts, long before
 * its first run opens a backend.
 */
public final class TrainingBackends {
    /** What the user asked for. */
    public enum Kind {
        CPU, CUDA, AUTO;

        /** "cpu", "cuda" or "auto"; {@code key} names the setting in the error (e.g. training.backend, --backend). */
        public static Kind parse(String word, String key) {
            try {
                return valueOf(word.strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(key + ": expected cpu, cuda or auto, found " + word);
            }
        }
    }

    /**
     * What a kind resolved to here: CPU or CUDA, never AUTO.
     *
     * @param note why AUTO took the CPU (one line for the log), else null
     */
    public record Choice(Kind kind, String note) {
        public Choice {
            if (kind == Kind.AUTO) throw new IllegalArgumentException("a choice is cpu or cuda");
        }

        public boolean cuda() { return kind == Kind.CUDA; }
    }

    private TrainingBackends() {}

    /**
     * Resolves {@code kind} on this machine. CUDA when CUDA is not usable: an IllegalArgumentException naming
     * {@code key} and the reason (the missing library, driver or device).
     */
    public static Choice choose(Kind kind, String key) {
        return choose(kind, key, CudaRuntime::problem);
    }

    /** As {@link #choose(Kind, String)}, with the CUDA probe given (null: usable; tests stand in for a GPU). */
    static Choice choose(Kind kind, String key, Supplier<String> cudaProblem) {
        return switch (kind) {
            case CPU -> new Choice(Kind.CPU, null);
            case CUDA -> {
                String problem = cudaProblem.get();
                if (problem != null) {
                    throw new IllegalArgumentException(key + ": cuda: CUDA is not usable here: " + problem
                            + " (use cpu, or auto to fall back to the CPU)");
                }
                yield new Choice(Kind.CUDA, null);
            }
            case AUTO -> {
                String problem = cudaProblem.get();
                yield problem == null ? new Choice(Kind.CUDA, null)
                        : new Choice(Kind.CPU, key + " auto: training on the CPU, CUDA is not usable: " + problem);
            }
        };
    }

    /**
     * Opens the chosen backend holding {@code initial}, for mini-batches of {@code miniBatch} images.
     *
     * @param cuda    the GPU's options (device, precision, workspace, ...), used when the choice is CUDA
     * @param threads the CPU's training threads
     * @param cpuFp16 on the CPU, emulate mixed precision (FP16 rounding, so loss-scale overflows happen as on a GPU)
     */
    public static TrainingBackend open(Choice choice, CudaTrainingOptions cuda, NetworkSpec spec, ModelWeights initial,
                                       int miniBatch, int threads, boolean cpuFp16) {
        return choice.cuda() ? new CudaTrainingBackend(spec, initial, miniBatch, cuda)
                : new CpuTrainingBackend(spec, initial, miniBatch, threads, cpuFp16);
    }
}
