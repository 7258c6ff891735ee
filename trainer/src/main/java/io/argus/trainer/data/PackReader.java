package io.argus.trainer.data;

import io.argus.trainer.loss.Truth;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

/**
 * A packed dataset ({@link PackFormat}) opened for reading: the index read and checked, every shard memory-mapped
 * read-only (the page cache holds what the epochs touch; no copy through the heap until a record is asked for) and
 * checked against the index's size and checksum once, at open. Safe from several threads: records are read through
 * per-call views of the mapped buffers.
 */
public final class PackReader {
    private final Path dir;
    private final int classes;
    private final MappedByteBuffer[] shards;
    private final int[] sampleShard;
    private final long[] sampleOffset;

    private PackReader(Path dir, int classes, MappedByteBuffer[] shards, int[] sampleShard, long[] sampleOffset) {
        this.dir = dir;
        this.classes = classes;
        this.shards = shards;
        this.sampleShard = sampleShard;
        this.sampleOffset = sampleOffset;
    }

    /** Whether {@code dir} is a (complete) packed dataset: a folder with an index. */
    public static boolean isPack(Path dir) {
        return Files.isDirectory(dir) && Files.isRegularFile(dir.resolve(PackFormat.INDEX));
    }

    public static PackReader open(Path dir) {
        Path indexFile = dir.resolve(PackFormat.INDEX);
        ByteBuffer index;
        try {
            index = ByteBuffer.wrap(Files.readAllBytes(indexFile)).order(ByteOrder.LITTLE_ENDIAN);
        } catch (IOException e) {
            throw new UncheckedIOException(indexFile + ": cannot read the pack index: " + e.getMessage(), e);
        }
        try {
            byte[] magic = new byte[8];
            index.get(magic);
            if (!Arrays.equals(magic, PackFormat.INDEX_MAGIC)) {
                throw new IllegalArgumentException(indexFile + ": not an Argus pack index (expected \"ARGUSPI1\")");
            }
            int classes = index.getInt(), samples = index.getInt(), shardCount = index.getInt();
            if (classes <= 0 || samples <= 0 || shardCount <= 0 || shardCount > samples
                    || index.remaining() != (long) shardCount * 16 + (long) samples * 12) {
                throw new IllegalArgumentException(indexFile + ": inconsistent header (classes " + classes + ", samples "
                        + samples + ", shards " + shardCount + ", " + index.remaining() + " bytes follow)");
            }
            MappedByteBuffer[] shards = new MappedByteBuffer[shardCount];
            for (int s = 0; s < shardCount; s++) {
                long size = index.getLong(), crc = index.getLong();
                shards[s] = map(dir.resolve(PackFormat.shardName(s)), size, crc);
            }
            int[] sampleShard = new int[samples];
            long[] sampleOffset = new long[samples];
            for (int i = 0; i < samples; i++) {
                sampleShard[i] = index.getInt();
                sampleOffset[i] = index.getLong();
                if (sampleShard[i] < 0 || sampleShard[i] >= shardCount || sampleOffset[i] < PackFormat.SHARD_MAGIC.length
                        || sampleOffset[i] >= shards[sampleShard[i]].capacity()) {
                    throw new IllegalArgumentException(indexFile + ": sample " + i + " points outside the shards (shard "
                            + sampleShard[i] + ", offset " + sampleOffset[i] + ")");
                }
            }
            return new PackReader(dir, classes, shards, sampleShard, sampleOffset);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException(indexFile + ": cut short");
        }
    }

    private static MappedByteBuffer map(Path shard, long size, long crc) {
        try (FileChannel ch = FileChannel.open(shard)) {
            if (ch.size() != size) {
                throw new IllegalArgumentException(shard + ": " + ch.size() + " bytes, the index says " + size
                        + ": changed or cut since it was packed");
            }
            MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_ONLY, 0, size);
            CRC32 c = new CRC32();
            c.update(m.duplicate());
            if (c.getValue() != crc) throw new IllegalArgumentException(shard + ": checksum differs from the index: changed since it was packed");
            m.order(ByteOrder.LITTLE_ENDIAN);
            return m;
        } catch (IOException e) {
            throw new UncheckedIOException(shard + ": cannot map: " + e.getMessage(), e);
        }
    }

    public Path dir() { return dir; }

    public int classes() { return classes; }

    public int size() { return sampleShard.length; }

    public int shards() { return shards.length; }

    /** The shard file that holds sample i (for messages about it). */
    public Path shardFile(int i) {
        return dir.resolve(PackFormat.shardName(sampleShard[i]));
    }

    /** Where sample i's record starts in its shard, in bytes. */
    public long offset(int i) { return sampleOffset[i]; }

    /** The image's path as it was listed when packed. */
    public String name(int i) {
        ByteBuffer r = record(i);
        byte[] n = new byte[r.getInt()];
        r.get(n);
        return new String(n, StandardCharsets.UTF_8);
    }

    /** The image file's bytes as stored (a read-only view into the mapped shard). */
    public ByteBuffer image(int i) {
        ByteBuffer r = record(i);
        r.position(r.position() + 4 + r.getInt(r.position()));
        int length = r.getInt();
        return r.slice(r.position(), length).asReadOnlyBuffer();
    }

    /** The labelled boxes; classes checked against the pack's class count. */
    public List<Truth> truths(int i) {
        ByteBuffer r = record(i);
        r.position(r.position() + 4 + r.getInt(r.position()));
        r.position(r.position() + 4 + r.getInt(r.position()));
        int boxes = r.getInt();
        List<Truth> out = new ArrayList<>(boxes);
        for (int b = 0; b < boxes; b++) {
            int c = r.getInt();
            if (c < 0 || c >= classes) {
                throw new IllegalArgumentException(dir + ": sample " + i + " (" + name(i) + ") has class " + c
                        + ", the pack has " + classes);
            }
            out.add(new Truth(r.getFloat(), r.getFloat(), r.getFloat(), r.getFloat(), c));
        }
        return out;
    }

    private ByteBuffer record(int i) {
        ByteBuffer r = shards[sampleShard[i]].duplicate().order(ByteOrder.LITTLE_ENDIAN);
        r.position((int) sampleOffset[i]);
        return r;
    }

    /**
     * The order of epoch {@code epoch}: a permutation of the samples, the same for the same seed and epoch on every
     * rank and after a resume (so a data-order position can be checkpointed as (epoch, index)), different per epoch.
     */
    public static int[] order(int size, long seed, int epoch) {
        int[] order = new int[size];
        for (int i = 0; i < size; i++) order[i] = i;
        SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + epoch);
        for (int i = size - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        return order;
    }
}
