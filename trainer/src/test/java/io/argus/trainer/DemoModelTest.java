package io.argus.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.Model;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.testkit.Budget;
import io.argus.trainer.data.SyntheticScenes;
import io.argus.trainer.eval.Evaluator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The shipped demo.weights (config/models/demo.cfg, yolov4-tiny's layout at a quarter of its widths, 128x128) reach
 * mAP@0.5 >= 0.9 on the synthetic dataset's validation split (dataset seed 7, 2000 images). Proof (a), the same model
 * trained from scratch to that mAP (8,000 iterations, half an hour on a loaded 2-core machine), is a long run apart:
 * {@code scripts/demo-model.sh} (docs/testing.md, "Long runs").
 */
@Budget(seconds = 2850)
class DemoModelTest {
    static final int IMAGES = 2000;
    static final long DATASET_SEED = 7;

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
}
