package io.argus.pipeline.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.cli.ArgusCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code argus bench pipeline} runs end to end and reports every figure (a smoke run: small video, short window). */
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
        Matcher m = Pattern.compile("cameras 1: decode ([0-9.]+) fps/camera .* p50 ([0-9.]+) ms p99 ([0-9.]+) ms").matcher(text);
        assertTrue(m.find(), text);
        assertTrue(Double.parseDouble(m.group(1)) > 5, "the file camera decodes at its paced rate: " + m.group(1));
        assertTrue(Double.parseDouble(m.group(2)) > 0, "latencies were measured at the WebSocket client");
        for (String part : new String[]{"CPU", "decode", "queue", "preprocess", "network+decode+NMS", "publish to WebSocket receipt",
                "max cameras sustained at full rate"}) {
            assertTrue(text.contains(part), "missing \"" + part + "\" in:\n" + text);
        }
    }
}
