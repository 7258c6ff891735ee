package io.argus.pipeline.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Pace;
import io.vertx.core.json.JsonObject;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.global.avcodec;
import org.bytedeco.javacv.FFmpegFrameGrabber;
import org.bytedeco.javacv.FFmpegFrameRecorder;

/**
 * A stream that is unplugged and replugged, as a network camera's is: the camera reads MPEG-TS from a named pipe that
 * a writer fills with {@link #CLIP_SECONDS} seconds of the shapes sample and then closes (unplugged). A few seconds
 * later a new writer comes (replugged). The camera must notice the end, reconnect on the same decoder and publish
 * detections again. Shared by the CPU test (CI) and the NVDEC test (GPU host), so the scenario itself is checked
 * where there is no GPU.
 */
public final class UnpluggedStream {
    /**
     * How long one writer feeds the pipe; the camera reads in real time, so this is also how long it plays: long enough
     * for detections before the unplug (the demo model's first come within a second of the first frame).
     */
    public static final int CLIP_SECONDS = 4;

    private UnpluggedStream() {}

    /** What the camera said while unplugged and after the replug. */
    public record Outcome(JsonObject unplugged, JsonObject replugged) {}

    /**
     * Runs the scenario on {@code json} (a config without the camera) with a camera {@code id} on {@code decoder},
     * and checks it: the writer really finished, the camera reconnected at least once more after the replug, on the
     * same decoder, and is streaming with detections.
     */
    public static Outcome run(JsonObject json, String id, String decoder) throws Exception {
        Path ts = clip();
        Path fifo = TestMedia.dir().resolve("unplug-" + decoder + "-" + ProcessHandle.current().pid() + ".ts");
        Files.deleteIfExists(fifo);
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor());
        json.getJsonObject("camera").put("connectTimeoutMs", 3000).put("stallTimeoutMs", 2000);
        json.getJsonArray("cameras").add(TestConfig.camera(id, fifo.toString()).put("decoder", decoder));
        Thread again = null;
        try (RunningApp app = new RunningApp(TestConfig.read(json)); WsClient ws = app.ws("/ws?cameras=" + id)) {
            Thread writer = feed(fifo, ts);
            ws.await(m -> "detections".equals(m.getString("type")), Duration.ofSeconds(60), "detections before the unplug");
            writer.join(Duration.ofSeconds(4L * CLIP_SECONDS + 30));
            assertFalse(writer.isAlive(), "the first writer is still writing after " + (4 * CLIP_SECONDS + 30) + " s: "
                    + app.camera(id).encode());
            Pace.holdMillis(4000, "the stream unplugged for a while");
            JsonObject down = app.camera(id);
            long reconnectsWhileDown = down.getLong("reconnects");
            ws.messages.clear();
            again = feed(fifo, ts);   // replugged
            ws.await(m -> "detections".equals(m.getString("type")) && !m.getJsonArray("detections").isEmpty(),
                    Duration.ofSeconds(60), "detections after the replug");
            JsonObject up = app.camera(id);
            assertEquals(decoder, up.getString("decoderInUse"), up.encode());
            assertTrue(up.getLong("reconnects") >= Math.max(1, reconnectsWhileDown), "no reconnect: " + up.encode());
            assertTrue(up.getLong("framesDecoded") > down.getLong("framesDecoded"), "nothing decoded since the replug: "
                    + down.encode() + " then " + up.encode());
            assertEquals("streaming", up.getString("state"), up.encode());
            return new Outcome(down, up);
        } finally {
            // the app is closed: its reader gone, the second writer ends with a broken pipe rather than play on
            if (again != null) again.join(Duration.ofSeconds(4L * CLIP_SECONDS + 30));
            Files.deleteIfExists(fifo);
        }
    }

    /** Writes the clip into the pipe once (blocking while the camera reads in real time), then closes it. */
    private static Thread feed(Path fifo, Path ts) {
        return Thread.ofPlatform().daemon().name("fifo-writer").start(() -> {
            try (OutputStream out = Files.newOutputStream(fifo)) {
                out.write(Files.readAllBytes(ts));
            } catch (java.io.IOException e) {
                // the reader went away
            }
        });
    }

    /** The first {@link #CLIP_SECONDS} seconds of the shapes sample, remuxed to MPEG-TS (a pipe needs no index). */
    static synchronized Path clip() throws Exception {
        Path ts = TestMedia.dir().resolve("shapes-25fps-" + CLIP_SECONDS + "s.ts");
        if (Files.isRegularFile(ts) && Files.size(ts) > 0) return ts;
        Path tmp = TestMedia.scratchFor(ts, ".ts");
        try (FFmpegFrameGrabber g = new FFmpegFrameGrabber(TestMedia.shapes(25).toFile())) {
            g.start();
            try (FFmpegFrameRecorder r = new FFmpegFrameRecorder(tmp.toFile(), g.getImageWidth(), g.getImageHeight(), 0)) {
                r.setFormat("mpegts");
                r.start(g.getFormatContext());
                double timeBase = g.getFormatContext().streams(g.getVideoStream()).time_base().num()
                        / (double) g.getFormatContext().streams(g.getVideoStream()).time_base().den();
                AVPacket p;
                while ((p = g.grabPacket()) != null) {
                    boolean past = p.pts() * timeBase >= CLIP_SECONDS;
                    if (!past) r.recordPacket(p);
                    avcodec.av_packet_unref(p);
                    if (past) break;
                }
                r.stop();
            }
            g.stop();
        }
        TestMedia.publish(tmp, ts);
        return ts;
    }
}
