package io.argus.pipeline.video;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.gpu.CudaRuntime;
import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.testing.UnpluggedStream;
import io.argus.pipeline.testing.WsClient;
import io.argus.testkit.Budget;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.bytedeco.javacv.FFmpegFrameGrabber;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The live pipeline with NVDEC cameras on a GPU host: frames decoded by NVDEC go into the CUDA batch as surfaces.
 * The same video read by an {@code nvdec} and a {@code cpu} camera gives the same detections frame by frame (the
 * demo model on the shapes sample, FP16: boxes within a pixel or two, the same classes); a GPU frame downloaded for a
 * snapshot equals the CPU decode; and a stream that goes away and comes back recovers on NVDEC.
 */
@Tag("gpu")
@Budget(seconds = 5)
class GpuNvdecPipelineTest {

    private static JsonObject config() throws Exception {
        JsonObject json = TestConfig.demo();
        json.getJsonArray("models").getJsonObject(0).put("backend", "cuda").put("maxBatch", 8);
        return json;
    }

    @Test
    void nvdecAndCpuCamerasFindTheSameObjects() throws Exception {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
        JsonObject json = config();
        json.getJsonArray("cameras").add(TestConfig.camera("gpu", "sample:").put("decoder", "nvdec"))
                .add(TestConfig.camera("cpu", "sample:").put("decoder", "cpu"));
        Map<String, Map<Double, JsonArray>> byCamera = Map.of("gpu", new HashMap<>(), "cpu", new HashMap<>());
        try (RunningApp app = new RunningApp(TestConfig.read(json)); WsClient ws = app.ws("/ws?cameras=gpu,cpu")) {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            int common = 0;
            while (System.nanoTime() < end && common < 60) {
                JsonObject m = ws.messages.poll(1, TimeUnit.SECONDS);
                if (m == null || !"detections".equals(m.getString("type"))) continue;
                Map<Double, JsonArray> mine = byCamera.get(m.getString("cameraId"));
                mine.put(m.getDouble("pts"), m.getJsonArray("detections"));
                common = 0;
                for (Double pts : byCamera.get("gpu").keySet()) if (byCamera.get("cpu").containsKey(pts)) common++;
            }
            JsonObject gpu = app.camera("gpu");
            assertEquals("nvdec", gpu.getString("decoderInUse"), gpu.encode());
            assertTrue(common >= 60, "frames detected on both cameras: " + common + " " + gpu.encode());

            int boxes = 0, unmatched = 0;
            double worstShift = 0;
            for (Map.Entry<Double, JsonArray> e : byCamera.get("gpu").entrySet()) {
                JsonArray cpu = byCamera.get("cpu").get(e.getKey());
                if (cpu == null) continue;
                for (JsonArray[] pair : List.of(new JsonArray[] {e.getValue(), cpu}, new JsonArray[] {cpu, e.getValue()})) {
                    for (int i = 0; i < pair[0].size(); i++) {
                        JsonObject d = pair[0].getJsonObject(i);
                        if (d.getDouble("confidence") < 0.5) continue;   // borderline boxes may fall either side
                        boxes++;
                        double best = Double.MAX_VALUE;
                        for (int j = 0; j < pair[1].size(); j++) {
                            JsonObject o = pair[1].getJsonObject(j);
                            if (o.getInteger("classId").intValue() != d.getInteger("classId")) continue;
                            best = Math.min(best, shift(d.getJsonObject("box"), o.getJsonObject("box")));
                        }
                        if (best > 4) unmatched++;
                        else worstShift = Math.max(worstShift, best);
                    }
                }
            }
            System.out.printf("nvdec vs cpu camera: %d frames in common, %d confident boxes, %d without a counterpart "
                    + "(same class within 4 px), worst corner shift of the matched %.2f px%n", common, boxes, unmatched, worstShift);
            assertTrue(boxes > 50, "the demo model finds the sample's shapes: " + boxes);
            assertTrue(unmatched <= boxes / 50, unmatched + " of " + boxes + " confident boxes unmatched");

        }
    }

    /**
     * What snapshots and training frames of an NVDEC camera get: the surface downloaded and converted on the host
     * (Nv12Download), compared with FFmpeg's CPU decode of the same frame.
     */
    @Test
    void aGpuFrameDownloadsAsTheCpuDecodeSeesIt() throws Exception {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
        Path video = TestMedia.shapes(25);
        io.argus.detector.BgrImage gpu;
        try (io.argus.pipeline.video.nvdec.NvdecDecoder d = io.argus.pipeline.video.nvdec.NvdecDecoder.open("dl", 0, video.toString(), null);
             io.argus.pipeline.video.nvdec.NvdecDecoder.HeldPicture p = d.next()) {
            gpu = io.argus.detector.cuda.Nv12Download.toBgr(p.surface(), 0);
        }
        try (FFmpegFrameGrabber g = new FFmpegFrameGrabber(video.toFile())) {
            g.setPixelFormat(org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_BGR24);
            g.start();
            org.bytedeco.javacv.Frame f = g.grabImage();
            java.nio.ByteBuffer cpu = (java.nio.ByteBuffer) f.image[0];
            assertEquals(f.imageWidth, gpu.width());
            assertEquals(f.imageHeight, gpu.height());
            double sum = 0;
            for (int y = 0; y < gpu.height(); y++) {
                for (int x = 0; x < 3 * gpu.width(); x++) {
                    sum += Math.abs((gpu.pixels().get(y * gpu.stride() + x) & 0xff) - (cpu.get(y * f.imageStride + x) & 0xff));
                }
            }
            double mean = sum / (3.0 * gpu.width() * gpu.height());
            System.out.printf("downloaded NVDEC frame vs CPU decode: mean |diff| %.3f per byte%n", mean);
            assertTrue(mean < 2.5, "mean difference " + mean);
        }
    }

    private static double shift(JsonObject a, JsonObject b) {
        return Math.max(Math.max(Math.abs(a.getDouble("x") - b.getDouble("x")), Math.abs(a.getDouble("y") - b.getDouble("y"))),
                Math.max(Math.abs(a.getDouble("x") + a.getDouble("w") - b.getDouble("x") - b.getDouble("w")),
                        Math.abs(a.getDouble("y") + a.getDouble("h") - b.getDouble("y") - b.getDouble("h"))));
    }

    /** Unplugged and replugged on NVDEC: {@link UnpluggedStream}, the scenario CI runs on the CPU decoder. */
    @Test
    void anUnpluggedStreamRecoversOnNvdec() throws Exception {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
        UnpluggedStream.Outcome o = UnpluggedStream.run(config(), "pipe", "nvdec");
        System.out.println("unplugged: " + o.unplugged().encode());
        System.out.println("replugged: " + o.replugged().encode());
    }
}
