package io.argus.gpu;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Without a GPU: every kernels/*.cu is packaged with the runtime and includes the shared header, our other headers
 * are inlined (NVRTC only gets common.cuh), and every kernel the Java code of any module launches exists in the file
 * it is launched from: as extern "C" for a plain launch, as both type instances (INSTANTIATE) for a typed one.
 */
@Budget(seconds = 5)
class KernelSourcesTest {
    /** {@code KernelLaunch.of(lib, FILE, "name" [: "other"], type)} or the trainer's {@code kernel(FILE, "name")}. */
    private static final Pattern LAUNCH = Pattern.compile(
            "(?:KernelLaunch\\.of\\([^,]+,|(kernel|plainKernel)\\()\\s*(\"[a-z_]+\\.cu\"|[A-Z_]+),\\s*"
                    + "(?:[^;\"]*?\\?\\s*)?\"([a-z0-9_]+)\"(?:\\s*:\\s*\"([a-z0-9_]+)\")?\\s*(,|\\))");
    private static final Pattern CONSTANT = Pattern.compile("static final String ([A-Z_]+) = \"([a-z_]+\\.cu)\"");

    static Path root() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("kernels"))) p = p.getParent();
        if (p == null) throw new IllegalStateException("no kernels/ above " + Path.of("").toAbsolutePath());
        return p;
    }

    @Test
    void everyKernelFileIsPackagedAndSelfContained() throws IOException {
        KernelLibrary.resource(KernelLibrary.HEADER);
        int files = 0;
        try (Stream<Path> list = Files.list(root().resolve("kernels"))) {
            for (Path p : (Iterable<Path>) list::iterator) {
                String name = p.getFileName().toString();
                if (!name.endsWith(".cu")) continue;
                String src = KernelLibrary.source(name);
                assertTrue(src.contains("#include \"common.cuh\""), name + " includes the shared header");
                assertFalse(src.matches("(?s).*#include \"(?!common\\.cuh)[a-z_]+\\.cuh\".*"),
                        name + ": our other headers are inlined");
                files++;
            }
        }
        assertTrue(files >= 8, "found only " + files + " kernel files");
    }

    @Test
    void launchedKernelsExistInTheirFiles() throws IOException {
        int checked = 0;
        for (String module : List.of("gpu", "detector", "trainer", "pipeline")) {
            Path main = root().resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(main)) continue;
            try (Stream<Path> walk = Files.walk(main)) {
                for (Path p : (Iterable<Path>) walk.filter(f -> f.toString().endsWith(".java"))::iterator) {
                    String java = Files.readString(p);
                    Matcher m = LAUNCH.matcher(java);
                    while (m.find()) {
                        String file = file(m.group(2), java, p);
                        boolean typed = "kernel".equals(m.group(1)) || ",".equals(m.group(5));
                        String src = KernelLibrary.source(file);
                        for (int g = 3; g <= 4; g++) {
                            String name = m.group(g);
                            if (name == null) continue;
                            boolean defined = typed ? src.contains("INSTANTIATE(" + name + ",")
                                    : src.contains("extern \"C\" __global__ void " + name + "(");
                            assertTrue(defined, p.getFileName() + " launches " + name + (typed ? " (typed)" : "")
                                    + ", not defined in " + file);
                            checked++;
                        }
                    }
                }
            }
        }
        assertTrue(checked >= 30, "found only " + checked + " kernel launches to check");
    }

    private static String file(String token, String java, Path p) {
        if (token.startsWith("\"")) return token.substring(1, token.length() - 1);
        Matcher c = CONSTANT.matcher(java);
        while (c.find()) if (c.group(1).equals(token)) return c.group(2);
        throw new AssertionError(p.getFileName() + ": no constant " + token + " naming a .cu file");
    }
}
