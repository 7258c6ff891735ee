package io.argus.pipeline.training;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Model;
import io.argus.detector.backends.Detector;
import io.argus.pipeline.config.TrainingConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * The optional teacher: another (usually larger) model whose confident boxes label collected frames until a person
 * annotates them. Its classes are mapped to the student's by name; boxes of classes the student does not have are
 * dropped. Loaded on first use, on the collector's thread, and run on the CPU (collection is rare; inference keeps
 * the GPU).
 */
final class Teacher implements AutoCloseable {
    private final TrainingConfig.Teacher config;
    private final List<String> studentNames;
    private Detector detector;

    Teacher(TrainingConfig.Teacher config, List<String> studentNames) {
        this.config = config;
        this.studentNames = List.copyOf(studentNames);
    }

    List<Detection> label(BgrImage image) {
        if (detector == null) {
            Model m = Model.load(config.cfg(), config.weights(), config.names(), config.width(), config.height());
            detector = Detector.open(m, new Detector.Options(Detector.Backend.CPU, 1,
                    new DetectParams(config.threshold(), 0.45f, null)));
        }
        List<Detection> out = new ArrayList<>();
        for (Detection d : detector.detect(image)) {
            int c = studentNames.indexOf(d.className());
            if (c >= 0 && d.confidence() >= config.threshold()) out.add(new Detection(c, d.className(), 1f, d.box()));
        }
        return out;
    }

    @Override
    public void close() {
        if (detector != null) detector.close();
    }
}
