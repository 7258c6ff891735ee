package io.argus.detector.darknet;

import io.argus.detector.io.AtomicFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Darknet's .weights format: int32 major, minor, revision; {@code seen} as uint64 (version >= 0.2) or uint32;
 * then for every convolutional layer in cfg order: biases, [BN scales, rolling mean, rolling variance], weights.
 * Little-endian float32 throughout.
 */
public final class WeightsFile {
    private WeightsFile() {}

    /** Thrown when a file does not match the network: names the file, the layer and expected vs. found. */
    public static final class WeightsException extends RuntimeException {
        public WeightsException(String message) { super(message); }
    }

    public static ModelWeights read(Path file, NetworkSpec spec) {
        ByteBuffer buf;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size > Integer.MAX_VALUE) throw new WeightsException(file + ": file too large (" + size + " bytes)");
            buf = ByteBuffer.allocate((int) size);
            while (buf.hasRemaining() && ch.read(buf) >= 0) { /* fill */ }
            buf.flip();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read weights " + file + ": " + e.getMessage(), e);
        }
        return read(file.toString(), buf.order(ByteOrder.LITTLE_ENDIAN), spec);
    }

    static ModelWeights read(String name, ByteBuffer buf, NetworkSpec spec) {
        if (buf.remaining() < 16) {
            throw new WeightsException(name + ": header truncated: expected at least 16 bytes, found " + buf.remaining());
        }
        int major = buf.getInt();
        int minor = buf.getInt();
        int revision = buf.getInt();
        if (major < 0 || minor < 0 || major > 1000 && minor > 1000) {
            throw new WeightsException(name + ": not a Darknet weights file (version " + major + "." + minor + "."
                    + revision + ")");
        }
        long seen;
        if (major * 10 + minor >= 2 && major < 1000 && minor < 1000) {
            if (buf.remaining() < 8) throw new WeightsException(name + ": header truncated in 'seen'");
            seen = buf.getLong();
        } else {
            seen = Integer.toUnsignedLong(buf.getInt());
        }
        if (buf.remaining() % 4 != 0) {
            throw new WeightsException(name + ": body is " + buf.remaining() + " bytes, not a whole number of floats");
        }
        FloatBuffer floats = buf.slice().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        long expectedTotal = 0;
        for (ConvolutionalSpec c : spec.convolutionalLayers()) {
            expectedTotal += c.filters() * (c.batchNormalize() ? 4L : 1L) + c.weightCount();
        }
        Map<Integer, ConvWeights> conv = new LinkedHashMap<>();
        for (ConvolutionalSpec c : spec.convolutionalLayers()) {
            ConvWeights w = ConvWeights.zeros(c);
            int need = w.floatCount();
            if (floats.remaining() < need) {
                throw new WeightsException(String.format(
                        "%s: truncated at layer %d ([convolutional] at %s line %d): this layer needs %d floats, "
                                + "%d left; the network needs %d floats in all, the file has %d",
                        name, c.index(), spec.name() + ".cfg", c.line(), need, floats.remaining(), expectedTotal,
                        floats.capacity()));
            }
            floats.get(w.biases());
            if (w.batchNormalized()) {
                floats.get(w.scales());
                floats.get(w.mean());
                floats.get(w.variance());
            }
            floats.get(w.weights());
            conv.put(c.index(), w);
        }
        if (floats.hasRemaining()) {
            throw new WeightsException(String.format(
                    "%s: oversized: the network %s needs %d floats, the file has %d (%d extra after the last layer)",
                    name, spec.name(), expectedTotal, floats.capacity(), floats.remaining()));
        }
        return new ModelWeights(major, minor, revision, seen, conv);
    }

    /**
     * Writes atomically ({@link AtomicFile}: temporary file, fsync, rename, fsync of the directory), so a reader, or a
     * restart after kill -9 or a power cut, never sees half a checkpoint; a full disk leaves the previous file as it was.
     */
    public static void write(Path file, NetworkSpec spec, ModelWeights weights) {
        AtomicFile.write(file, encode(spec, weights));
    }

    static ByteBuffer encode(NetworkSpec spec, ModelWeights weights) {
        long floats = 0;
        for (ConvolutionalSpec c : spec.convolutionalLayers()) floats += weights.conv(c.index()).floatCount();
        int header = weights.seen64() ? 20 : 16;
        ByteBuffer buf = ByteBuffer.allocate(Math.toIntExact(header + 4 * floats)).order(ByteOrder.LITTLE_ENDIAN);
        buf.putInt(weights.major()).putInt(weights.minor()).putInt(weights.revision());
        if (weights.seen64()) buf.putLong(weights.seen());
        else buf.putInt((int) weights.seen());
        FloatBuffer out = buf.slice().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        for (ConvolutionalSpec c : spec.convolutionalLayers()) {
            ConvWeights w = weights.conv(c.index());
            if (w.weights().length != c.weightCount() || w.biases().length != c.filters()
                    || w.batchNormalized() != c.batchNormalize()) {
                throw new WeightsException("layer " + c.index() + ": parameters do not match the cfg (expected "
                        + c.filters() + " filters, " + c.weightCount() + " weights, batch_normalize="
                        + (c.batchNormalize() ? 1 : 0) + ")");
            }
            out.put(w.biases());
            if (w.batchNormalized()) {
                out.put(w.scales());
                out.put(w.mean());
                out.put(w.variance());
            }
            out.put(w.weights());
        }
        buf.position(buf.limit());
        buf.flip();
        return buf;
    }
}
