package io.argus.pipeline.camera;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.testkit.Budget;
import io.argus.testkit.Tiers;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Live RTSP cameras whose first picture is seconds away (a keyframe every 10 s, as many IP cameras send them) stream
 * with the product's settings: the first picture has its own, longer bound (camera.firstFrameTimeoutMs, 20 s) and the
 * stall clock (5 s) starts after it. A camera that overruns the first bound is told why: packets arrive, no keyframe
 * yet, and which setting to raise. The three connections run at once against one server (each gets its own encoder);
 * the full matrix of codecs, intervals and transports is scripts/rtsp-keyframes.sh.
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 30)
class RtspKeyframeTest {

    @Test
    void aCameraWithKeyframesTenSecondsApartStreamsAndOneTooSlowForItsBoundIsToldWhy() throws Exception {
        String missing = LiveRtspCamera.missing();
        assumeTrue(missing == null, missing);
        boolean hevc = LiveRtspCamera.hevc();
        var pool = Executors.newFixedThreadPool(3);
        try (LiveRtspCamera server = LiveRtspCamera.start()) {
            var longGop = CompletableFuture.supplyAsync(() -> read(server, "h264", 10, "tcp", new JsonObject()), pool);
            var tooShort = CompletableFuture.supplyAsync(() -> read(server, "h264", 10, "tcp",
                    new JsonObject().put("firstFrameTimeoutMs", 3000)), pool);
            var hevcUdp = hevc ? CompletableFuture.supplyAsync(() -> read(server, "h265", 1, "udp", new JsonObject()), pool)
                    : null;

            LiveRtspCamera.FirstPicture p = longGop.get();
            System.out.println("first picture: " + p);
            // FFmpeg drops the keyframe it read while probing the stream: the first picture is the next keyframe's
            assertTrue(p.firstPictureMs() > 5000 && p.firstPictureMs() < 20_000,
                    "the first picture comes after the stall timeout, within the first-picture one: " + p);
            assertEquals(0, p.stalls(), p.toString());
            assertNull(p.lastError(), p.toString());

            LiveRtspCamera.FirstPicture t = tooShort.get();
            assertTrue(Double.isNaN(t.firstPictureMs()) && t.stalls() == 1, t.toString());
            assertTrue(t.lastError().startsWith("no picture within 3000 ms of connecting though packets arrive: no "
                    + "keyframe yet") && t.lastError().contains("camera.firstFrameTimeoutMs"), t.lastError());

            if (hevcUdp != null) {
                LiveRtspCamera.FirstPicture h = hevcUdp.get();
                System.out.println("first picture: " + h);
                assertFalse(Double.isNaN(h.firstPictureMs()), "HEVC over UDP streams: " + h);
                assertEquals(0, h.stalls(), h.toString());
            } else {
                System.out.println("no x265enc in GStreamer: the HEVC case did not run");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static LiveRtspCamera.FirstPicture read(LiveRtspCamera server, String codec, int keyframeSeconds,
                                                    String transport, JsonObject camera) {
        try {
            return server.firstPicture(codec, keyframeSeconds, transport, camera, 20_000);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
