package io.argus.trainer.train;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.io.AtomicFile;
import io.argus.trainer.optim.OptimizerState;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32;

/**
 * A checkpoint's optimizer state beside its .weights ({@code <cfg name>_ckpt<N>.momentum}, {@link Checkpoint}): the SGD momentum of every
 * parameter tensor and, while an EMA runs, the masters it averages ({@link OptimizerState}).
 *
 * <pre>
 * "ARGUSMOM", int version (1), long iteration, int flags (bit 0: the EMA runs, masters follow each momentum),
 * int tensors, per tensor: int nameLength, name (UTF-8), int size, float momentum[size] (, float master[size]),
 * int CRC-32 of every byte before it
 * </pre>
 * Little endian, as Darknet's .weights. Written whole by {@link AtomicFile}; read back, the CRC refuses a file changed
 * or cut since, and the tensors' names and sizes a file of another network.
 */
public final class MomentumFile {
    static final byte[] MAGIC = {'A', 'R', 'G', 'U', 'S', 'M', 'O', 'M'};
    static final int VERSION = 1;
    private static final int FLAG_EMA = 1;
    /** Magic, version, iteration, flags, tensor count. */
    private static final int HEADER = 8 + 4 + 8 + 4 + 4;

    /** What a file holds: the iteration it was written after, and the state. */
    public record Saved(long iteration, OptimizerState state) {}

    private MomentumFile() {}

    /** Writes the state after {@code iteration}, atomically. */
    public static void write(Path file, long iteration, OptimizerState state) {
        AtomicFile.write(file, out -> {
            LittleEndian w = new LittleEndian(out);
            w.bytes(MAGIC);
            w.putInt(VERSION);
            w.putLong(iteration);
            w.putInt(state.emaRunning() ? FLAG_EMA : 0);
            w.putInt(state.tensors().size());
            for (OptimizerState.Tensor t : state.tensors()) {
                byte[] name = t.name().getBytes(StandardCharsets.UTF_8);
                w.putInt(name.length);
                w.bytes(name);
                w.putInt(t.momentum().length);
                w.putFloats(t.momentum());
                if (state.emaRunning()) w.putFloats(t.master());
            }
            w.finishWithCrc();
        });
    }

    /**
     * Reads a file and checks it against the network of {@code spec}.
     *
     * @throws IllegalArgumentException naming the file and what did not match: not a momentum file, another version,
     *                                  a CRC that does not match (damaged), or tensors not those of the network
     */
    public static Saved read(Path file, NetworkSpec spec) {
        ByteBuffer b = map(file);
        long size = b.remaining();
        if (size < HEADER + 4) {
            throw bad(file, size + " bytes, too short for a momentum file (at least " + (HEADER + 4) + ")");
        }
        byte[] magic = new byte[MAGIC.length];
        b.get(0, magic);
        if (!Arrays.equals(magic, MAGIC)) {
            throw bad(file, "not a momentum file: it starts with " + printable(magic) + ", expected "
                    + printable(MAGIC));
        }
        int version = b.getInt(8);
        if (version != VERSION) throw bad(file, "format version " + version + ", expected " + VERSION);
        CRC32 crc = new CRC32();
        crc.update(b.duplicate().limit((int) size - 4));
        int stored = b.getInt((int) size - 4);
        if (stored != (int) crc.getValue()) {
            throw bad(file, String.format(Locale.ROOT, "CRC-32 of the content is %08x, the file says %08x: it was "
                    + "changed or cut after it was written", (int) crc.getValue(), stored));
        }
        b.position(12);
        long iteration = b.getLong();
        boolean ema = (b.getInt() & FLAG_EMA) != 0;
        int count = b.getInt();
        int end = (int) size - 4;
        List<OptimizerState.Shape> shapes = new ArrayList<>();
        List<Integer> offsets = new ArrayList<>();
        for (int t = 0; t < count; t++) {
            // the CRC matched, so these only fail for a file written wrong: still named, never an exception of ours
            if (end - b.position() < 4) throw bad(file, "tensor " + t + " of " + count + " is cut off");
            int nameLength = b.getInt();
            if (nameLength < 0 || nameLength > end - b.position() - 4) {
                throw bad(file, "tensor " + t + ": name of " + nameLength + " bytes does not fit");
            }
            byte[] name = new byte[nameLength];
            b.get(name);
            int values = b.getInt();
            long bytes = 4L * values * (ema ? 2 : 1);
            if (values < 0 || bytes > end - b.position()) {
                throw bad(file, "tensor " + t + ": " + values + " values do not fit");
            }
            shapes.add(new OptimizerState.Shape(new String(name, StandardCharsets.UTF_8), values));
            offsets.add(b.position());
            b.position(b.position() + (int) bytes);
        }
        if (b.position() != end) throw bad(file, (end - b.position()) + " bytes after the last tensor");
        String mismatch = OptimizerState.mismatch(shapes, OptimizerState.shapes(spec));
        if (mismatch != null) {
            throw bad(file, "does not match the network of " + spec.file() + ": " + mismatch);
        }
        List<OptimizerState.Tensor> tensors = new ArrayList<>(count);
        for (int t = 0; t < count; t++) {
            int values = shapes.get(t).size();
            float[] momentum = new float[values];
            b.slice(offsets.get(t), 4 * values).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(momentum);
            float[] master = null;
            if (ema) {
                master = new float[values];
                b.slice(offsets.get(t) + 4 * values, 4 * values).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer()
                        .get(master);
            }
            tensors.add(new OptimizerState.Tensor(shapes.get(t).name(), momentum, master));
        }
        return new Saved(iteration, new OptimizerState(tensors, ema));
    }

