package io.argus.pipeline.camera;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/** What a failing camera's status says: FFmpeg's error codes in words, and why a connected camera has no picture. */
@Budget(seconds = 5)
class CameraErrorWordsTest {

    @Test
    void ffmpegErrorCodesBecomeWordsWithTheCodeLast() {
        assertEquals("Could not open input \"file:/srv/a.mp4\": Invalid data found when processing input "
                        + "(FFmpeg avformat_open_input() error -1094995529)",
                CameraReader.readable("avformat_open_input() error -1094995529: Could not open input \"file:/srv/a.mp4\"."
                        + " (Has setFormat() been called?)"));
        assertEquals("Could not open input \"rtsp://cam/live\": Connection refused (FFmpeg avformat_open_input() error -111)",
                CameraReader.readable("avformat_open_input() error -111: Could not open input \"rtsp://cam/live\"."));
        assertEquals("stream ended", CameraReader.readable("stream ended"));
        assertEquals("unknown error", CameraReader.readable(null));
    }

    @Test
    void aCameraWithoutPicturesIsToldWhetherPacketsArriveAndWhichSettingBoundsTheWait() {
        String keyframe = new NoPicture(true, 20_000, true, false).describe();
        assertTrue(keyframe.startsWith("no picture within 20000 ms of connecting though packets arrive: no keyframe yet")
                && keyframe.contains("camera.firstFrameTimeoutMs"), keyframe);
        String silentUdp = new NoPicture(true, 20_000, false, true).describe();
        assertTrue(silentUdp.contains("no video packets arrived") && silentUdp.contains("try transport: tcp"), silentUdp);
        String stalled = new NoPicture(false, 5000, false, false).describe();
        assertTrue(stalled.startsWith("no picture for 5000 ms: no video packets arrived")
                && stalled.contains("camera.stallTimeoutMs"), stalled);
        String undecodable = new NoPicture(false, 5000, true, false).describe();
        assertTrue(undecodable.contains("though packets arrive: the decoder makes no picture"), undecodable);
    }
}
