package io.argus.gpu.cudnn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Without a GPU: the plan cache's key and file format, and that a bad entry is a miss, never a crash. */
@Budget(seconds = 5)
class PlanCacheTest {
    static final DeviceIdentity H100 = new DeviceIdentity("NVIDIA H100 80GB HBM3", 90, 13000, 91900);

    static ConvolutionProblem forward(long n) {
        StridedShape in = StridedShape.dense(n, 64, 52, 52, 64);
        StridedShape out = StridedShape.dense(n, 128, 52, 52, 128);
        return new ConvolutionProblem(ConvolutionOperation.FORWARD, Numerics.HALF, in, out, 64, 3, 1, 1, 1,
                Epilogue.biasActivation(Epilogue.Activation.LEAKY), null, 0f, 16);
    }

    @Test
    void keySaysEverythingThatChangesThePlan() {
        ConvolutionProblem p = forward(8);
        assertEquals(p.key(), forward(8).key());
        assertNotEquals(p.key(), forward(16).key(), "batch size");
        assertEquals(forward(16).key(), p.withBatch(16).key());
        assertNotEquals(p.key(), new ConvolutionProblem(p.operation(), p.numerics(), p.input(), p.output(), 64, 3, 1,
                1, 1, Epilogue.biasActivation(Epilogue.Activation.MISH), null, 0f, 16).key(), "activation");
        assertNotEquals(p.key(), new ConvolutionProblem(p.operation(), p.numerics(), p.input(), p.output(), 64, 3, 1,
                1, 1, Epilogue.NONE, null, 0f, 16).key(), "epilogue");
        ConvolutionProblem data = ConvolutionProblem.plain(ConvolutionOperation.BACKWARD_DATA, Numerics.IEEE_FLOAT,
                p.input(), p.output(), 64, 3, 1, 1, 1, 1f, 16);
        assertNotEquals(data.key(), ConvolutionProblem.plain(ConvolutionOperation.BACKWARD_DATA, Numerics.TF32,
                p.input(), p.output(), 64, 3, 1, 1, 1, 1f, 16).key(), "strict FP32 vs TF32");
        assertNotEquals(data.key(), ConvolutionProblem.plain(ConvolutionOperation.BACKWARD_DATA, Numerics.IEEE_FLOAT,
                p.input(), p.output(), 64, 3, 1, 1, 1, 0f, 16).key(), "beta");
        assertNotEquals(data.key(), ConvolutionProblem.plain(ConvolutionOperation.BACKWARD_DATA, Numerics.IEEE_FLOAT,
                p.input(), p.output(), 64, 3, 1, 1, 1, 1f, 8).key(), "alignment");
        StridedShape slice = new StridedShape(8, 128, 52, 52, 52L * 52 * 256, 256);
        assertNotEquals(p.key(), new ConvolutionProblem(p.operation(), p.numerics(), p.input(), slice, 64, 3, 1, 1, 1,
                p.epilogue(), null, 0f, 16).key(), "strides of an in-place output");
    }

    @Test
    void deviceDriverAndLibraryAreInTheFileName(@TempDir Path dir) {
        String key = forward(8).key();
        Path a = new PlanCache(dir, H100).file(key);
        assertNotEquals(a, new PlanCache(dir, new DeviceIdentity("NVIDIA H100 80GB HBM3", 90, 12080, 91900)).file(key));
        assertNotEquals(a, new PlanCache(dir, new DeviceIdentity("NVIDIA H100 80GB HBM3", 90, 13000, 91000)).file(key));
        assertNotEquals(a, new PlanCache(dir, new DeviceIdentity("NVIDIA H200", 90, 13000, 91900)).file(key));
        assertNotEquals(a, new PlanCache(dir, H100).file(forward(16).key()));
    }

