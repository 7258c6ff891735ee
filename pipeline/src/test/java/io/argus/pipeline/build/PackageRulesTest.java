package io.argus.pipeline.build;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import io.argus.testkit.Budget;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package rules of the developers' guide, checked on the product's classes as this test finds them on its class
 * path (gpu, detector, trainer, tracking, recording and pipeline; tests left out):
 * <ul>
 * <li>no package cycle in {@code io.argus}: every package is a slice, so a cycle between two packages of one feature
 *     or of one module counts as one between two features or two modules;</li>
 * <li>no product class uses the tools ({@code io.argus.tools}, a jar apart) or the test kit;</li>
 * <li>{@code detector}, {@code trainer}, {@code tracking}, {@code recording} and {@code gpu} are plain Java: neither Vert.x nor the
 *     pipeline; {@code detector} knows nothing of {@code trainer}, {@code gpu} nothing of either;</li>
 * <li>in the pipeline, {@code base} (what every feature shares) and {@code config} (the settings) import no feature,
 *     and nothing but the command line imports {@code app}, the composition root.</li>
 * </ul>
 * A violation names the classes and the dependency. Budget: 10 s (one import of the modules' classes).
 */
@Budget(seconds = 15)
class PackageRulesTest {
    /** Every package of the pipeline but the two lowest ones. */
    private static final String[] PIPELINE_FEATURES = {"io.argus.pipeline.app..", "io.argus.pipeline.camera..",
            "io.argus.pipeline.cli..", "io.argus.pipeline.cluster..", "io.argus.pipeline.doctor..",
            "io.argus.pipeline.events..", "io.argus.pipeline.http..", "io.argus.pipeline.inference..",
            "io.argus.pipeline.publish..", "io.argus.pipeline.recording..", "io.argus.pipeline.training.."};

    private static JavaClasses product;

    /**
     * A module's classes on the class path: {@code <module>/target/classes} in a reactor build, else its jar (the
     * test kit's too: no product class may use it). Named directly rather than found by package, which would open
     * every jar of the class path.
     */
    private static final Pattern MODULE = Pattern.compile(
            ".*[/\\\\](gpu|detector|trainer|tracking|recording|pipeline|testkit)[/\\\\]target[/\\\\]classes[/\\\\]?"
                    + "|.*argus-(gpu|detector|trainer|tracking|recording|pipeline|testkit)-[0-9][^/\\\\]*(?<!-tests)\\.jar");

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
        assertEquals(Set.of("gpu", "detector", "trainer", "tracking", "recording", "pipeline", "testkit"), found,
                "the modules' classes on the class path: " + modules);
        product = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPaths(modules);
    }

    @Test
    void noPackageCycle() {
        check(slices().matching("io.argus.(**)").should().beFreeOfCycles());
    }

    @Test
    void theProductUsesNeitherTheToolsNorTheTestKit() {
        check(noClasses().that().resideOutsideOfPackages("io.argus.tools..", "io.argus.testkit..")
                .should().dependOnClassesThat().resideInAnyPackage("io.argus.tools..", "io.argus.testkit.."));
    }

    @Test
    void thePlainJavaModulesKnowNeitherVertxNorThePipeline() {
        check(noClasses().that().resideInAnyPackage("io.argus.detector..", "io.argus.trainer..", "io.argus.tracking..",
                        "io.argus.recording..", "io.argus.gpu..")
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
