package io.argus.tools.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.cli.ArgusCli;
import io.argus.testkit.Budget;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code argus bench pipeline} runs end to end and reports every figure (a smoke run: small video, short window). */
@Budget(seconds = 45)
class BenchPipelineCommandTest {
    @Test
    void reportsThroughputLatencyCpuAndTheBreakdown() throws Exception {
        PrintStream old = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true));
        int code;
        try {
            code = ArgusCli.run("bench", "pipeline", "--cameras", "1", "--seconds", "4", "--warmup", "2",
                    "--width", "320", "--height", "180", "--fps", "15", "--size", "160",
                    "--cache-dir", io.argus.pipeline.testing.TestMedia.dir().resolve("bench").toString());
        } finally {
            System.setOut(old);
        }
        String text = out.toString();
        System.out.print(text);
        assertEquals(0, code, text);
        Matcher m = Pattern.compile("cameras 1, decoder cpu: decode ([0-9.]+) fps/camera .* p50 ([0-9.]+) ms p99 ([0-9.]+) ms").matcher(text);
        assertTrue(m.find(), text);
        assertTrue(Double.parseDouble(m.group(1)) > 5, "the file camera decodes at its paced rate: " + m.group(1));
        assertTrue(Double.parseDouble(m.group(2)) > 0, "latencies were measured at the WebSocket client");
        for (String part : new String[]{"CPU", "decode", "queue", "preprocess", "network+decode+NMS", "publish to WebSocket receipt",
                "utilisation: GPU n/a, NVDEC n/a", "resident over the window", "max cameras sustained at full rate with decoder cpu"}) {
            assertTrue(text.contains(part), "missing \"" + part + "\" in:\n" + text);
        }
        // the window begins once the camera streams; its worst messages are named with what they were made of
        Matcher first = Pattern.compile("first picture of every camera ([0-9.]+) s after the app was up\n").matcher(text);
        assertTrue(first.find(), text);
        assertTrue(Double.parseDouble(first.group(1)) < 30, text);
        Matcher slow = Pattern.compile("slowest messages: bench0 frame ([0-9]+) ([0-9.]+) ms \\(decode ([0-9.]+) ms\\)"
                + ".*; reconnects in the window 0;").matcher(text);
        assertTrue(slow.find(), text);
        assertTrue(Double.parseDouble(slow.group(2)) >= Double.parseDouble(slow.group(3)), "a latency holds its decode");
        assertTrue(Double.parseDouble(slow.group(2)) >= Double.parseDouble(m.group(3)), "the slowest is at least p99");
    }

    @Test
    void decodeOnlyMeasuresTheCeilingOnTheCpuAndRefusesNvdecWithDetection() throws Exception {
        PrintStream old = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true));
        System.setErr(new PrintStream(err, true));
        int code;
        int refused;
        try {
            code = ArgusCli.run("bench", "pipeline", "--no-detect", "--decoder", "cpu", "--cameras", "1,2",
                    "--seconds", "2", "--warmup", "1", "--width", "320", "--height", "180", "--fps", "15",
                    "--cache-dir", io.argus.pipeline.testing.TestMedia.dir().resolve("bench").toString());
            refused = ArgusCli.run("bench", "pipeline", "--decoder", "nvdec", "--backend", "cpu", "--cameras", "1");
        } finally {
            System.setOut(old);
            System.setErr(oldErr);
        }
        String text = out.toString();
        System.out.print(text);
        assertEquals(0, code, text + err);
        for (int n : new int[] {1, 2}) {
            Matcher m = Pattern.compile("decode only, cpu: " + n + " streams: ([0-9]+) frames/s in all, ([0-9.]+) per "
                    + "stream .* CPU ([0-9.]+)% of a core per stream").matcher(text);
            assertTrue(m.find(), text);
            // unpaced: a 320x180 stream decodes far faster than its 15 fps
            assertTrue(Double.parseDouble(m.group(2)) > 15, text);
            assertTrue(Double.parseDouble(m.group(3)) > 0, text);
        }
        // the window opens once every stream has its first picture, and how long that took is said
        Matcher starts = Pattern.compile("first picture of each stream after ([0-9.]+) s \\(fewest\\), ([0-9.]+) s "
                + "\\(median\\), ([0-9.]+) s \\(most\\)\n").matcher(text);
        for (int k = 0; k < 2; k++) {
            assertTrue(starts.find(), text);
            assertTrue(Double.parseDouble(starts.group(1)) <= Double.parseDouble(starts.group(3)), text);
            assertTrue(Double.parseDouble(starts.group(3)) < 30, text);
        }
        assertTrue(refused != 0, "--decoder nvdec for a model on the CPU is refused");
        assertTrue(err.toString().contains("--decoder nvdec with --backend cpu: NVDEC frames stay on the GPU"),
                err.toString());
    }
}
