package io.argus.trainer.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.CfgException;
import io.argus.detector.darknet.CfgFile;
import io.argus.detector.darknet.CfgSection;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.testkit.Budget;
import io.argus.trainer.ProjectFiles;
import io.argus.trainer.data.Augmentation;
import io.argus.trainer.precision.LossScaler;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@link TrainingKeys} against the parser, the shipped cfgs, docs/training.md and the tests it names: every key the
 * parser reads has its row, every row's tests exist, the docs hold the generated table, and a key training would not
 * honour is refused with its value and line.
 */
@Budget(seconds = 5)
class TrainingKeysTest {
    static final String START = "<!-- training-keys:start -->";
    static final String END = "<!-- training-keys:end -->";
    /** Set to rewrite docs/training.md's table from the code instead of comparing. */
    static final String WRITE = "argus.trainingKeys.write";

    static final List<String> SHIPPED = List.of("yolov3", "yolov3-tiny", "yolov4", "yolov4-tiny", "yolov4-tiny-3l",
            "yolov4-csp", "yolov7-tiny");

    /** A network with one section of every kind, so that the parser asks for every key it knows. */
    static final String EVERY_KIND = """
            [net]
            width=16
            height=16
            channels=3
            [convolutional]
            filters=8
            size=3
            pad=1
            activation=leaky
            [maxpool]
            size=2
            stride=2
            [convolutional]
            filters=8
            size=1
            activation=leaky
            [shortcut]
            from=-2
            [route]
            layers=-1
            groups=2
            group_id=0
            [upsample]
            stride=2
            [route]
            layers=-1,0
            [convolutional]
            filters=21
            size=1
            activation=linear
            [yolo]
            mask=0,1,2
            anchors=2,2, 4,4, 8,8
            classes=2
            num=3
            """;

    @Test
    void theTableListsExactlyTheKeysTheParserReads() {
        List<CfgSection> sections = CfgFile.parse(Path.of("every-kind.cfg"), EVERY_KIND);
        NetworkSpec.fromSections(Path.of("every-kind.cfg"), sections);
        Map<String, Set<String>> parser = new TreeMap<>();
        for (CfgSection s : sections) parser.computeIfAbsent(s.name(), k -> new TreeSet<>()).addAll(s.readKeys());
        Map<String, Set<String>> table = new TreeMap<>();
        for (TrainingKeys.Key k : TrainingKeys.keys()) {
            table.computeIfAbsent(k.section(), s -> new TreeSet<>()).add(k.name());
        }
        assertEquals(parser, table, "the parser's keys by section kind (left) against TrainingKeys (right)");
    }

    @Test
    void theDocsHoldTheGeneratedTable() throws IOException {
        Path docs = ProjectFiles.home().resolve("docs/training.md");
        String text = Files.readString(docs, StandardCharsets.UTF_8);
        int start = text.indexOf(START);
        int end = text.indexOf(END);
        assertTrue(start >= 0 && end > start, docs + " holds " + START + " ... " + END);
        String generated = "\n" + TrainingKeys.markdown();
        if (Boolean.getBoolean(WRITE)) {
            text = text.substring(0, start + START.length()) + generated + text.substring(end);
            Files.writeString(docs, text, StandardCharsets.UTF_8);
            end = text.indexOf(END);
        }
        assertEquals(generated, text.substring(start + START.length(), end), docs + "'s table is not the one "
                + "TrainingKeys.markdown() generates: rerun this test with -D" + WRITE + "=true to rewrite it");
    }

