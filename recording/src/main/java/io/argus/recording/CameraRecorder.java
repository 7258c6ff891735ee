package io.argus.recording;

import static org.bytedeco.ffmpeg.global.avcodec.av_packet_clone;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_free;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_copy;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_free;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 *
 * <p>In the events and motion modes only what is asked for is recorded: an event's span (or a moment of motion) with
 * the camera's pre-roll before and post-roll after ({@link #around}). Until then the writer keeps the last seconds in
 * memory ({@link PreRoll}, whole groups of pictures, bounded by the queue's bytes), so a recording that starts when an
 * event is known can begin before it; a recording ends its segment at the first keyframe after the spans it served.
 */
public final class CameraRecorder implements PacketSink, AutoCloseable {
    static final long RETRY_MS = 5_000;

    /**
     * How long an event whose end never came keeps its recording going: the longest clip there is, then the recording
     * stops for it (a tracker that lost an object without ending its event must not record forever).
     */
    static final long OPEN_EVENT_MS = 3_600_000L;
    /**
     * The pre-roll kept beyond the camera's own: an event is known a detection's latency after its first picture, and
     * its recording must still reach back the whole pre-roll before that picture.
     */
    static final long LATENCY_ALLOWANCE_MS = 10_000;
    /** Spans asked for at once at most (events of one camera, and motion): beyond it the one ending first goes. */
    static final int HOLDS_MAX = 256;
    /** The key of motion's span among the events'. */
    static final String MOTION = "motion";

    /** What is recorded: every packet, or only around events, or only around motion in the pictures. */
    public enum Mode { CONTINUOUS, EVENTS, MOTION }

    /**
     * How a camera is recorded: its mode; the recording reaches {@code preRollMs} before and {@code postRollMs} after
     * each event or moment of motion (events and motion modes); motion's grey-level threshold and area share
     * ({@link MotionDetector}); the bytes the pre-roll may hold in memory at most (beyond them it is shorter).
     */
    public record Options(Mode mode, long preRollMs, long postRollMs, int motionThreshold, double motionArea,
                          long preRollMaxBytes) {
        public static final Options CONTINUOUS = new Options(Mode.CONTINUOUS, 0, 0, 25, 0.005, 0);
    }

    /**
     * Counts since this recorder started, and what it is doing. Every packet received is written, dropped for the
     * queue, skipped waiting for a keyframe, lost to an error, not recorded (no event or motion asked for it), held in
     * the pre-roll, or still queued.
     */
    public record Stats(long received, long written, long droppedQueueFull, long skippedWaitingKeyframe,
                        long lostToErrors, long notRecorded, long preRollPackets, long segments, long bytesWritten,
                        long queuedBytes, String state, String lastError, long retryAtMs) {}

    /** A span to record, [fromMs, untilMs] of wall-clock time (rolls included). */
    private record Hold(long fromMs, long untilMs, boolean open) {}

    private sealed interface Item permits Start, Packet, End, Stop {}

    private record Start(AVCodecParameters parameters, AVRational timeBase) implements Item {}

    private record Packet(AVPacket packet, long wallMs, boolean afterHole) implements Item {}

    private record End() implements Item {}

    private record Stop() implements Item {}

    private final String camera;
    private final Options options;
    private final Map<String, Hold> holds = new ConcurrentHashMap<>();
    private final MotionDetector motion;   // reader thread only; null unless in motion mode
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
    private final AtomicLong notRecorded = new AtomicLong();
    private final AtomicLong preRollPackets = new AtomicLong();
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
        this(camera, index, segmentMs, queueLimitBytes, Options.CONTINUOUS, RETRY_MS);
    }

    public CameraRecorder(String camera, SegmentIndex index, long segmentMs, long queueLimitBytes, Options options) {
        this(camera, index, segmentMs, queueLimitBytes, options, RETRY_MS);
    }

    CameraRecorder(String camera, SegmentIndex index, long segmentMs, long queueLimitBytes, long retryMs) {
        this(camera, index, segmentMs, queueLimitBytes, Options.CONTINUOUS, retryMs);
    }

    CameraRecorder(String camera, SegmentIndex index, long segmentMs, long queueLimitBytes, Options options, long retryMs) {
        StorageLayout.requireCamera(camera);
        this.options = options;
        this.motion = options.mode() == Mode.MOTION ? new MotionDetector(options.motionThreshold(), options.motionArea()) : null;
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

    /** In motion mode the reader shows each decoded picture ({@link #picture}). */
    @Override
    public boolean wantsPictures() { return motion != null; }

    /** A decoded picture (BGR, the reader's thread): motion in it asks for its moment to be recorded. */
    @Override
    public void picture(ByteBuffer bgr, int width, int height, int stride, long wallMs) {
        if (motion != null && motion.moved(bgr, width, height, stride)) around(MOTION, wallMs, wallMs);
    }

    /**
     * Asks for the span of an event (or motion) to be recorded, in the events and motion modes: from {@code startMs}
     * less the pre-roll to {@code endMs} plus the post-roll ({@code endMs} -1: the event is still open, and recorded
     * until its end is given, {@link #OPEN_EVENT_MS} at most). Asked again with the same key, the span is replaced;
     * motion's span grows while the motion goes on. Any thread; returns at once.
     */
    public void around(String key, long startMs, long endMs) {
        if (options.mode() == Mode.CONTINUOUS) return;
        long from = startMs - options.preRollMs();
        if (key.equals(MOTION)) {
            Hold before = holds.get(MOTION);
            if (before != null && before.untilMs() >= from) from = Math.min(from, before.fromMs());
        }
        Hold h = endMs < 0 ? new Hold(from, startMs + OPEN_EVENT_MS, true) : new Hold(from, endMs + options.postRollMs(), false);
        holds.put(key, h);
        if (holds.size() > HOLDS_MAX) {
            holds.entrySet().stream().min(Map.Entry.comparingByValue(java.util.Comparator.comparingLong(Hold::untilMs)))
                    .ifPresent(e -> holds.remove(e.getKey(), e.getValue()));
        }
    }

    public Options options() { return options; }

    public Stats stats() {
        return new Stats(received.get(), written.get(), dropped.get(), skipped.get(), lost.get(), notRecorded.get(),
                preRollPackets.get(), segments.get(), bytesWritten.get(), queuedBytes.get(), state, lastError, retryAt);
    }

    /**
     * The earliest start of the spans asked for that cover {@code wallMs}, or {@link Long#MAX_VALUE} when none does;
     * spans that ended before it go.
     */
    private long wantedFrom(long wallMs) {
        long from = Long.MAX_VALUE;
        for (Iterator<Hold> it = holds.values().iterator(); it.hasNext(); ) {
            Hold h = it.next();
            if (h.untilMs() < wallMs) it.remove();
            else if (h.fromMs() <= wallMs) from = Math.min(from, h.fromMs());
        }
        return from;
    }

    private void writeLoop() {
        SegmentWriter writer = null;
        PreRoll preRoll = options.mode() == Mode.CONTINUOUS ? null
                : new PreRoll(options.preRollMs() + LATENCY_ALLOWANCE_MS, options.preRollMaxBytes());
        boolean asked = false;   // the last packet was recorded for an event or motion
        if (preRoll != null) state = standingBy();
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
                        if (preRoll != null) {
                            preRoll.clear();   // the next connection's packets do not follow these
                            notRecorded.set(preRoll.letGo());
                            preRollPackets.set(0);
                            asked = false;
                        }
                        state = "waiting for a stream";
                    }
                    case Packet p -> {
                        queuedBytes.addAndGet(-p.packet().size());
                        PreRoll.Held h = new PreRoll.Held(p.packet(), p.wallMs(), p.afterHole());
                        if (preRoll == null) {
                            recordAndFree(writer, h);
                            continue;
                        }
                        long from = wantedFrom(p.wallMs());
                        if (from != Long.MAX_VALUE && !asked) {
                            // the recording opens at the keyframe at or before the span's start: this packet may be
                            // that keyframe, or the pre-roll holds it
                            asked = true;
                            preRoll.add(h);
                            for (PreRoll.Held kept : preRoll.takeFrom(from)) recordAndFree(writer, kept);
                        } else if (from != Long.MAX_VALUE || (asked && !h.keyframe())) {
                            // asked for; or nothing asks for more but the recording ends at the next keyframe: a
                            // pre-roll must start at one, so the next span finds its keyframe in memory however soon
                            recordAndFree(writer, h);
                        } else {
                            if (asked) {
                                asked = false;
                                if (writer != null) finishQuietly(writer);
                            }
                            if (retryAt == 0 && !state.startsWith("failing")) state = standingBy();
                            preRoll.add(h);
                        }
                        notRecorded.set(preRoll.letGo());
                        preRollPackets.set(preRoll.size());
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(writer);
            if (preRoll != null) {
                preRoll.clear();
                notRecorded.set(preRoll.letGo());
                preRollPackets.set(0);
            }
            drain();
            state = "stopped";
        }
    }

    private String standingBy() {
        return options.mode() == Mode.MOTION ? "waiting for motion" : "waiting for an event";
    }

    /** Writes one packet, or counts why it was not, and frees it. */
    private void recordAndFree(SegmentWriter writer, PreRoll.Held h) {
        try {
            record(writer, h.packet(), h.wallMs(), h.afterHole());
        } finally {
            av_packet_free(h.packet());
        }
    }

    /** Writes one packet (the caller frees it), or counts why it was not. */
    private void record(SegmentWriter writer, AVPacket packet, long wallMs, boolean afterHole) {
        if (writer == null) {
            lost.incrementAndGet();
            return;
        }
        if (afterHole) finishQuietly(writer);
        if (retryAt != 0) {
            if (System.currentTimeMillis() < retryAt) {
                lost.incrementAndGet();
                return;
            }
            retryAt = 0;
        }
        long skippedBefore = writer.skippedBeforeKeyframe();
        try {
            writer.write(packet, wallMs);
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
