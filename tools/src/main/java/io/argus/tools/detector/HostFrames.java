package io.argus.tools.detector;

import io.argus.detector.BgrImage;
import io.argus.gpu.GpuBuffer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A batch of host frames as a camera pipeline hands them to a detector: every frame in its own buffer (as frames of
 * different cameras are), on the Java heap or page-locked as the camera pools allocate them for a model on a GPU
 * ({@code camera.pinnedFrames}). The pixels are copies of one picture; a batch of the same buffer repeated would let
 * the host copy read it from the CPU's cache.
 */
public final class HostFrames implements AutoCloseable {
    public enum Kind {
        HEAP, PINNED;

        public static Kind parse(String s) {
            return switch (s.trim().toLowerCase(Locale.ROOT)) {
                case "heap" -> HEAP;
                case "pinned" -> PINNED;
                default -> throw new IllegalArgumentException("--frames: expected heap or pinned, found '" + s + "'");
            };
        }

        public String label() { return name().toLowerCase(Locale.ROOT); }
    }

    private final List<GpuBuffer> pinned = new ArrayList<>();
    private final List<BgrImage> frames = new ArrayList<>();

    /** {@code n} frames of {@code picture}'s pixels, each in its own buffer of {@code kind}. */
    public HostFrames(Kind kind, BgrImage picture, int n) {
        int bytes = (int) ((long) picture.stride() * (picture.height() - 1) + 3L * picture.width());
        try {
            for (int i = 0; i < n; i++) {
                ByteBuffer b;
                if (kind == Kind.PINNED) {
                    GpuBuffer g = GpuBuffer.pinnedPortable(bytes, "bench frame");
                    pinned.add(g);
                    b = g.host();
                } else {
                    b = ByteBuffer.allocate(bytes);
                }
                b.put(0, picture.pixels(), 0, bytes);
                frames.add(new BgrImage(picture.width(), picture.height(), picture.stride(), b));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    public List<BgrImage> frames() { return frames; }

    @Override
    public void close() {
        pinned.forEach(GpuBuffer::close);
        pinned.clear();
    }
}