    @Test
    void everyTestTheTableNamesExists() throws IOException {
        Map<String, Path> testFiles = new TreeMap<>();
        Path home = ProjectFiles.home();
        for (String module : List.of("trainer", "detector")) {
            try (Stream<Path> files = Files.walk(home.resolve(module).resolve("src/test/java"))) {
                files.filter(p -> p.toString().endsWith("Test.java"))
                        .forEach(p -> testFiles.put(p.getFileName().toString().replace(".java", ""), p));
            }
        }
        List<String> missing = new ArrayList<>();
        for (TrainingKeys.Key k : TrainingKeys.keys()) {
            assertFalse(k.status() == TrainingKeys.Status.HONOURED && TrainingKeys.testsOf(k).isEmpty(),
                    k.name() + " is honoured without a test");
            for (String test : TrainingKeys.testsOf(k)) {
                String[] parts = test.split("#");
                Path file = testFiles.get(parts[0]);
                if (file == null) {
                    missing.add(test);
                } else if (parts.length > 1 && !Files.readString(file).contains(" " + parts[1] + "(")) {
                    missing.add(test + " (no such method in " + file.getFileName() + ")");
                }
            }
        }
        // multi-scale training and its test come from their own branch; its row names the test ahead of it
        missing.remove("MultiScaleTrainingTest");
        assertEquals(List.of(), missing, "tests the table names that do not exist");
    }

    @Test
    void everyKeyOfTheShippedCfgsAndTheDemosIsInTheTableAndTrainingTakesThem() {
        List<Path> cfgs = new ArrayList<>();
        for (String name : SHIPPED) cfgs.add(ProjectFiles.home().resolve("config/models/cfg/" + name + ".cfg"));
        cfgs.add(ProjectFiles.demoCfg());
        for (Path cfg : cfgs) {
            String name = cfg.getFileName().toString();
            NetworkSpec spec = NetworkSpec.load(cfg);
            assertEquals(List.of(), spec.warnings(), name + ": keys the parser does not read");
            for (CfgSection s : CfgFile.read(cfg)) {
                for (String key : s.entries().keySet()) {
                    assertNotNull(TrainingKeys.find(s.name(), key), name + ": [" + s.name() + "] " + key);
                }
            }
            TrainingKeys.check(cfg);
        }
    }

    @Test
    void aRotationIsRefusedNamingTheKeyTheValueAndTheLine() {
        String cfg = EVERY_KIND.replace("channels=3\n", "channels=3\nangle=5\n");
        NetworkSpec.parse(Path.of("rotated.cfg"), cfg, 0, 0);   // inference takes it
        CfgException e = assertThrows(CfgException.class,
                () -> TrainingKeys.check(CfgFile.parse(Path.of("rotated.cfg"), cfg)));
        assertEquals("rotated.cfg:5: [net] angle=5: training honours only 0: images are not rotated (Darknet's"
                + " detector training does not rotate them either)", e.getMessage());
    }

    @Test
    void everyRestrictedKeyRefusesItsExampleNamingKeyValueAndLine() {
        List<String> restricted = new ArrayList<>();
        for (TrainingKeys.Key k : TrainingKeys.keys()) {
            if (k.only() == null) continue;
            restricted.add(k.name());
            String value = k.only().refusedExample();
            String header = "[" + k.section() + "]\n";
            String cfg = EVERY_KIND.replaceFirst("(?m)^" + k.name() + "=.*\n", "")
                    .replace(header, header + k.name() + "=" + value + "\n");
            int line = EVERY_KIND.substring(0, EVERY_KIND.indexOf(header)).split("\n", -1).length + 1;
            NetworkSpec.parse(Path.of("r.cfg"), cfg, 0, 0);   // the parser takes the value
            CfgException e = assertThrows(CfgException.class,
                    () -> TrainingKeys.check(CfgFile.parse(Path.of("r.cfg"), cfg)), k.name());
            assertTrue(e.getMessage().startsWith("r.cfg:" + line + ": " + header.strip() + " " + k.name() + "="
                    + value + ": training honours only " + k.only().values() + ": "), e.getMessage());
        }
        assertEquals(List.of("channels", "policy", "angle", "resize"), restricted);
    }