    private static ByteBuffer map(Path file) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            if (ch.size() > Integer.MAX_VALUE) {
                throw bad(file, ch.size() + " bytes, more than this reader maps (2 GiB)");
            }
            return ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size()).order(ByteOrder.LITTLE_ENDIAN);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    private static IllegalArgumentException bad(Path file, String what) {
        return new IllegalArgumentException(file + ": " + what);
    }

    private static String printable(byte[] bytes) {
        StringBuilder s = new StringBuilder("\"");
        for (byte c : bytes) s.append(c >= 32 && c < 127 ? String.valueOf((char) c) : String.format("\\x%02x", c));
        return s.append('"').toString();
    }

    /** Little-endian values through a 64 KiB buffer, with the CRC-32 of everything written. */
    private static final class LittleEndian {
        private final OutputStream out;
        private final ByteBuffer buf = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
        private final CRC32 crc = new CRC32();

        LittleEndian(OutputStream out) { this.out = out; }

        void bytes(byte[] b) throws IOException {
            for (int at = 0; at < b.length; ) {
                room(1);
                int n = Math.min(buf.remaining(), b.length - at);
                buf.put(b, at, n);
                at += n;
            }
        }

        void putInt(int v) throws IOException {
            room(4);
            buf.putInt(v);
        }

        void putLong(long v) throws IOException {
            room(8);
            buf.putLong(v);
        }

        void putFloats(float[] v) throws IOException {
            for (int at = 0; at < v.length; ) {
                room(4);
                int n = Math.min(buf.remaining() / 4, v.length - at);
                buf.asFloatBuffer().put(v, at, n);
                buf.position(buf.position() + 4 * n);
                at += n;
            }
        }

        /** Appends the CRC-32 of all bytes before it and hands everything to the stream. */
        void finishWithCrc() throws IOException {
            drain();
            buf.putInt((int) crc.getValue());
            out.write(buf.array(), 0, buf.position());
            buf.clear();
        }

        private void room(int bytes) throws IOException {
            if (buf.remaining() < bytes) drain();
        }

        private void drain() throws IOException {
            crc.update(buf.array(), 0, buf.position());
            out.write(buf.array(), 0, buf.position());
            buf.clear();
        }
    }
}
