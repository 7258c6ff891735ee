package io.argus.trainer.data;

/**
 * The layout of a packed dataset (`argus dataset pack`): many small image and label files made into a few large
 * shards, so an epoch reads a few files by memory mapping instead of opening thousands (a loader that keeps GPUs
 * fed).
 *
 * <pre>
 * DIR/shard-00000.pack ...   "ARGUSPK1", then records back to back:
 *                              int nameLength, name (UTF-8: the image's path as listed),
 *                              int imageLength, the image file's bytes as stored (PNG, JPEG: not decoded),
 *                              int boxes, per box: int class, float x, y, w, h (Darknet's normalised centre and size)
 * DIR/pack.index             "ARGUSPI1", int classes, int samples, int shards,
 *                              per shard: long size (bytes), long crc32 of the shard,
 *                              per sample: int shard, long offset of its record
 * </pre>
 * Little endian throughout. Every file is written whole by AtomicFile and the index last: a pack is complete exactly
 * when its index exists, and the index's shard sizes and checksums refuse a shard changed or cut since.
 */
final class PackFormat {
    private PackFormat() {}

    static final byte[] SHARD_MAGIC = {'A', 'R', 'G', 'U', 'S', 'P', 'K', '1'};
    static final byte[] INDEX_MAGIC = {'A', 'R', 'G', 'U', 'S', 'P', 'I', '1'};
    static final String INDEX = "pack.index";

    static String shardName(int shard) {
        return String.format(java.util.Locale.ROOT, "shard-%05d.pack", shard);
    }
}
