package io.argus.trainer.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Packed datasets: what goes in comes out (image bytes, boxes, names, decoded pixels), in as many shards as the size
 * asks; a pack changed or cut after packing is refused naming the file; the epoch order is a permutation, the same
 * for a seed and epoch and different across epochs.
 */
@Budget(seconds = 5)
class PackTest {
    @TempDir
    static Path dir;
    static Dataset list;

    @BeforeAll
    static void synthetic() {
        Path data = SyntheticScenes.write(dir.resolve("synth"), 40, 5, 96, 0.25);
        list = Dataset.fromList(DataFile.read(data).requireTrain(), 5);
    }

    @Test
    void whatGoesInComesOut() {
        Path out = dir.resolve("pack-a");
        PackWriter.Written w = PackWriter.write(list, out, 1 << 20);
        assertEquals(list.size(), w.samples());
        Dataset packed = Dataset.open(out, 5);
        assertTrue(packed.packed());
        assertEquals(list.size(), packed.size());
        for (int i = 0; i < list.size(); i++) {
            assertEquals(list.name(i), packed.name(i));
            assertArrayEquals(list.imageBytes(i), packed.imageBytes(i));
            assertEquals(list.sample(i).truths(), packed.sample(i).truths());
            assertEquals(list.image(i).pixels(), packed.image(i).pixels(), "sample " + i + " decodes to the same pixels");
        }
        assertTrue(PackReader.isPack(out));
        assertEquals("packed with 5 classes, expected 3", assertThrows(IllegalArgumentException.class,
                () -> Dataset.open(out, 3)).getMessage().substring(out.toString().length() + 2));
    }

    @Test
    void shardsOfTheAskedSize() throws Exception {
        Path out = dir.resolve("pack-b");
        long total = 0;
        for (int i = 0; i < list.size(); i++) total += list.imageBytes(i).length;
        PackWriter.Written w = PackWriter.write(list, out, 1 << 20);
        long expected = (total + (1 << 20) - 1) >> 20;
        assertTrue(w.shards() >= expected && w.shards() <= expected + 1, w.shards() + " shards for " + total + " bytes");
        try (var s = Files.list(out)) {
            for (Path p : s.toList()) assertTrue(Files.size(p) <= 1 << 20 || p.getFileName().toString().equals("pack.index"), p.toString());
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PackWriter.write(list, out, 1 << 20)).getMessage()
                .contains("already holds a packed dataset"));
    }

    @Test
    void aChangedOrCutPackIsRefusedNamingTheFile() throws Exception {
        Path out = dir.resolve("pack-c");
        PackWriter.write(list, out, 1 << 20);
        Path shard = out.resolve("shard-00000.pack");
        byte[] bytes = Files.readAllBytes(shard);
        bytes[bytes.length / 2] ^= 1;
        Files.write(shard, bytes);
        assertEquals(shard + ": checksum differs from the index: changed since it was packed",
                assertThrows(IllegalArgumentException.class, () -> PackReader.open(out)).getMessage());
        Files.write(shard, Arrays.copyOf(bytes, bytes.length - 10));
        assertEquals(shard + ": " + (bytes.length - 10) + " bytes, the index says " + bytes.length
                + ": changed or cut since it was packed", assertThrows(IllegalArgumentException.class, () -> PackReader.open(out)).getMessage());
        Path index = out.resolve("pack.index");
        byte[] idx = Files.readAllBytes(index);
        Files.write(index, Arrays.copyOf(idx, idx.length - 3), StandardOpenOption.TRUNCATE_EXISTING);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PackReader.open(out)).getMessage()
                .startsWith(index + ": inconsistent header"));
        Files.writeString(index, "not an index");
        assertEquals(index + ": not an Argus pack index (expected \"ARGUSPI1\")",
                assertThrows(IllegalArgumentException.class, () -> PackReader.open(out)).getMessage());
    }

    @Test
    void epochOrdersArePermutationsFixedBySeedAndEpoch() {
        int[] a = PackReader.order(1000, 7, 3);
        assertArrayEquals(a, PackReader.order(1000, 7, 3));
        assertNotEquals(Arrays.toString(a), Arrays.toString(PackReader.order(1000, 7, 4)));
        assertNotEquals(Arrays.toString(a), Arrays.toString(PackReader.order(1000, 8, 3)));
        int[] sorted = a.clone();
        Arrays.sort(sorted);
        for (int i = 0; i < sorted.length; i++) assertEquals(i, sorted[i]);
    }
}
