package io.argus.pipeline.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The docs name only classes that exist. {@code README.md}, {@code ARCHITECTURE.md} and {@code docs/*.md} are read;
 * every backticked span that is a reference to a class ({@code CameraOwnership}, {@code cluster/Lease},
 * {@code detector/.../cpu/CpuNetwork}, {@code io.argus.pipeline.perf.LiveRunProbe}, {@code InferenceWorker.swap},
 * {@code Foo.bar()}, {@code Foo#bar}, {@code Outer$Inner}, {@code scripts/fresh/WsProbe.java}) and every CamelCase word
 * of two or more humps inside a fenced block (the flow drawings) names a class, and a file {@code Name.java} must exist
 * somewhere in the repository: in any module, since classes move between modules, or among the scripts. A name that
 * is not ours (the JDK's, a library's, a product's) must be on {@link #NOT_OURS}, with why. A doc that still names a
 * class after it was renamed or removed fails here, naming the doc and the line. Budget: < 2 s (one walk of the tree,
 * build output and {@code .git} skipped).
 */
@Budget(seconds = 5)
class DocsNameRealClassesTest {

    /** Names the docs use that are not classes of this repository, each with why it appears. */
    static final Map<String, String> NOT_OURS = Map.ofEntries(
            // The JDK
            Map.entry("File", "java.io.File: argus doctor reads free space with File.getUsableSpace"),
            Map.entry("Files", "java.nio.file.Files: Files.getFileStore, Files.copy"),
            Map.entry("FileSystem", "java.nio.file.FileSystem: what jdk.zipfs provides"),
            Map.entry("Float", "java.lang.Float.floatToFloat16: the FP16 rounding of the CPU trainer"),
            Map.entry("MessageDigest", "java.security.MessageDigest.isEqual: constant-time token comparison"),
            Map.entry("ClassNotFoundException", "a JVM error the release smoke test looks for"),
            Map.entry("NoClassDefFoundError", "a JVM error the release smoke test looks for"),
            Map.entry("Thread", "java.lang.Thread.sleep: what no test may call for a fixed time (docs/testing.md)"),
            Map.entry("TimeUnit", "java.util.concurrent.TimeUnit's sleep: the same"),
            Map.entry("MemoryCacheImageInputStream", "javax.imageio: how a pack's image is decoded from memory"),
            // Vert.x and Hazelcast
            Map.entry("AsyncMap", "Vert.x's shared map, over Hazelcast IMaps"),
            Map.entry("Buffer", "io.vertx.core.buffer.Buffer: where the derived PKCS#12 identity is held"),
            Map.entry("EventBus", "Vert.x's EventBus.publish"),
            Map.entry("HazelcastClusterManager", "vertx-hazelcast's cluster manager"),
            Map.entry("SubsMapHelper", "vertx-hazelcast's class that republishes subscriptions after a merge"),
            // FFmpeg, JavaCV, JavaCPP
            Map.entry("AVCUDADeviceContext", "FFmpeg's CUDA device context, filled by CudaHwDevice"),
            Map.entry("AVFormatContext", "FFmpeg's demuxer context (its max_delay field)"),
            Map.entry("FFmpegFrameGrabber", "JavaCV's grabber and its global lock"),
            Map.entry("Pointer", "JavaCPP's Pointer.totalBytes(), behind argus_native_bytes"),
            Map.entry("JavaCPP", "the library's name, in a drawing"),
            Map.entry("JavaCV", "the library's name, in a drawing"),
            // Other libraries and products
            Map.entry("KalmanFilter", "Apache Commons Math's filter under KalmanBoxFilter"),
            Map.entry("CodedOutputStream", "protobuf-java's writer, used by the ONNX exporter"),
            Map.entry("OpenBLAS", "the library's name, in a drawing"),
            Map.entry("OpenCV", "the library's name, in a drawing"),
            Map.entry("PyTorch", "the peer's name, in a drawing"),
            Map.entry("SockJS", "the protocol's name, in a drawing"),
            Map.entry("WebSocket", "the protocol's name, in a drawing"),
            Map.entry("IoU", "intersection over union, in a drawing"),
            Map.entry("VmRSS", "the resident set field of /proc/PID/status"),
            // ONNX operators the exporter emits (docs/onnx.md)
            Map.entry("Conv", "an ONNX operator"), Map.entry("Add", "an ONNX operator"),
            Map.entry("Concat", "an ONNX operator"), Map.entry("Mul", "an ONNX operator"),
            Map.entry("Relu", "an ONNX operator"), Map.entry("Resize", "an ONNX operator"),
            Map.entry("Sigmoid", "an ONNX operator"), Map.entry("Slice", "an ONNX operator"),
            Map.entry("NonMaxSuppression", "an ONNX operator"),
            // HTTP
            Map.entry("Host", "the HTTP request header"), Map.entry("Origin", "the HTTP request header"));

    /** A backticked span that refers to a class: an optional package or path, the name, optional members. */
    static final Pattern REFERENCE = Pattern.compile(
            "(?:io\\.argus(?:\\.[a-z0-9_]+)*\\.|(?:[a-z0-9_.]+/)*(?:\\.\\.\\./)?(?:[a-z0-9_]+/)*)?"
                    + "([A-Z][A-Za-z0-9]*)(?:\\.java)?(?:[.#$][A-Za-z_]\\w*)*(?:\\(\\))?");
    /** A CamelCase word of two or more humps, as classes are named in the drawings. */
    static final Pattern CAMEL = Pattern.compile("(?<![\\w.$/-])([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)(?![\\w-])");
    static final Pattern BACKTICKED = Pattern.compile("`([^`\\n]+)`");

    @Test
    void everyClassTheDocsNameExists() throws IOException {
        Path root = repositoryRoot();
        Map<String, List<String>> named = new TreeMap<>();
        for (Path doc : docs(root)) {
            List<String> lines = Files.readAllLines(doc);
            String where = root.relativize(doc).toString();
            classNames(lines).forEach((name, lineNumbers) -> lineNumbers.forEach(
                    n -> named.computeIfAbsent(name, k -> new ArrayList<>()).add(where + ":" + n)));
        }
        // Without this, a broken extractor or a missing docs folder would pass silently.
        assertTrue(named.size() > 200, "the docs name only " + named.size() + " classes: is the extraction broken?");
        assertTrue(named.containsKey("CameraOwnership") && named.containsKey("DeviceContext"),
                "CameraOwnership and DeviceContext, which ARCHITECTURE.md draws, were not found");

        Set<String> classes = javaFileNames(root);
        List<String> missing = named.entrySet().stream()
                .filter(e -> !classes.contains(e.getKey()) && !NOT_OURS.containsKey(e.getKey()))
                .map(e -> e.getKey() + " (" + String.join(", ", e.getValue()) + ")")
                .toList();
        assertEquals(List.of(), missing, "the docs name classes that do not exist (no Name.java in the "
                + "repository): rename them in the doc, or add a name that is not ours to NOT_OURS with why");
    }

    @Test
    void theExtractionTakesEveryFormAReferenceHas() {
        List<String> doc = List.of(
                "`CameraOwnership` and `cluster/Lease`, `detector/.../cpu/CpuNetwork`, `io.argus.pipeline.perf.LiveRunProbe`",
                "`InferenceWorker.swap`, `Nms.sort()`, `KillDuringWriteTest#checkpoint`, `Outer$Inner`, `scripts/fresh/WsProbe.java`",
                "not classes: `argus.yaml`, `OMP_NUM_THREADS`, `README.md`, `Retry-After`, `--vs opencv`, `NHWC`",
                "```",
                "InferenceVerticle ── LatestFrames (one frame) -> ByteTracker(c).update",
                "```",
                "Outside a fence, bare words such as CameraSupervisor are prose, not references.");
        assertEquals(Set.of("CameraOwnership", "Lease", "CpuNetwork", "LiveRunProbe", "InferenceWorker", "Nms",
                        "KillDuringWriteTest", "Outer", "WsProbe", "InferenceVerticle", "LatestFrames", "ByteTracker"),
                classNames(doc).keySet());
        assertEquals(List.of(5), classNames(doc).get("InferenceVerticle"), "line numbers count from 1");
    }

    /** Every class name in a markdown file, with the lines (from 1) it is named on. */
    static Map<String, List<Integer>> classNames(List<String> lines) {
        Map<String, List<Integer>> names = new TreeMap<>();
        boolean fenced = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.stripLeading().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                Matcher m = CAMEL.matcher(line);
                while (m.find()) names.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(i + 1);
                continue;
            }
            Matcher span = BACKTICKED.matcher(line);
            while (span.find()) {
                Matcher m = REFERENCE.matcher(span.group(1).strip());
                // a name with no lower-case letter is a constant, an acronym or a file name like README
                if (m.matches() && m.group(1).chars().anyMatch(Character::isLowerCase)) {
                    names.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(i + 1);
                }
            }
        }
        return names;
    }

    static List<Path> docs(Path root) throws IOException {
        List<Path> docs = new ArrayList<>(List.of(root.resolve("README.md"), root.resolve("ARCHITECTURE.md")));
        try (Stream<Path> s = Files.list(root.resolve("docs"))) {
            docs.addAll(s.filter(p -> p.toString().endsWith(".md")).sorted().toList());
        }
        return docs;
    }

    /** The names of all Java files of the repository, build output and VCS data left out. */
    static Set<String> javaFileNames(Path root) throws IOException {
        Set<String> names = new TreeSet<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
                boolean skip = !dir.equals(root) && (name.equals("target") || name.equals("node_modules")
                        || name.startsWith("."));
                return skip ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                String name = file.getFileName().toString();
                if (name.endsWith(".java")) names.add(name.substring(0, name.length() - ".java".length()));
                return FileVisitResult.CONTINUE;
            }
        });
        return names;
    }

    /** The checkout's root: the first directory upwards from here that holds ARCHITECTURE.md and docs/. */
    static Path repositoryRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("ARCHITECTURE.md")) && Files.isDirectory(p.resolve("docs"))) return p;
        }
        throw new UncheckedIOException(new IOException("no ARCHITECTURE.md above " + Path.of("").toAbsolutePath()));
    }
}