    @Test
    void storedConfigurationComesBack(@TempDir Path dir) {
        PlanCache cache = new PlanCache(dir.resolve("plans"), H100);
        String key = forward(8).key();
        assertNull(cache.load(key));
        PlanCache.Entry entry = new PlanCache.Entry(new EngineConfig(12, Map.of(3, 1L, 7, 64L, 11, -1L)), 1 << 20);
        cache.store(key, entry, "engine 12 tc, 0.1 ms best of 4");
        assertTrue(cache.contains(key));
        assertEquals(entry, cache.load(key));
        assertEquals(entry, new PlanCache(dir.resolve("plans"), H100).load(key), "a restart reads it");
        assertNull(new PlanCache(dir.resolve("plans"), H100).load(forward(16).key()));
    }

    @Test
    void corruptOrForeignEntriesAreMisses(@TempDir Path dir) throws IOException {
        PlanCache cache = new PlanCache(dir, H100);
        String key = forward(8).key();
        Path f = cache.file(key);
        Files.writeString(f, "\u0000\u0001garbage");
        assertNull(cache.load(key));
        Files.writeString(f, PlanCache.MAGIC + "\nidentity " + H100.text() + "\nkey " + key + "\nengine 12\nworkspace 0\n");
        assertEquals(new PlanCache.Entry(new EngineConfig(12, Map.of()), 0), cache.load(key), "the well-formed entry");
        Files.writeString(f, "argus-plan 1\nidentity " + H100.text() + "\nkey " + key + "\nengine 12\nworkspace 0\n");
        assertNull(cache.load(key), "a version 1 entry (its knobs were never read)");
        Files.writeString(f, PlanCache.MAGIC + "\nidentity " + H100.text() + "\nkey " + key + "\nengine 12\n");
        assertNull(cache.load(key), "no workspace line");
        Files.writeString(f, PlanCache.MAGIC + "\nidentity " + H100.text() + "\nkey " + key + "\nengine 12\nworkspace x\n");
        assertNull(cache.load(key));
        Files.writeString(f, PlanCache.MAGIC + "\nidentity " + H100.text() + "\nkey " + key + "\nengine twelve\nworkspace 0\n");
        assertNull(cache.load(key));
        Files.writeString(f, PlanCache.MAGIC + "\nidentity " + H100.text() + "\nkey " + key + "\nengine 12 3=\nworkspace 0\n");
        assertNull(cache.load(key));
        Files.writeString(f, PlanCache.MAGIC + "\nidentity " + H100.text() + "\nkey " + key);   // truncated
        assertNull(cache.load(key));
        Files.writeString(f, PlanCache.MAGIC + "\nidentity other GPU\nkey " + key + "\nengine 12\nworkspace 0\n");
        assertNull(cache.load(key), "another device's entry under this name (a collision or a copied file)");
        Files.writeString(f, PlanCache.MAGIC + "\nidentity " + H100.text() + "\nkey another shape\nengine 12\nworkspace 0\n");
        assertNull(cache.load(key));
        Files.delete(f);
        Files.createDirectory(f);   // not a file at all
        assertNull(cache.load(key));
    }

    @Test
    void engineConfigText() {
        EngineConfig c = new EngineConfig(7, Map.of(2, 4L, 1, 0L));
        assertEquals("7 1=0,2=4", c.text());
        assertEquals(c, EngineConfig.parse(c.text()));
        assertEquals(new EngineConfig(5, Map.of()), EngineConfig.parse("5"));
        assertThrows(IllegalArgumentException.class, () -> EngineConfig.parse("5 1=2,1=3"));
        assertThrows(IllegalArgumentException.class, () -> EngineConfig.parse("-1"));
        assertThrows(IllegalArgumentException.class, () -> EngineConfig.parse(""));
    }

    @Test
    void alignmentOfPointers() {
        assertEquals(16, ConvolutionProblem.alignmentOf(0x7f0000000000L, 0x7f0000000100L, 0));
        assertEquals(8, ConvolutionProblem.alignmentOf(0x7f0000000000L, 0x7f0000000108L));
        assertEquals(2, ConvolutionProblem.alignmentOf(0x7f0000000002L));
    }
}
