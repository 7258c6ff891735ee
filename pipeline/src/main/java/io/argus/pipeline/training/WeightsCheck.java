package io.argus.pipeline.training;

import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.pipeline.base.RequestRefused;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * What a weights file for the trained model's network must look like, known before a byte of it is read: Darknet's
 * header (int32 {@code major}, {@code minor}, {@code revision}, then {@code seen} as uint64 from version 0.2 on, else
 * uint32) and one float32 per parameter of the cfg's convolutional layers, so exactly one of two sizes. Weights to
 * adopt are refused early at any other size (a 64 KB file cannot be the weights of a 250 MB network, and neither can
 * {@code /dev/zero}), and refused after arriving when the header disagrees. Messages name the field and say what was
 * expected and found by size or by rule, never the file's bytes (a file that is not weights may be a secret).
 */
final class WeightsCheck {
    private final String network;
    private final long floats;
    private final long maxBytes;

    /** {@code maxBytes}: the configured ceiling ({@code training.maxWeightsBytes}). */
    WeightsCheck(NetworkSpec spec, long maxBytes) {
        long n = 0;
        for (ConvolutionalSpec c : spec.convolutionalLayers()) {
            n += c.filters() * (c.batchNormalize() ? 4L : 1L) + c.weightCount();
        }
        this.floats = n;
        this.network = spec.name() + ".cfg at " + spec.net().width() + "x" + spec.net().height();
        this.maxBytes = maxBytes;
    }

    /** Size with the 32-bit {@code seen} (versions before 0.2). */
    long shortSize() { return 16 + 4 * floats; }

    /** Size with the 64-bit {@code seen} (version 0.2 and later, what Darknet and Argus write). */
    long longSize() { return 20 + 4 * floats; }

    /** The most bytes an adoption reads: the larger of the two sizes. */
    long readLimit() { return longSize(); }

    /** Whether {@code bytes} may be the size of weights for this network. */
    boolean possibleSize(long bytes) { return bytes == shortSize() || bytes == longSize(); }

    /** The two sizes in words, e.g. "5880020 bytes (or 5880016 with a 32-bit 'seen') for yolov4-tiny.cfg at 64x64". */
    String expectedSize() {
        return longSize() + " bytes (or " + shortSize() + " with a 32-bit 'seen') for " + network + ", " + floats + " floats";
    }

    /**
     * Refuses (IllegalArgumentException naming {@code what}) a declared or counted size that cannot be weights of this
     * network, or that is above the configured ceiling.
     */
    void checkSize(String what, long bytes) {
        if (longSize() > maxBytes) {
            throw new RequestRefused(413, what + ": the weights of " + network + " take " + longSize()
                    + " bytes, more than training.maxWeightsBytes (" + maxBytes + "): raise it to adopt them");
        }
        if (!possibleSize(bytes)) throw new IllegalArgumentException(what + ": expected " + expectedSize() + ", found " + bytes);
    }

    /** Checks the size and header of a staged file (one this node wrote, so its size is what was counted). */
    void checkFile(String what, Path file, long bytes) {
        checkSize(what, bytes);
        ByteBuffer header = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            while (header.hasRemaining() && ch.read(header) >= 0) { /* fill */ }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the weights staged in " + file + ": " + e.getMessage(), e);
        }
        header.flip();
        int major = header.getInt();
        int minor = header.getInt();
        // version fields as Darknet writes them (0.2.0, 0.2.5, 0.1.0): a file whose first words are text or noise is refused
        if (major < 0 || major >= 1000) throw new IllegalArgumentException(what + ": header field 'major' is not a Darknet weights version (expected 0-999)");
        if (minor < 0 || minor >= 1000) throw new IllegalArgumentException(what + ": header field 'minor' is not a Darknet weights version (expected 0-999)");
        boolean seen64 = major * 10 + minor >= 2;
        long expected = seen64 ? longSize() : shortSize();
        if (bytes != expected) {
            throw new IllegalArgumentException(what + ": header fields 'major' and 'minor' say 'seen' is "
                    + (seen64 ? "64" : "32") + "-bit, so expected " + expected + " bytes for " + network + ", found " + bytes);
        }
    }
}
