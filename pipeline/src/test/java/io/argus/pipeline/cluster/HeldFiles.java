package io.argus.pipeline.cluster;

import io.argus.pipeline.recording.Recordings;
import io.argus.recording.Segment;
import io.argus.recording.StorageLayout;
import io.vertx.core.Future;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A node's recordings for tests of the requests between nodes ({@link NodeRecordings}): one camera's segment of
 * random bytes under a storage directory, found by name as the real storage finds it, and a clip file; every call
 * counted, so a test sees that a refused request reached nothing.
 */
public final class HeldFiles implements NodeRecordings.Held {
    public static final String CAMERA = "cam";
    /** 3.5 MiB and a bit: three whole chunks and a short one. */
    public static final int SEGMENT_BYTES = (7 << 20) / 2 + 321;
    public static final long START_MS = 1_764_400_000_000L;

    public final StorageLayout layout;
    public final String segment;
    public final byte[] segmentBytes;
    public final Path clip;
    public final byte[] clipBytes;
    public final AtomicInteger calls = new AtomicInteger();

    public HeldFiles(Path dir) throws IOException {
        layout = new StorageLayout(dir.resolve("recordings"));
        segment = layout.newSegmentName(CAMERA, START_MS);
        segmentBytes = new byte[SEGMENT_BYTES];
        new Random(11).nextBytes(segmentBytes);
        Files.write(layout.prepare(segment), segmentBytes);
        clip = dir.resolve("clip.mp4");
        clipBytes = new byte[1_500_000];
        new Random(12).nextBytes(clipBytes);
        Files.write(clip, clipBytes);
    }

    /** The clip made again: a new file moved over the old one, as the clip writer does. */
    public void remakeClip() throws IOException {
        Path again = clip.resolveSibling("clip.mp4.partial");
        Files.write(again, clipBytes);
        Files.move(again, clip, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    @Override
    public Future<List<Segment>> segments(String camera, long fromMs, long toMs, int limit) {
        calls.incrementAndGet();
        Segment s = new Segment(CAMERA, segment, START_MS, START_MS + 2_000, SEGMENT_BYTES, 50);
        return Future.succeededFuture(CAMERA.equals(camera) && s.overlaps(fromMs, toMs) ? List.of(s) : List.of());
    }

    @Override
    public Future<Path> file(String name) {
        calls.incrementAndGet();
        try {
            Path f = layout.file(name);
            return Files.isRegularFile(f) ? Future.succeededFuture(f) : Future.failedFuture(new NoSuchElementException("no segment " + name));
        } catch (IllegalArgumentException e) {
            return Future.failedFuture(e);
        }
    }

    @Override
    public Future<Recordings.Clip> clip(String camera, long fromMs, long toMs) {
        calls.incrementAndGet();
        if (!CAMERA.equals(camera)) return Future.failedFuture(new NoSuchElementException("nothing recorded of " + camera));
        return Future.succeededFuture(new Recordings.Clip(clip, fromMs, toMs - 1, 10, clipBytes.length, null));
    }

    @Override
    public Future<Recordings.Clip> eventClip(String camera, long startMs, long endMs) {
        return clip(camera, startMs - 1_000, (endMs < 0 ? startMs : endMs) + 1_001);
    }
}
