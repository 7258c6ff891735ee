package io.argus.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.Model;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.trainer.data.DataFile;
import io.argus.trainer.data.Dataset;
import io.argus.trainer.data.SyntheticScenes;
import io.argus.trainer.eval.Evaluator;
import io.argus.trainer.train.IterationStats;
import io.argus.trainer.train.TrainingRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proof (a): the demo model (config/models/demo.cfg, yolov4-tiny's layout at a quarter of its widths, 128x128) trained
 * from scratch on the CPU on the synthetic dataset reaches mAP@0.5 >= 0.9 on its validation split. The run is the one
 * docs/training.md gives for config/models/demo.weights: dataset seed 7, 2000 images, training seed 1, the cfg's
 * schedule. A second test checks the shipped demo.weights against the same validation split.
 */
class DemoModelTest {
    static final int IMAGES = 2000;
    static final long DATASET_SEED = 7;
    static final long TRAINING_SEED = 1;

    @TempDir
    Path dir;

    @Test
    void demoModelTrainsFromScratchToMap50AboveNinety() {
        long start = System.nanoTime();
        Path data = SyntheticScenes.write(dir.resolve("synth"), IMAGES, DATASET_SEED, 128, 0.1);
        System.out.printf(Locale.ROOT, "dataset: %d images in %.1f s%n", IMAGES, (System.nanoTime() - start) / 1e9);
        TrainingRun.Result r = TrainingRun.run(new TrainingRun.Options(ProjectFiles.demoCfg(), null, data, 0,
                dir.resolve("out"), 1000, false, TRAINING_SEED, 0, false), new TrainingRun.Listener() {
            @Override
            public void onStart(String description) {
                System.out.println(description);
            }

            @Override
            public void onIteration(IterationStats s) {
                if (s.iteration() % 250 == 0) {
                    System.out.printf(Locale.ROOT, "%d/%d loss %.3f (box %.3f obj %.3f cls %.3f) lr %.5f %.0f img/s%n",
                            s.iteration(), s.maxBatches(), s.lossPerImage().total(), s.lossPerImage().box(),
                            s.lossPerImage().objectness(), s.lossPerImage().classification(), s.learningRate(),
                            s.imagesPerSecond());
                }
            }
        });
        Evaluator.Result result = evaluate(r.weights(), data);
        System.out.printf(Locale.ROOT, "demo model after %d iterations (%.0f s in all): mAP@0.5 = %.4f, "
                        + "mAP@0.5:0.95 = %.4f on %d images, %d objects%n", r.iterations(),
                (System.nanoTime() - start) / 1e9, result.map50(), result.map50to95(), result.images(),
                result.truths());
        assertTrue(result.map50() >= 0.9, "mAP@0.5 " + result.map50() + " < 0.9");
    }

    @Test
    void shippedDemoWeightsReachTheirMap() {
        Path weights = ProjectFiles.demoWeights();
        assertTrue(Files.isRegularFile(weights), "config/models/demo.weights is shipped");
        assertTrue(weights.toFile().length() < 5_000_000, "demo.weights under 5 MB");
        // the validation split is the last tenth of the scenes; each scene depends only on (seed, index)
        int first = IMAGES - IMAGES / 10;
        List<SyntheticScenes.Scene> val = new ArrayList<>();
        for (int i = first; i < IMAGES; i++) val.add(SyntheticScenes.render(128, 128, DATASET_SEED, i));
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.demoCfg());
        Model model = new Model(spec, WeightsFile.read(weights, spec), Model.readNames(ProjectFiles.demoNames()));
        Evaluator.Result result = Evaluator.evaluate(model, val.size(),
                i -> BgrImage.fromBufferedImage(val.get(i).image()), i -> val.get(i).truths(), 8);
        System.out.printf(Locale.ROOT, "shipped demo.weights: mAP@0.5 = %.4f, mAP@0.5:0.95 = %.4f%n", result.map50(),
                result.map50to95());
        assertEquals(SyntheticScenes.CLASSES, Model.readNames(ProjectFiles.demoNames()));
        assertTrue(result.map50() >= 0.9, "mAP@0.5 " + result.map50() + " < 0.9");
    }

    static Evaluator.Result evaluate(Path weights, Path data) {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.demoCfg());
        DataFile d = DataFile.read(data);
        Model model = new Model(spec, WeightsFile.read(weights, spec), Model.readNames(ProjectFiles.demoNames()));
        return Evaluator.evaluate(model, Dataset.fromList(d.requireValid(), d.classes()), 8);
    }
}
