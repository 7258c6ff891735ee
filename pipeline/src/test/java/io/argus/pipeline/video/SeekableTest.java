package io.argus.pipeline.video;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bytedeco.javacv.FFmpegFrameGrabber;
import org.junit.jupiter.api.Test;

/**
 * A looping file camera rewinds a regular file and reopens a pipe: FFmpeg's seek on a pipe "succeeds" inside its
 * read buffer, and an unplugged writer then looked like a camera replaying stale frames forever.
 */
@Budget(seconds = 5)
class SeekableTest {
    @Test
    void aRegularFileCanGoBack() throws Exception {
        Path video = TestMedia.h264(160, 120, 10, 1);
        try (FFmpegFrameGrabber g = new FFmpegFrameGrabber(video.toFile())) {
            g.start();
            assertTrue(Seekable.of(g.getFormatContext()));
            g.stop();
        }
    }

    @Test
    void aNamedPipeCannot() throws Exception {
        Path video = TestMedia.h264(160, 120, 10, 1);
        Path fifo = TestMedia.dir().resolve("seekable-" + ProcessHandle.current().pid() + ".fifo");
        Files.deleteIfExists(fifo);
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor());
        Thread writer = Thread.ofPlatform().daemon().start(() -> {
            try (OutputStream out = Files.newOutputStream(fifo)) {
                out.write(Files.readAllBytes(video));
            } catch (java.io.IOException e) {
                // the reader closed first
            }
        });
        try (FFmpegFrameGrabber g = new FFmpegFrameGrabber(fifo.toFile())) {
            g.start();
            assertFalse(Seekable.of(g.getFormatContext()), "a named pipe reported as seekable");
            g.stop();
        } finally {
            writer.join(10_000);
            Files.deleteIfExists(fifo);
        }
    }
}
