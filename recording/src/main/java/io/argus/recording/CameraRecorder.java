package io.argus.recording;

import static org.bytedeco.ffmpeg.global.avcodec.av_packet_clone;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_free;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_copy;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_free;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.ffmpeg.avcodec.AVCodecParameters;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avutil.AVRational;

/**
 * One camera's recording, fed by its reader thread and written on a thread of its own: the reader hands each video
 * packet over (a reference, no copy of the data) and goes on decoding, so a slow disk never delays detection. The queue
 * between them is bounded in bytes; a packet that does not fit is dropped and counted, and the segment in progress
 * ends there (the next one starts at the next keyframe, since what follows a hole does not decode). Every packet
 * received is accounted for: written, dropped for the queue, skipped while waiting for a keyframe, or lost to a write
 * error ({@link Stats}).
 *
 * <p>A write error (a full disk) ends the segment; the writer then tries again at a keyframe no sooner than
 * {@link #RETRY_MS} later, so recording resumes by itself once retention has made room. The state stays failing until a
 * fragment written after the error has reached the disk: an alert that does not flicker while the disk is still full.
 */
public final class CameraRecorder implements PacketSink, AutoCloseable {
    static final long RETRY_MS = 5_000;

    /** Counts since this recorder started, and what it is doing. */
    public record Stats(long received, long written, long droppedQueueFull, long skippedWaitingKeyframe,
                        long lostToErrors, long segments, long bytesWritten, long queuedBytes, String state,
                        String lastError, long retryAtMs) {}

    private sealed interface Item permits Start, Packet, End, Stop {}

    private record Start(AVCodecParameters parameters, AVRational timeBase) implements Item {}

    private record Packet(AVPacket packet, long wallMs, boolean afterHole) implements Item {}

    private record End() implements Item {}

    private record Stop() implements Item {}

    private final String camera;
    private final SegmentIndex index;
    private final long segmentMs;
    private final long queueLimitBytes;
    private final long retryMs;
    private final LinkedBlockingQueue<Item> queue = new LinkedBlockingQueue<>();
    private final AtomicLong queuedBytes = new AtomicLong();
    private final Thread writerThread;
    private final System.Logger log;

    private final AtomicLong received = new AtomicLong();
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong skipped = new AtomicLong();
    private final AtomicLong lost = new AtomicLong();
    private final AtomicLong segments = new AtomicLong();
    private final AtomicLong bytesWritten = new AtomicLong();
    private volatile String state = "waiting for a stream";
    private volatile String lastError;
    /** After a write error: when the writer tries again (at the first keyframe from then on); 0 when not waiting. */
    private volatile long retryAt;
    /**
     * Writer thread only: after a write error, the writer's fragment count to pass before the camera counts as
     * recording again (a packet's write reaches only the muxer's buffer, so on a full disk it succeeds until its
     * fragment is written out); -1 when not failing.
     */
    private long recoveredPast = -1;
    private boolean hole;          // reader thread only: a packet was dropped since the last one queued
    private volatile boolean stopping;

    public CameraRecorder(String camera, SegmentIndex index, long segmentMs, long queueLimitBytes) {
        this(camera, index, segmentMs, queueLimitBytes, RETRY_MS);
    }

    CameraRecorder(String camera, SegmentIndex index, long segmentMs, long queueLimitBytes, long retryMs) {
        StorageLayout.requireCamera(camera);
        this.retryMs = retryMs;
        this.camera = camera;
        this.index = index;
        this.segmentMs = segmentMs;
        this.queueLimitBytes = queueLimitBytes;
        this.log = System.getLogger("argus.recording." + camera);
        this.writerThread = new Thread(this::writeLoop, "argus-record-" + camera);
        writerThread.setDaemon(true);
        writerThread.start();
    }

    public String camera() { return camera; }

    /** The reader connected: packets that follow are of this stream (parameters copied). */
    @Override
    public void streamStarted(AVCodecParameters parameters, AVRational timeBase) {
        AVCodecParameters copy = avcodec_parameters_alloc();
        avcodec_parameters_copy(copy, parameters);
        queue.add(new Start(copy, new AVRational().num(timeBase.num()).den(timeBase.den())));
    }

    /** A video packet as read (referenced, not taken: the caller may reuse its packet at once). */
    @Override
    public void packet(AVPacket packet, long wallMs) {
        received.incrementAndGet();
        long size = packet.size();
        if (stopping || queuedBytes.get() + size > queueLimitBytes) {
            dropped.incrementAndGet();
            hole = true;
            return;
        }
        AVPacket ref = av_packet_clone(packet);
        if (ref == null) {
            dropped.incrementAndGet();
            hole = true;
            return;
        }
        queuedBytes.addAndGet(size);
        queue.add(new Packet(ref, wallMs, hole));
        hole = false;
    }

