package io.argus.trainer.data;

import io.argus.detector.BgrImage;
import io.argus.trainer.loss.Truth;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import javax.imageio.ImageIO;
import javax.imageio.stream.MemoryCacheImageInputStream;

/**
 * A list of labelled images in Darknet's layout (a list file of image paths, each with its label file), or a packed
 * dataset (`argus dataset pack`: the same in a few memory-mapped shards, {@link PackReader}). Labels are read and
 * checked up front. Images are decoded when used; a decoded image is kept while the kept ones fit the dataset's
 * budget of decoded bytes ({@link #DEFAULT_DECODED_BUDGET}: a quarter of the heap), and decoded again at every use
 * beyond it. A small dataset (the CPU's) is decoded once; a large one (COCO decoded is ~100 GB) keeps what fits and
 * reads the rest from the page cache (a pack's mapped shards, or the files of a list) and decodes it per use.
 * Whether an image was kept changes nothing but time: decoding is deterministic.
 */
public final class Dataset {
    /** Decoded bytes kept by default: a quarter of the largest heap, so batches in flight and the rest still fit. */
    public static final long DEFAULT_DECODED_BUDGET = Runtime.getRuntime().maxMemory() / 4;

    /** One image and its objects. */
    public record Sample(Path image, List<Truth> truths) {}

    private final Path list;
    private final int classes;
    private final List<Sample> samples;
    private final AtomicReferenceArray<BgrImage> decoded;
    private final PackReader pack;   // null for a list
    private final long decodedBudget;
    private final AtomicLong decodedBytes = new AtomicLong();

    private Dataset(Path list, int classes, List<Sample> samples, PackReader pack, long decodedBudget) {
        if (decodedBudget < 0) throw new IllegalArgumentException("decoded-image budget: expected >= 0 bytes, found " + decodedBudget);
        this.list = list;
        this.classes = classes;
        this.samples = List.copyOf(samples);
        this.decoded = new AtomicReferenceArray<>(samples.size());
        this.pack = pack;
        this.decodedBudget = decodedBudget;
    }

    /** The same samples with another budget of decoded bytes kept (0: decode at every use), nothing kept yet. */
    public Dataset withDecodedBudget(long bytes) {
        return new Dataset(list, classes, samples, pack, bytes);
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
        return new Dataset(dir, classes, samples, pack, DEFAULT_DECODED_BUDGET);
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
        return new Dataset(list, classes, samples, null, DEFAULT_DECODED_BUDGET);
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

    /** Bytes of decoded images kept at most. */
    public long decodedBudget() { return decodedBudget; }

    /** Bytes of decoded images kept now. */
    public long decodedBytes() { return decodedBytes.get(); }

    /**
     * The decoded image of sample i (safe from several threads). Kept when it fits the budget: the first images
     * decoded stay, none is evicted (samples are drawn uniformly, so which ones stay does not change the hit rate, and
     * nothing churns).
     */
    public BgrImage image(int i) {
        BgrImage img = decoded.get(i);
        if (img != null) return img;
        img = pack != null ? decode(i) : BgrImage.read(samples.get(i).image());
        long size = (long) img.stride() * img.height();
        if (decodedBytes.addAndGet(size) <= decodedBudget && decoded.compareAndSet(i, null, img)) return img;
        decodedBytes.addAndGet(-size); // over the budget, or another thread kept it first
        return img;
    }

    /** Decodes sample i from the pack's mapped shard; a failure names the shard, the sample and its image. */
    private BgrImage decode(int i) {
        // ImageIO.read(InputStream) would spill the stream to a temporary file first (ImageIO's disk cache): the bytes
        // are in memory already, so they are read from there.
        try {
            MemoryCacheImageInputStream in = new MemoryCacheImageInputStream(new ByteArrayInputStream(imageBytes(i)));
            java.awt.image.BufferedImage b = ImageIO.read(in);   // closes `in`, unless it returns null
            if (b == null) {
                in.close();
                throw new IllegalArgumentException(where(i) + ": not a readable image (expected JPEG, PNG or BMP)");
            }
            return BgrImage.fromBufferedImage(b);
        } catch (IOException e) {
            throw new IllegalArgumentException(where(i) + ": cannot decode image: " + e.getMessage(), e);
        }
    }

    private String where(int i) {
        return pack.shardFile(i) + ": sample " + i + " (" + pack.name(i) + ", record at byte " + pack.offset(i) + ")";
    }
}
