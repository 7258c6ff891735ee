package io.argus.detector.cpu;

import io.argus.detector.BgrImage;
import io.argus.detector.Model;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.onnx.OnnxInput;
import io.argus.detector.post.Preprocess;
import io.argus.detector.onnx.OnnxHead;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The activation ranges of an INT8 network, measured by running it in FP32 on sample frames: for every layer output,
 * the largest magnitude seen. An INT8 layer output then stores value / scale in a signed byte with scale = that
 * magnitude / 127 (symmetric, one scale per tensor, zero exact), the scheme oneDNN's integer convolutions take.
 * Weights need no samples: their scales are per output channel, from the weights themselves.
 *
 * <p>Why the largest magnitude and not a percentile: a Darknet network's activations are leaky/mish/swish outputs
 * whose largest values (objects, edges) are the signal; clipping them moved boxes in the accuracy runs (docs/cpu.md).
 */
public final class Int8Calibration {
    private static final List<String> IMAGE_SUFFIXES = List.of(".jpg", ".jpeg", ".png", ".bmp");

    /** Per layer, the largest |value| of its output over the samples (NaN for [yolo] layers, which have none). */
    private final float[] absMax;
    private final int samples;

    Int8Calibration(float[] absMax, int samples) {
        this.absMax = absMax.clone();
        this.samples = samples;
    }

    /** The largest |value| layer {@code index} wrote over the samples. */
    public float absMax(int index) { return absMax[index]; }

    /** How many frames it was measured on. */
    public int samples() { return samples; }

    public int layers() { return absMax.length; }

    /**
     * Runs the network in FP32 on {@code images} (Darknet pre-processing, as detection does) and keeps each layer
     * output's largest magnitude.
     */
    public static Int8Calibration measure(NetworkSpec spec, ModelWeights weights, List<BgrImage> images, CpuOptions options) {
        Preprocess preprocess = new Preprocess();
        return measure(spec, weights, images, options, (image, input) -> preprocess.into(image, spec.net().width(),
                spec.net().height(), spec.net().letterBox(), input, 0));
    }

    /**
     * A model's calibration, its frames prepared as detection prepares them (an imported model by its family's
     * {@link OnnxInput}). An imported model whose input is not in 0..1 (YOLOX: pixel values 0..255) is refused: the
     * INT8 network's input is unsigned bytes of 1/255.
     */
    public static Int8Calibration measure(Model model, List<BgrImage> images, CpuOptions options) {
        if (OnnxHead.in(model) != null && OnnxHead.in(model).convention() != OnnxInput.Convention.ULTRALYTICS) {
            throw new IllegalArgumentException("CPU precision int8: " + model.spec().file() + " takes pixel values 0..255 ("
                    + OnnxHead.in(model).family().configName() + " input), which the INT8 input (unsigned bytes of 1/255) does not "
                    + "hold; use fp32 or bf16");
        }
        return ranges(model, images, options);
    }

    /**
     * The same measurement for any model, whatever its input's range: what an FP8 CUDA network scales its
     * convolutions' inputs by (an FP16 input needs no INT8 byte range).
     */
    public static Int8Calibration ranges(Model model, List<BgrImage> images, CpuOptions options) {
        if (OnnxHead.in(model) == null) return measure(model.spec(), model.weights(), images, options);
        OnnxInput onnxInput = new OnnxInput(OnnxHead.in(model).convention());
        NetworkSpec spec = model.spec();
        return measure(spec, model.weights(), images, options, (image, input) -> onnxInput.write(image, spec.net().width(),
                spec.net().height(), input, 0));
    }

    private static Int8Calibration measure(NetworkSpec spec, ModelWeights weights, List<BgrImage> images,
                                           CpuOptions options, java.util.function.BiConsumer<BgrImage, java.nio.FloatBuffer> prepare) {
        if (images.isEmpty()) throw new IllegalArgumentException("INT8 calibration needs at least one image");
        float[] absMax = new float[spec.layers().size()];
        try (CpuNetwork fp32 = new CpuNetwork(spec, weights, 1, options.withPrecision(CpuPrecision.FP32))) {
            for (BgrImage image : images) {
                prepare.accept(image, fp32.input());
                fp32.forward(1);
                fp32.absMaxInto(absMax);
            }
        }
        return new Int8Calibration(absMax, images.size());
    }

    /**
     * The sample frames at {@code source}: a folder's images (.jpg, .jpeg, .png, .bmp, in name order), or a text file
     * listing image paths one per line (a Darknet list such as train.txt; a relative path is looked for beside the list, then from the working directory), at
     * most {@code max} of them.
     */
    public static List<BgrImage> readImages(Path source, int max) {
        List<Path> files = new ArrayList<>();
        try {
            if (Files.isDirectory(source)) {
                try (Stream<Path> s = Files.list(source)) {
                    s.filter(p -> IMAGE_SUFFIXES.stream().anyMatch(x -> p.getFileName().toString()
                            .toLowerCase(Locale.ROOT).endsWith(x))).sorted().forEach(files::add);
                }
            } else if (Files.isRegularFile(source)) {
                int lineNumber = 0;
                for (String line : Files.readAllLines(source)) {
                    lineNumber++;
                    String t = line.strip();
                    if (t.isEmpty() || t.startsWith("#")) continue;
                    Path p = Path.of(t);
                    if (!p.isAbsolute()) {   // as Darknet lists are read: near the list first, else from here
                        Path near = source.toAbsolutePath().getParent().resolve(p);
                        p = Files.exists(near) || !Files.exists(p) ? near : p.toAbsolutePath();
                    }
                    if (!Files.isRegularFile(p)) {
                        throw new IllegalArgumentException(source + ":" + lineNumber + ": no such image file " + t
                                + " (looked at " + p + ")");
                    }
                    files.add(p);
                }
            } else {
                throw new IllegalArgumentException("INT8 calibration images: " + source
                        + " is neither a folder of images nor a list file");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (files.isEmpty()) {
            throw new IllegalArgumentException("INT8 calibration images: none in " + source
                    + " (expected .jpg, .jpeg, .png or .bmp files, or a list of their paths)");
        }
        List<BgrImage> images = new ArrayList<>();
        for (Path f : files.subList(0, Math.min(max, files.size()))) images.add(BgrImage.read(f));
        return images;
    }

    @Override
    public String toString() {
        return "Int8Calibration[" + samples + " frames, " + Arrays.toString(absMax) + "]";
    }
}