    /** The connection ended: the segment in progress is finished. */
    @Override
    public void streamEnded() { queue.add(new End()); }

    public Stats stats() {
        return new Stats(received.get(), written.get(), dropped.get(), skipped.get(), lost.get(), segments.get(),
                bytesWritten.get(), queuedBytes.get(), state, lastError, retryAt);
    }

    private void writeLoop() {
        SegmentWriter writer = null;
        // Rows the index could not take (its disk full too): kept and written with the next change that it takes,
        // so a complete segment does not stay "being written" (out of retention's reach) until the next start
        java.util.List<Segment> unindexed = new java.util.ArrayList<>();
        SegmentWriter.Listener listener = new SegmentWriter.Listener() {
            @Override public void opened(Segment s) {
                try {
                    index.opened(s);   // a row missing here is added from the file at the next start
                } catch (RuntimeException e) {
                    failed("the index did not take the new segment " + s.name() + ": " + e.getMessage());
                }
                indexPending(unindexed);
            }

            @Override public void closed(Segment s) {
                segments.incrementAndGet();
                bytesWritten.addAndGet(s.bytes());
                unindexed.add(s);
                indexPending(unindexed);
            }
        };
        try {
            while (true) {
                Item item = queue.take();
                if (item instanceof Stop) break;
                switch (item) {
                    case Start s -> {
                        writer = closeQuietly(writer);
                        try {
                            writer = new SegmentWriter(camera, index.layout(), s.parameters(), s.timeBase(), segmentMs, listener);
                            state = "waiting for a keyframe";
                        } catch (RuntimeException e) {
                            failed("cannot record this stream: " + e.getMessage());
                        } finally {
                            avcodec_parameters_free(s.parameters());
                        }
                    }
                    case Stop stop -> throw new IllegalStateException("handled above");
                    case End e -> {
                        writer = closeQuietly(writer);
                        state = "waiting for a stream";
                    }
                    case Packet p -> {
                        try {
                            queuedBytes.addAndGet(-p.packet().size());
                            if (writer == null) {
                                lost.incrementAndGet();
                                continue;
                            }
                            if (p.afterHole()) finishQuietly(writer);
                            if (retryAt != 0) {
                                if (System.currentTimeMillis() < retryAt) {
                                    lost.incrementAndGet();
                                    continue;
                                }
                                retryAt = 0;
                            }
                            long skippedBefore = writer.skippedBeforeKeyframe();
                            try {
                                writer.write(p.packet(), p.wallMs());
                                if (writer.skippedBeforeKeyframe() > skippedBefore) skipped.incrementAndGet();
                                else {
                                    written.incrementAndGet();
                                    if (recoveredPast < 0 || writer.fragmentsWritten() > recoveredPast) {
                                        recoveredPast = -1;
                                        state = "recording";
                                    }
                                }
                            } catch (IOException | RuntimeException e) {
                                retryAt = System.currentTimeMillis() + retryMs;
                                recoveredPast = writer.fragmentsWritten();
                                failed(e.getMessage());
                                finishQuietly(writer);
                                lost.incrementAndGet();
                            }
                        } finally {
                            av_packet_free(p.packet());
                        }
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(writer);
            drain();
            state = "stopped";
        }
    }

    private void indexPending(java.util.List<Segment> unindexed) {
        try {
            while (!unindexed.isEmpty()) {
                index.closed(unindexed.get(0));
                unindexed.remove(0);
            }
        } catch (RuntimeException e) {
            failed("the index did not take " + unindexed.size() + " closed segment(s) yet: " + e.getMessage());
        }
    }

    private void failed(String why) {
        lastError = why;
        state = "failing: " + why;
        log.log(Level.WARNING, "recording of {0}: {1}", camera, why);
    }

    private void finishQuietly(SegmentWriter w) {
        try {
            w.finish();
        } catch (IOException | RuntimeException e) {
            failed("closing a segment: " + e.getMessage());
        }
    }

    private SegmentWriter closeQuietly(SegmentWriter w) {
        if (w == null) return null;
        try {
            w.close();
        } catch (IOException | RuntimeException e) {
            failed("closing a segment: " + e.getMessage());
        }
        return null;
    }

    private void drain() {
        Item i;
        while ((i = queue.poll()) != null) {
            if (i instanceof Packet p) {
                lost.incrementAndGet();
                queuedBytes.addAndGet(-p.packet().size());
                av_packet_free(p.packet());
            } else if (i instanceof Start s) {
                avcodec_parameters_free(s.parameters());
            }
        }
    }

    /** Finishes the segment in progress and stops the writer (waiting for it up to {@code timeoutMs}). */
    public boolean close(long timeoutMs) throws InterruptedException {
        stopping = true;
        queue.add(new Stop());
        writerThread.join(timeoutMs);
        return !writerThread.isAlive();
    }

    @Override
    public void close() {
        try {
            close(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
