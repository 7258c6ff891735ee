package io.argus.trainer.data;

import io.argus.detector.BgrImage;
import io.argus.trainer.data.pack.PackReader;
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
 * A list of labelled images in Darknet's layout (a list file of image paths, each with its label file), or a packed
 * dataset (`argus dataset pack`: the same in a few memory-mapped shards, {@link PackReader}). Labels are read and
 * checked up front; images are decoded on first use and kept (the datasets we train on the CPU are small).
 */
public final class Dataset {
    /** One image and its objects. */
    public record Sample(Path image, List<Truth> truths) {}

    private final Path list;
    private final int classes;
    private final List<Sample> samples;
    private final AtomicReferenceArray<BgrImage> decoded;
    private final PackReader pack;   // null for a list

    private Dataset(Path list, int classes, List<Sample> samples, PackReader pack) {
        this.list = list;
        this.classes = classes;
        this.samples = List.copyOf(samples);
        this.decoded = new AtomicReferenceArray<>(samples.size());
        this.pack = pack;
    }

    /** A packed dataset's folder ({@link PackReader#isPack}) or a list file, as a .data file's train= or valid= names. */
    public static Dataset open(Path listOrPack, int classes) {
        return PackReader.isPack(listOrPack) ? fromPack(listOrPack, classes) : fromList(listOrPack, classes);
    }

    /** A packed dataset; its class count must be {@code classes}. */
    public static Dataset fromPack(Path dir, int classes) {
        PackReader pack = PackReader.open(dir);
        if (pack.classes() != classes) {
            throw new IllegalArgumentException(dir + ": packed with " + pack.classes() + " classes, expected " + classes);
        }
        List<Sample> samples = new ArrayList<>(pack.size());
        for (int i = 0; i < pack.size(); i++) samples.add(new Sample(Path.of(pack.name(i)), pack.truths(i)));
        return new Dataset(dir, classes, samples, pack);
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
        return new Dataset(list, classes, samples, null);
    }

    public Path list() { return list; }

    public int classes() { return classes; }

    public int size() { return samples.size(); }

    public Sample sample(int i) { return samples.get(i); }

    /** Whether this dataset is read from a pack. */
    public boolean packed() { return pack != null; }

    /** Sample i's image path: as listed in the pack, or relative to the list's folder when it lies below it. */
    public String name(int i) {
        if (pack != null) return pack.name(i);
        Path image = samples.get(i).image();
        Path dir = list.toAbsolutePath().getParent();
        Path abs = image.toAbsolutePath().normalize();
        return abs.startsWith(dir) ? dir.relativize(abs).toString() : abs.toString();
    }

    /** Sample i's image file as stored (PNG, JPEG...), undecoded. */
    public byte[] imageBytes(int i) {
        if (pack != null) {
            java.nio.ByteBuffer b = pack.image(i);
            byte[] out = new byte[b.remaining()];
            b.get(out);
            return out;
        }
        try {
            return Files.readAllBytes(samples.get(i).image());
        } catch (IOException e) {
            throw new UncheckedIOException(samples.get(i).image() + ": " + e.getMessage(), e);
        }
    }

    /** The decoded image of sample i (decoded once, then shared; safe from several threads). */
    public BgrImage image(int i) {
        BgrImage img = decoded.get(i);
        if (img == null) {
            img = pack != null ? decode(i) : BgrImage.read(samples.get(i).image());
            decoded.compareAndSet(i, null, img);
        }
        return img;
    }

    private BgrImage decode(int i) {
        try {
            java.awt.image.BufferedImage b = javax.imageio.ImageIO.read(new java.io.ByteArrayInputStream(imageBytes(i)));
            if (b == null) throw new IllegalArgumentException(list + ": sample " + i + " (" + name(i) + ") is not a readable image");
            return BgrImage.fromBufferedImage(b);
        } catch (IOException e) {
            throw new UncheckedIOException(list + ": sample " + i + " (" + name(i) + "): " + e.getMessage(), e);
        }
    }
}
