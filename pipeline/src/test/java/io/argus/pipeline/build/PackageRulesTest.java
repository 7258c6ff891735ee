package io.argus.pipeline.build;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceRule;
import io.argus.testkit.Budget;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package rules of the developers' guide, checked on the product's classes as this test finds them on its class
 * path (gpu, detector, trainer, tracking and pipeline; tests left out):
 * <ul>
 * <li>no package cycle in {@code io.argus}: every package is a slice, so a cycle between two packages of one feature
 *     counts as one between two features (the cycles inside three plain-Java modules are known and left to their
 *     owners: {@link #TANGLED_INSIDE});</li>
 * <li>no product class uses the tools ({@code io.argus.tools}, a jar apart) or the test kit;</li>
 * <li>{@code detector}, {@code trainer}, {@code tracking} and {@code gpu} are plain Java: neither Vert.x nor the
 *     pipeline; {@code detector} knows nothing of {@code trainer}, {@code gpu} nothing of either;</li>
 * <li>in the pipeline, {@code base} (what every feature shares) and {@code config} (the settings) import no feature,
 *     and nothing but the command line imports {@code app}, the composition root.</li>
 * </ul>
 * A violation names the classes and the dependency. Budget: 10 s (one import of the modules' classes).
 */
@Budget(seconds = 10)
class PackageRulesTest {
    /** Every package of the pipeline but the two lowest ones. */
    private static final String[] PIPELINE_FEATURES = {"io.argus.pipeline.app..", "io.argus.pipeline.camera..",
            "io.argus.pipeline.cli..", "io.argus.pipeline.cluster..", "io.argus.pipeline.doctor..",
            "io.argus.pipeline.events..", "io.argus.pipeline.http..", "io.argus.pipeline.inference..",
            "io.argus.pipeline.publish..", "io.argus.pipeline.training.."};

    private static JavaClasses product;

    /**
     * A module's classes on the class path: {@code <module>/target/classes} in a reactor build, else its jar (the
     * test kit's too: no product class may use it). Named directly rather than found by package, which would open
     * every jar of the class path.
     */
    private static final Pattern MODULE = Pattern.compile(
            ".*[/\\\\](gpu|detector|trainer|tracking|pipeline|testkit)[/\\\\]target[/\\\\]classes[/\\\\]?"
                    + "|.*argus-(gpu|detector|trainer|tracking|pipeline|testkit)-[0-9][^/\\\\]*(?<!-tests)\\.jar");

    @BeforeAll
    static void importTheProduct() {
        List<Path> modules = new ArrayList<>();
        Set<String> found = new TreeSet<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Matcher m = MODULE.matcher(entry);
            if (!m.matches()) continue;
            modules.add(Path.of(entry));
            found.add(m.group(1) != null ? m.group(1) : m.group(2));
        }
        // without them every rule would pass on nothing
        assertEquals(Set.of("gpu", "detector", "trainer", "tracking", "pipeline", "testkit"), found,
                "the modules' classes on the class path: " + modules);
        product = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPaths(modules);
    }

    /**
     * Modules whose own packages are in cycles today, left to their owners: detector (its root package with cpu, cuda,
     * nn, post and yuv; cuda with cuda.layers), gpu (with gpu.cudnn), trainer (data with data.pack and with train, nn
     * with optim, parallel with train). A cycle inside one of them is not reported here; any other is, between modules
     * too. Take a module off the list once its cycles are broken: {@link #theModulesListedAsTangledStillAre} says when.
     */
    private static final List<String> TANGLED_INSIDE = List.of("detector", "gpu", "trainer");

    @Test
    void noPackageCycle() {
        SliceRule rule = slices().matching("io.argus.(**)").should().beFreeOfCycles();
        for (String module : TANGLED_INSIDE) {
            DescribedPredicate<JavaClass> inside = JavaClass.Predicates.resideInAPackage("io.argus." + module + "..");
            rule = rule.ignoreDependency(inside, inside);
        }
        check(rule);
    }

    @Test
    void theModulesListedAsTangledStillAre() {
        Map<String, Set<String>> arrows = packageArrows();
        for (String module : TANGLED_INSIDE) {
            String root = "io.argus." + module;
            boolean tangled = arrows.entrySet().stream().anyMatch(a -> inModule(a.getKey(), root)
                    && a.getValue().stream().anyMatch(to -> inModule(to, root) && reaches(arrows, to, a.getKey(), root)));
            assertTrue(tangled, root + " has no package cycle any more: take it off TANGLED_INSIDE, so that a new cycle"
                    + " there fails this test");
        }
    }

    /** Package to the packages its classes use, within io.argus. */
    private static Map<String, Set<String>> packageArrows() {
        Map<String, Set<String>> arrows = new HashMap<>();
        for (JavaClass c : product) {
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String to = d.getTargetClass().getPackageName();
                if (to.startsWith("io.argus.") && !to.equals(c.getPackageName())) {
                    arrows.computeIfAbsent(c.getPackageName(), k -> new HashSet<>()).add(to);
                }
            }
        }
        return arrows;
    }

    /** Whether {@code to} is reached from {@code from} through packages of the module {@code root}. */
    private static boolean reaches(Map<String, Set<String>> arrows, String from, String to, String root) {
        Set<String> seen = new HashSet<>();
        Deque<String> next = new ArrayDeque<>(List.of(from));
        while (!next.isEmpty()) {
            String p = next.pop();
            if (p.equals(to)) return true;
            if (!seen.add(p)) continue;
            for (String q : arrows.getOrDefault(p, Set.of())) if (inModule(q, root)) next.push(q);
        }
        return false;
    }

    private static boolean inModule(String pkg, String root) { return pkg.equals(root) || pkg.startsWith(root + "."); }

    @Test
    void theProductUsesNeitherTheToolsNorTheTestKit() {
        check(noClasses().that().resideOutsideOfPackages("io.argus.tools..", "io.argus.testkit..")
                .should().dependOnClassesThat().resideInAnyPackage("io.argus.tools..", "io.argus.testkit.."));
    }

    @Test
    void thePlainJavaModulesKnowNeitherVertxNorThePipeline() {
        check(noClasses().that().resideInAnyPackage("io.argus.detector..", "io.argus.trainer..", "io.argus.tracking..",
                        "io.argus.gpu..")
                .should().dependOnClassesThat().resideInAnyPackage("io.vertx..", "io.netty..", "com.hazelcast..",
                        "io.argus.pipeline.."));
        check(noClasses().that().resideInAPackage("io.argus.detector..")
                .should().dependOnClassesThat().resideInAPackage("io.argus.trainer.."));
        check(noClasses().that().resideInAPackage("io.argus.gpu..")
                .should().dependOnClassesThat().resideInAnyPackage("io.argus.detector..", "io.argus.trainer.."));
    }

    @Test
    void baseAndConfigImportNoFeature() {
        check(noClasses().that().resideInAnyPackage("io.argus.pipeline.base..", "io.argus.pipeline.config..")
                .should().dependOnClassesThat().resideInAnyPackage(PIPELINE_FEATURES));
    }

    @Test
    void onlyTheCommandLineImportsTheCompositionRoot() {
        check(noClasses().that().resideInAPackage("io.argus.pipeline..")
                .and().resideOutsideOfPackages("io.argus.pipeline.app..", "io.argus.pipeline.cli..")
                .should().dependOnClassesThat().resideInAPackage("io.argus.pipeline.app.."));
    }

    private static void check(ArchRule rule) {
        rule.check(product);
    }
}
