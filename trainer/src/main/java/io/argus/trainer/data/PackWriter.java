package io.argus.trainer.data;

import io.argus.detector.io.AtomicFile;
import io.argus.trainer.loss.Truth;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

/** Writes a {@link Dataset} as a packed dataset ({@link PackFormat}): shards of about {@code shardBytes}, then the index. */
public final class PackWriter {
    private PackWriter() {}

    /** What was written. */
    public record Written(int samples, int shards, long bytes) {}

    public static Written write(Dataset dataset, Path dir, long shardBytes) {
        if (shardBytes < 1 << 20) throw new IllegalArgumentException("shard size " + shardBytes + " bytes: expected at least 1 MiB");
        try {
            Files.createDirectories(dir);
            if (Files.exists(dir.resolve(PackFormat.INDEX))) {
                throw new IllegalArgumentException(dir + " already holds a packed dataset (" + PackFormat.INDEX
                        + "): choose an empty folder");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<long[]> shards = new ArrayList<>();          // size, crc
        int[] sampleShard = new int[dataset.size()];
        long[] sampleOffset = new long[dataset.size()];
        ByteArrayOutputStream shard = new ByteArrayOutputStream();
        shard.writeBytes(PackFormat.SHARD_MAGIC);
        long total = 0;
        for (int i = 0; i < dataset.size(); i++) {
            Dataset.Sample s = dataset.sample(i);
            byte[] record = record(dataset.name(i), dataset.imageBytes(i), s.truths());
            if (shard.size() > PackFormat.SHARD_MAGIC.length && shard.size() + record.length > shardBytes) {
                total += flush(dir, shards, shard);
                shard = new ByteArrayOutputStream();
                shard.writeBytes(PackFormat.SHARD_MAGIC);
            }
            sampleShard[i] = shards.size();
            sampleOffset[i] = shard.size();
            shard.writeBytes(record);
        }
        total += flush(dir, shards, shard);
        ByteBuffer index = ByteBuffer.allocate(8 + 12 + shards.size() * 16 + dataset.size() * 12).order(ByteOrder.LITTLE_ENDIAN);
        index.put(PackFormat.INDEX_MAGIC).putInt(dataset.classes()).putInt(dataset.size()).putInt(shards.size());
        for (long[] sh : shards) index.putLong(sh[0]).putLong(sh[1]);
        for (int i = 0; i < dataset.size(); i++) index.putInt(sampleShard[i]).putLong(sampleOffset[i]);
        index.flip();
        AtomicFile.write(dir.resolve(PackFormat.INDEX), index);   // last: the pack exists from here on
        return new Written(dataset.size(), shards.size(), total + index.limit());
    }

    private static long flush(Path dir, List<long[]> shards, ByteArrayOutputStream shard) {
        byte[] bytes = shard.toByteArray();
        CRC32 crc = new CRC32();
        crc.update(bytes);
        AtomicFile.write(dir.resolve(PackFormat.shardName(shards.size())), bytes);
        shards.add(new long[] {bytes.length, crc.getValue()});
        return bytes.length;
    }

    private static byte[] record(String name, byte[] image, List<Truth> truths) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(4 + n.length + 4 + image.length + 4 + truths.size() * 20).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(n.length).put(n).putInt(image.length).put(image).putInt(truths.size());
        for (Truth t : truths) b.putInt(t.classId()).putFloat(t.x()).putFloat(t.y()).putFloat(t.w()).putFloat(t.h());
        return b.array();
    }
}
