package io.argus.pipeline.camera;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.pipeline.config.ArgusConfig.CameraSettings;
import io.argus.pipeline.config.ArgusConfig.Reconnect;
import io.argus.pipeline.config.CameraUrl;
import io.argus.testkit.Budget;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The CPU decoder's FFmpeg settings that JavaCV would otherwise decide. JavaCV writes its own {@code maxDelay} (-1
 * unless set) into {@code AVFormatContext.max_delay} after opening, over any {@code max_delay} option; with -1,
 * FFmpeg's RTSP demuxer stopped waiting for reordered RTP packets and a UDP camera behind 200 +-50 ms of jitter kept
 * a fraction of its frames (docs/reliability.md, UDP behind jitter). The behaviour itself is measured by
 * {@code CameraNetworkFaultsTest#reorderingAloneFor15Seconds} (root, network namespaces).
 */
@Budget(seconds = 5)
class CpuFrameDecoderTest {
    static final CameraSettings SETTINGS = new CameraSettings(5000, 20_000, 5000, 6, 1, new Reconnect(500, 30_000, 2, 0.1), "quiet");

    @Test
    void rtspCamerasWaitForReorderedPackets() {
        for (String transport : new String[] {"udp", "tcp"}) {
            CpuFrameDecoder d = new CpuFrameDecoder(CameraUrl.parse("rtsp://camera.invalid/stream", transport, Path.of(".")),
                    SETTINGS, null);
            try {
                assertEquals(CameraUrl.RTP_REORDER_DELAY_US, d.grabber().getMaxDelay(), transport);
            } finally {
                d.close();
            }
        }
    }

    @Test
    void filesKeepFfmpegsDefault() throws Exception {
        Path f = java.nio.file.Files.createTempFile("argus-cpu-decoder", ".mp4");
        try {
            CpuFrameDecoder d = new CpuFrameDecoder(CameraUrl.parse(f.toString(), null, Path.of(".")), SETTINGS, null);
            try {
                assertEquals(-1, d.grabber().getMaxDelay());
            } finally {
                d.close();
            }
        } finally {
            java.nio.file.Files.deleteIfExists(f);
        }
    }
}
