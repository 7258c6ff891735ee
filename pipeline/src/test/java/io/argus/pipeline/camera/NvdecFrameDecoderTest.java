package io.argus.pipeline.camera;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.config.CameraUrl;
import io.argus.testkit.Budget;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Which sources NVDEC refuses before trying, without a GPU. RTSP names its demuxer ("rtsp") as a capture device names
 * its own ("video4linux2"); NVDEC once refused every source with a demuxer named, so no RTSP camera ever decoded on
 * the GPU. Decoding itself is {@code video/GpuNvdecDecodeTest} (GPU).
 */
@Budget(seconds = 5)
class NvdecFrameDecoderTest {
    @Test
    void rtspAndFilesAreStreamsNvdecMayDecode() throws Exception {
        for (String transport : new String[] {"udp", "tcp"}) {
            CameraUrl rtsp = CameraUrl.parse("rtsp://camera.invalid/stream", transport, Path.of("."));
            assertNotNull(rtsp.format(), "RTSP names its demuxer: the case this test is about");
            assertNull(NvdecFrameDecoder.refusal(rtsp), transport);
        }
        Path file = java.nio.file.Files.createTempFile("argus-nvdec", ".mp4");
        try {
            assertNull(NvdecFrameDecoder.refusal(CameraUrl.parse(file.toString(), null, Path.of("."))));
        } finally {
            java.nio.file.Files.delete(file);
        }
    }

    @Test
    void aCaptureDeviceIsRefusedNamingWhy() {
        String why = NvdecFrameDecoder.refusal(CameraUrl.parse("/dev/video0", null, Path.of(".")));
        assertNotNull(why);
        assertTrue(why.contains("video4linux2 device delivers raw or MJPEG frames"), why);
    }
}