    @Test
    void aKeyTheParserDoesNotReadIsRefusedForTrainingAndOnlyWarnedForInference() {
        String cfg = EVERY_KIND.replace("num=3\n", "num=3\ncounters_per_class=5,7\n");
        assertEquals(1, NetworkSpec.parse(Path.of("u.cfg"), cfg, 0, 0).warnings().size());
        CfgException e = assertThrows(CfgException.class,
                () -> TrainingKeys.check(CfgFile.parse(Path.of("u.cfg"), cfg)));
        assertEquals("u.cfg:36: [yolo] counters_per_class=5,7: not a key Argus reads; training refuses it rather than"
                + " train as if it were absent", e.getMessage());
    }

    @Test
    void netKeysReachWhatTrainingReads() {
        String keys = """
                batch=8
                subdivisions=2
                learning_rate=0.02
                momentum=0.8
                decay=0.001
                burn_in=5
                power=3
                max_batches=77
                policy=%s
                steps=10,20
                scales=.5,.2
                gamma=0.7
                step=9
                saturation=1.7
                exposure=1.3
                hue=.2
                flip=0
                mosaic=1
                ema_alpha=0.999
                initial_loss_scale=8
                max_loss_scale=64
                min_loss_scale=0.5
                loss_scale_inc_iterations=7
                letter_box=1
                """;
        NetworkSpec steps = NetworkSpec.parse(Path.of("k.cfg"),
                EVERY_KIND.replace("[net]\n", "[net]\n" + keys.formatted("steps")), 0, 0);
        TrainingPlan plan = TrainingPlan.of(steps, 0);
        assertEquals(8, plan.batch());
        assertEquals(2, plan.subdivisions());
        assertEquals(77, plan.maxBatches());
        assertEquals(0.8f, plan.momentum());
        assertEquals(0.001f, plan.decay());
        assertEquals(0.999f, plan.emaAlpha());
        assertEquals(0.02 * Math.pow(0.2, 3), plan.learningRate().at(1), 1e-9, "burn_in, power");
        assertEquals(0.02 * 0.5, plan.learningRate().at(10), 1e-9, "steps, scales");
        assertEquals(0.02 * 0.5 * 0.2, plan.learningRate().at(20), 1e-9);
        NetworkSpec sig = NetworkSpec.parse(Path.of("k.cfg"),
                EVERY_KIND.replace("[net]\n", "[net]\n" + keys.formatted("sig")), 0, 0);
        assertEquals(0.01, TrainingPlan.of(sig, 0).learningRate().at(9), 1e-9, "sig at its step");
        assertEquals(0.02 / (1 + Math.exp(0.7)), TrainingPlan.of(sig, 0).learningRate().at(10), 1e-9, "gamma");
        NetworkSpec exp = NetworkSpec.parse(Path.of("k.cfg"),
                EVERY_KIND.replace("[net]\n", "[net]\n" + keys.formatted("exp")), 0, 0);
        assertEquals(0.02 * Math.pow(0.7, 6), TrainingPlan.of(exp, 0).learningRate().at(6), 1e-9, "exp");
        assertEquals(new Augmentation(0.2f, 0.2f, 1.7f, 1.3f, false, true, 1f, true), Augmentation.of(steps));

        LossScaler scaler = LossScaler.of(steps.net().training());
        assertEquals(8, scaler.scale(), "initial_loss_scale");
        for (int i = 0; i < 6; i++) scaler.accept(false);
        assertEquals(8, scaler.scale());
        scaler.accept(false);
        assertEquals(16, scaler.scale(), "doubled after loss_scale_inc_iterations clean steps");
        for (int i = 0; i < 10; i++) scaler.accept(true);
        assertEquals(0.5f, scaler.scale(), "min_loss_scale");
        for (int i = 0; i < 100; i++) scaler.accept(false);
        assertEquals(64, scaler.scale(), "max_loss_scale");
    }

    private static int line(Path cfg, String text) {
        try {
            List<String> lines = Files.readAllLines(cfg);
            for (int i = 0; i < lines.size(); i++) if (lines.get(i).strip().equals(text)) return i + 1;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        throw new AssertionError(cfg + " has no line " + text);
    }
}
