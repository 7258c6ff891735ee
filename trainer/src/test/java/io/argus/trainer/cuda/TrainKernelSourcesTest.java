package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The training kernels NVRTC compiles at run time are packaged, every kernels/train_*.cu is loaded, our headers are
 * inlined (NVRTC only gets common.cuh), and every kernel the Java side launches exists, with both storage-type
 * instances where it launches through the precision.
 */
class TrainKernelSourcesTest {
    static Path root() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("kernels"))) p = p.getParent();
        if (p == null) throw new IllegalStateException("no kernels/ above " + Path.of("").toAbsolutePath());
        return p;
    }

    @Test
    void everyTrainingKernelFileIsPackagedAndLoaded() throws IOException {
        try (Stream<Path> files = Files.list(root().resolve("kernels"))) {
            long n = files.map(p -> p.getFileName().toString())
                    .filter(f -> f.startsWith("train_") && f.endsWith(".cu"))
                    .peek(f -> assertTrue(TrainKernels.FILES.contains(f), f + " is not loaded by TrainKernels"))
                    .count();
            assertEquals(TrainKernels.FILES.size(), n);
        }
        for (String f : TrainKernels.FILES) {
            String src = TrainKernels.source(f);
            assertFalse(src.contains("#include \"train_"), f + ": our headers are inlined");
            assertTrue(src.contains("#include \"common.cuh\""), f + " includes the shared header");
            assertTrue(src.contains("INSTANTIATE") || src.contains("extern \"C\""), f);
        }
    }

    @Test
    void launchedKernelsExist() throws IOException {
        Path main = root().resolve("trainer/src/main/java/io/argus/trainer/cuda");
        // kernel(FILE-or-"file.cu", "name") and plainKernel(...): the file may be a constant of the class
        Pattern call = Pattern.compile("(plainKernel|kernel)\\((\"[a-z_]+\\.cu\"|[A-Z]+), \"([a-z0-9_]+)\"\\)");
        Pattern constant = Pattern.compile("static final String ([A-Z]+) = \"([a-z_]+\\.cu)\"");
        int checked = 0;
        try (Stream<Path> files = Files.list(main)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String java = Files.readString(p);
                Matcher m = call.matcher(java);
                while (m.find()) {
                    String file = m.group(2);
                    if (!file.startsWith("\"")) {
                        Matcher c = constant.matcher(java);
                        String found = null;
                        while (c.find()) if (c.group(1).equals(file)) found = c.group(2);
                        assertTrue(found != null, p.getFileName() + ": constant " + file);
                        file = found;
                    } else {
                        file = file.substring(1, file.length() - 1);
                    }
                    String src = TrainKernels.source(file);
                    String name = m.group(3);
                    boolean templated = m.group(1).equals("kernel");
                    boolean defined = templated ? src.contains("INSTANTIATE(" + name + ",")
                            : src.contains("extern \"C\" __global__ void " + name + "(");
                    assertTrue(defined, p.getFileName() + " launches " + name + ", not defined in " + file);
                    checked++;
                }
            }
        }
        assertTrue(checked >= 20, "found only " + checked + " kernel launches to check");
    }
}
