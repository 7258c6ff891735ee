package io.argus.detector.darknet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.testing.ProjectFiles;
import io.argus.testkit.Budget;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Budget(seconds = 5)
class WeightsFileTest {
    @TempDir
    Path tmp;

    @Test
    void writeThenReadIsBitExact() throws IOException {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov4-tiny"));
        ModelWeights w = WeightsInit.darknet(spec, 42);
        w.conv(0).biases()[3] = Float.intBitsToFloat(0x7fc00001); // a NaN payload must survive too
        w.setSeen(123_456_789_012L);
        Path file = tmp.resolve("a.weights");
        WeightsFile.write(file, spec, w);
        assertEquals(20 + 4 * w.floatCount(), Files.size(file));
        ModelWeights r = WeightsFile.read(file, spec);
        assertEquals(123_456_789_012L, r.seen());
        assertEquals(0, r.major());
        assertEquals(2, r.minor());
        for (int i : w.layerIndices()) {
            ConvWeights a = w.conv(i);
            ConvWeights b = r.conv(i);
            assertArrayEquals(bits(a.biases()), bits(b.biases()));
            assertArrayEquals(bits(a.weights()), bits(b.weights()));
            if (a.batchNormalized()) {
                assertArrayEquals(bits(a.scales()), bits(b.scales()));
                assertArrayEquals(bits(a.mean()), bits(b.mean()));
                assertArrayEquals(bits(a.variance()), bits(b.variance()));
            }
        }
        Path again = tmp.resolve("b.weights");
        WeightsFile.write(again, spec, r);
        assertArrayEquals(Files.readAllBytes(file), Files.readAllBytes(again));
    }

    @Test
    void oldHeaderHas32BitSeen() throws IOException {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov3-tiny"));
        ModelWeights w = WeightsInit.darknet(spec, 1);
        ModelWeights old = new ModelWeights(0, 1, 0, 77, java.util.Map.of());
        assertTrue(!old.seen64());
        Path file = tmp.resolve("old.weights");
        ByteBuffer body = WeightsFile.encode(spec, w);
        body.position(20);
        ByteBuffer b = ByteBuffer.allocate(16 + body.remaining()).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0).putInt(1).putInt(0).putInt(77).put(body);
        Files.write(file, b.array());
        ModelWeights r = WeightsFile.read(file, spec);
        assertEquals(77, r.seen());
        assertArrayEquals(w.conv(0).weights(), r.conv(0).weights());
    }

    @Test
    void truncatedFileNamesTheLayerAndCounts() throws IOException {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov3-tiny"));
        Path file = tmp.resolve("t.weights");
        WeightsFile.write(file, spec, WeightsInit.darknet(spec, 1));
        byte[] all = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(all, 20 + 4 * 1000));
        WeightsFile.WeightsException e = assertThrows(WeightsFile.WeightsException.class,
                () -> WeightsFile.read(file, spec));
        assertEquals(file + ": truncated at layer 2 ([convolutional] at yolov3-tiny.cfg line 37): this layer needs "
                + "4736 floats, 504 left; the network needs 8858734 floats in all, the file has 1000", e.getMessage());
    }

    @Test
    void oversizedFileIsRefused() throws IOException {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov3-tiny"));
        Path file = tmp.resolve("o.weights");
        WeightsFile.write(file, spec, WeightsInit.darknet(spec, 1));
        Files.write(file, new byte[12], java.nio.file.StandardOpenOption.APPEND);
        WeightsFile.WeightsException e = assertThrows(WeightsFile.WeightsException.class,
                () -> WeightsFile.read(file, spec));
        assertEquals(file + ": oversized: the network yolov3-tiny needs 8858734 floats, the file has 8858737 (3 extra "
                + "after the last layer)", e.getMessage());
    }

    @Test
    void darknetInitScale() {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov3-tiny"));
        ModelWeights w = WeightsInit.darknet(spec, 5);
        ConvWeights first = w.conv(0);   // 3x3 over 3 channels: scale sqrt(2/27)
        float scale = (float) Math.sqrt(2.0 / 27);
        float max = 0;
        for (float v : first.weights()) max = Math.max(max, Math.abs(v));
        assertTrue(max <= scale && max > 0.9 * scale, "uniform in +-" + scale + ", max " + max);
        assertEquals(1f, first.scales()[0]);
        assertEquals(1f, first.variance()[0]);
        assertArrayEquals(w.conv(0).weights(), WeightsInit.darknet(spec, 5).conv(0).weights(), "deterministic by seed");
    }

    private static int[] bits(float[] a) {
        int[] out = new int[a.length];
        for (int i = 0; i < a.length; i++) out[i] = Float.floatToRawIntBits(a[i]);
        return out;
    }
}
