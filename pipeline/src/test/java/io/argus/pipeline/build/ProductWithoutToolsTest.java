package io.argus.pipeline.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * The product (gpu, detector, trainer, tracking, pipeline: the jars of the release's lib/) holds no benchmark, peer
 * or evaluation class: those are the tools' (argus-tools, io.argus.tools), a jar apart. Scans the product's classes as
 * this test finds them on its class path (each module's target/classes in a reactor build, else its jar) for the tools'
 * package, packages named bench, perf or peers, tracking evaluation, the classes that moved to tools, any
 * {@code *Bench}, {@code *Benchmark} or {@code *Peer} class and the tools' service registration, and names every one
 * found. Budget: under 2 s.
 */
@Budget(seconds = 5)
class ProductWithoutToolsTest {
    private static final List<String> PRODUCT_MODULES = List.of("gpu", "detector", "trainer", "tracking", "pipeline");

    /** What moved to the tools module, by simple name: none may come back under another package. */
    private static final Set<String> TOOL_CLASSES = Set.of(
            // detector and trainer benchmarks, the stand-in loss and the loss curves
            "CudaBench", "GpuScalingBench", "CudaTrainBench", "LoaderBench", "StandInLoss", "LossCurves",
            // the live pipeline's and the cluster's benchmarks
            "PipelineBenchmark", "DecodeCeiling", "DeviceSampler", "LiveRunProbe", "ThreadCpu", "ThreadStates",
            "ClusterBenchmark", "ClusterSoak", "DetectionTap", "NodeProcess", "PublisherCheck",
            // the peers
            "Peer", "OpenCvPeer", "OnnxRuntimePeer", "OpenVinoPeer", "DarknetPeer",
            // tracking evaluation and the synthetic tracking video
            "ClearMot", "Hota", "Idf1", "LineCounts", "MaxScoreAssignment", "MotDataset", "MotFile", "MotRow",
            "MotSequence", "SceneFile", "ScriptedObject", "ScriptedPath", "TrackEval", "TrackingScores",
            "TrackingScript", "TrackingVideo", "VisibilityMeter",
            // their commands
            "BenchCommand", "BenchPipelineCommand", "BenchTrainCommand", "BenchLoaderCommand", "BenchClusterCommand",
            "BenchClusterSoakCommand", "EvalTrackCommand", "DatasetTrackingCommand", "DatasetFramesCommand",
            "ToolCommands");

    /** A module's classes: {@code <module>/target/classes}, or its jar {@code argus-<module>-<version>.jar}. */
    private static final Pattern MODULE_DIR = Pattern.compile(".*[/\\\\]([a-z]+)[/\\\\]target[/\\\\]classes[/\\\\]?");
    private static final Pattern MODULE_JAR = Pattern.compile("argus-([a-z]+)-[0-9][^/\\\\]*(?<!-tests)\\.jar");

    @Test
    void theProductHoldsNoToolClass() throws IOException {
        long t0 = System.nanoTime();
        TreeMap<String, Path> modules = new TreeMap<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            Matcher dir = MODULE_DIR.matcher(entry), jar = MODULE_JAR.matcher(p.getFileName().toString());
            if (dir.matches() && PRODUCT_MODULES.contains(dir.group(1)) && Files.isDirectory(p)) modules.put(dir.group(1), p);
            else if (jar.matches() && PRODUCT_MODULES.contains(jar.group(1))) modules.putIfAbsent(jar.group(1), p);
        }
        List<String> found = new ArrayList<>();
        int scanned = 0;
        for (var m : modules.entrySet()) {
            for (String name : entries(m.getValue())) {
                scanned++;
                String why = toolPart(name);
                if (why != null) found.add(m.getKey() + ": " + name + " (" + why + ")");
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        System.out.printf("product without tools: %d entries of %s scanned in %.2f s%n", scanned, modules.keySet(), seconds);
        assertTrue(found.isEmpty(), found.size() + " tool entries in the product:\n  " + String.join("\n  ", found));
        assertEquals(new TreeSet<>(PRODUCT_MODULES), modules.navigableKeySet(),
                "the product's modules on this test's class path: " + modules);
        assertTrue(scanned > 500, "scanned only " + scanned + " entries of " + modules);
    }

    /** Why an entry of a product jar belongs to the tools, or null when it does not. */
    static String toolPart(String name) {
        if (name.startsWith("io/argus/tools/")) return "the tools' package";
        if (name.equals("META-INF/services/io.argus.pipeline.cli.ExtraCommands")) return "the tools' commands registered";
        List<String> folders = List.of(name.split("/")).subList(0, name.split("/").length - 1);
        for (String f : List.of("bench", "perf", "peers")) if (folders.contains(f)) return "a folder named " + f;
        int tracking = folders.indexOf("tracking");
        if (tracking >= 0 && folders.subList(tracking, folders.size()).contains("eval")) return "tracking evaluation";
        if (!name.endsWith(".class")) return null;
        String simple = name.substring(name.lastIndexOf('/') + 1, name.length() - ".class".length());
        int nested = simple.indexOf('$');
        String outer = nested >= 0 ? simple.substring(0, nested) : simple;
        if (TOOL_CLASSES.contains(outer)) return "moved to tools";
        if (outer.endsWith("Bench") || outer.endsWith("Benchmark") || outer.endsWith("Peer")) return "a benchmark or peer";
        return null;
    }

    private static List<String> entries(Path classes) throws IOException {
        if (Files.isDirectory(classes)) {
            try (Stream<Path> files = Files.walk(classes)) {
                return files.filter(Files::isRegularFile).map(f -> classes.relativize(f).toString().replace(File.separatorChar, '/')).toList();
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
        }
        try (ZipFile zip = new ZipFile(classes.toFile())) {
            return zip.stream().filter(e -> !e.isDirectory()).map(ZipEntry::getName).toList();
        }
    }

    /** The rules themselves, on names of what moved and of what stays. */
    @Test
    void theRulesTellToolsFromProduct() {
        for (String tool : List.of("io/argus/tools/cli/BenchCommand.class", "io/argus/detector/bench/CudaBench.class",
                "io/argus/pipeline/perf/cluster/NodeProcess.class", "io/argus/pipeline/bench/OpenCvPeer.class",
                "io/argus/pipeline/tracking/eval/Hota.class", "io/argus/tracking/eval/MotFile.class",
                "io/argus/gpu/kernels/bench/standin_loss.cu", "peers/darknet_bench.c",
                "io/argus/pipeline/cli/BenchTrainCommand$1.class", "io/argus/trainer/cuda/LayerBenchmark.class",
                "META-INF/services/io.argus.pipeline.cli.ExtraCommands")) {
            assertTrue(toolPart(tool) != null, tool);
        }
        for (String product : List.of("io/argus/trainer/eval/Evaluator.class", "io/argus/pipeline/cli/EvalCommand.class",
                "io/argus/tracking/ByteTracker.class", "io/argus/gpu/kernels/yolo.cu", "webroot/index.html",
                "io/argus/pipeline/cli/ToolsAbsent.class", "io/argus/pipeline/cli/ExtraCommands.class")) {
            assertEquals(null, toolPart(product), product);
        }
    }
}
