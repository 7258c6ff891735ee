package io.argus.trainer.data;

import io.argus.detector.BgrImage;
import io.argus.trainer.loss.Truth;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A list of labelled images in Darknet's layout (a list file of image paths, each with its label file). Labels are
 * read and checked up front; images are decoded on first use and kept (the datasets we train on the CPU are small).
 */
public final class Dataset {
    /** One image and its objects. */
    public record Sample(Path image, List<Truth> truths) {}

    private final Path list;
    private final int classes;
    private final List<Sample> samples;
    private final AtomicReferenceArray<BgrImage> decoded;

    private Dataset(Path list, int classes, List<Sample> samples) {
        this.list = list;
        this.classes = classes;
        this.samples = List.copyOf(samples);
        this.decoded = new AtomicReferenceArray<>(samples.size());
    }

    /** Reads a list file: one image path per line, relative to the list's directory (or the working directory). */
    public static Dataset fromList(Path list, int classes) {
        List<String> lines;
        try {
            lines = Files.readAllLines(list, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(list + ": cannot read the image list: " + e.getMessage(), e);
        }
        Path dir = list.toAbsolutePath().getParent();
        List<Sample> samples = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            Path image = DataFile.resolve(dir, line);
            if (!Files.isRegularFile(image)) {
                throw new IllegalArgumentException(list + ":" + (i + 1) + ": image " + line + " not found (looked at "
                        + image + ")");
            }
            Path label = LabelFile.forImage(image);
            List<Truth> truths = Files.isRegularFile(label) ? LabelFile.read(label, classes) : List.of();
            samples.add(new Sample(image, truths));
        }
        if (samples.isEmpty()) throw new IllegalArgumentException(list + ": no images listed");
        return new Dataset(list, classes, samples);
    }

    public Path list() { return list; }

    public int classes() { return classes; }

    public int size() { return samples.size(); }

    public Sample sample(int i) { return samples.get(i); }

    /** The decoded image of sample i (decoded once, then shared; safe from several threads). */
    public BgrImage image(int i) {
        BgrImage img = decoded.get(i);
        if (img == null) {
            img = BgrImage.read(samples.get(i).image());
            decoded.compareAndSet(i, null, img);
        }
        return img;
    }
}
