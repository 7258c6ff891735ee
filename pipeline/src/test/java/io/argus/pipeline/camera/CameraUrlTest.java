package io.argus.pipeline.camera;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.config.CameraUrl;
import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Camera addresses: kinds, the protocols FFmpeg may open, and credentials that never show. */
@Budget(seconds = 5)
class CameraUrlTest {
    @TempDir
    Path tmp;

    @Test
    void rtspKeepsCredentialsForFfmpegOnly() {
        CameraUrl u = CameraUrl.parse("rtsp://admin:hunter2@10.0.0.5:554/Streaming/101?token=abc&channel=1", "udp", tmp);
        assertEquals(CameraUrl.Kind.RTSP, u.kind());
        assertEquals("rtsp", u.format());
        assertEquals("udp", u.transport());
        assertTrue(u.input().contains("hunter2"), "FFmpeg needs the credentials");
        assertEquals("rtsp://***@10.0.0.5:554/Streaming/101?token=***&channel=1", u.redacted());
        assertEquals("rtsp,rtp,srtp,udp,tcp", u.protocolWhitelist());
        assertTrue(u.live());
        String ffmpegError = "avformat_open_input() error -5: Could not open input \"" + u.input() + "\"";
        assertFalse(u.scrub(ffmpegError).contains("hunter2"), u.scrub(ffmpegError));
        assertFalse(u.scrub(ffmpegError).contains("abc"), u.scrub(ffmpegError));
    }

    @Test
    void rtspsAllowsTls() {
        assertEquals("rtsps,rtsp,rtp,srtp,udp,tcp,tls", CameraUrl.parse("rtsps://cam/x", "tcp", tmp).protocolWhitelist());
    }

    @Test
    void filesAreOpenedAsFileProtocolWithPlainContainersOnly() throws Exception {
        Path v = Files.createFile(tmp.resolve("concat:evil.mp4"));
        CameraUrl u = CameraUrl.parse(v.toString(), null, tmp);
        assertEquals(CameraUrl.Kind.FILE, u.kind());
        assertEquals("file:" + v.toAbsolutePath(), u.input(), "a file name is never read as a protocol prefix");
        assertEquals("file", u.protocolWhitelist());
        assertFalse(CameraUrl.FILE_FORMATS.contains("concat"));
        assertFalse(CameraUrl.FILE_FORMATS.contains("hls"));
        CameraUrl rel = CameraUrl.parse("./concat:evil.mp4", null, tmp);
        assertEquals(u.input(), rel.input(), "relative paths resolve against the config directory");
        assertThrows(IllegalArgumentException.class, () -> CameraUrl.parse("concat:evil.mp4", null, tmp),
                "without ./ the prefix is a scheme, and concat: is refused");
        assertEquals(CameraUrl.Kind.FILE, CameraUrl.parse("file://" + v.toAbsolutePath(), null, tmp).kind());
    }

    @Test
    void devicesAndSample() {
        assertEquals("/dev/video2", CameraUrl.parse("usb:2", null, tmp).input());
        assertEquals("video4linux2", CameraUrl.parse("/dev/video0", null, tmp).format());
        assertEquals("/dev/video1", CameraUrl.parse("v4l2:///dev/video1", null, tmp).input());
        assertEquals(CameraUrl.Kind.SAMPLE, CameraUrl.parse("sample:", null, tmp).kind());
    }

    @Test
    void everythingElseIsRefusedWithTheReason() {
        for (String bad : new String[]{"concat:/a.mp4|/b.mp4", "subfile:,,start,0,end,0,,:/etc/passwd", "http://x/a.m3u8",
                "pipe:0", "data:video/mp4;base64,AAAA", "ftp://x/y.mp4", "tcp://127.0.0.1:1"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CameraUrl.parse(bad, null, tmp), bad);
            assertTrue(e.getMessage().startsWith("unsupported camera URL scheme"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> CameraUrl.parse(tmp.resolve("missing.mp4").toString(), null, tmp));
        assertThrows(IllegalArgumentException.class, () -> CameraUrl.parse("usb:x", null, tmp));
        assertThrows(IllegalArgumentException.class, () -> CameraUrl.parse("rtsp:///nohost", null, tmp));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CameraUrl.parse("ftp://user:pw@h/x", null, tmp));
        assertFalse(e.getMessage().contains("pw@"), "errors carry the redacted address: " + e.getMessage());
    }
}
