package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The kernel sources NVRTC compiles at run time are packaged on the classpath, every kernels/*.cu is listed for
 * loading, and every kernel name the Java side launches is defined as extern "C" in the file it is loaded from.
 */
class KernelSourcesTest {
    @Test
    void everyKernelFileIsPackagedAndListed() throws IOException {
        KernelLibrary.resource(KernelLibrary.HEADER);
        for (String f : KernelLibrary.FILES) {
            String src = KernelLibrary.resource(f);
            assertTrue(src.contains("#include \"common.cuh\""), f + " includes the shared header");
        }
        Path kernels = TestFiles.config().getParent().resolve("kernels");
        try (Stream<Path> files = Files.list(kernels)) {
            files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".cu"))
                    .filter(n -> !n.startsWith("train_"))   // training kernels: io.argus.trainer.cuda.TrainKernels
                    .forEach(n -> assertTrue(KernelLibrary.FILES.contains(n), n + " is not loaded by KernelLibrary"));
        }
    }

    @Test
    void launchedKernelsExistInTheirFiles() throws IOException {
        Path main = TestFiles.config().getParent().resolve("detector/src/main/java/io/argus/detector/cuda");
        Pattern launch = Pattern.compile("\"([a-z_]+\\.cu)\",\\s*(?:[^;]*?\\?\\s*)?\"([a-z0-9_]+)\"(?:\\s*:\\s*\"([a-z0-9_]+)\")?");
        int checked = 0;
        try (Stream<Path> files = Files.list(main)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Matcher m = launch.matcher(Files.readString(p));
                while (m.find()) {
                    String src = KernelLibrary.resource(m.group(1));
                    for (int g = 2; g <= 3; g++) {
                        if (m.group(g) == null) continue;
                        assertTrue(src.contains("extern \"C\" __global__ void " + m.group(g) + "("),
                                p.getFileName() + " launches " + m.group(g) + ", not defined in " + m.group(1));
                        checked++;
                    }
                }
            }
        }
        assertTrue(checked >= 10, "found only " + checked + " kernel launches to check");
    }
}
