package io.argus.recording;

import static org.bytedeco.ffmpeg.global.avcodec.AV_PKT_FLAG_KEY;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_free;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.bytedeco.ffmpeg.avcodec.AVPacket;

/**
 * The last seconds of a camera's packets kept in memory while nothing asks for them to be recorded (events and motion
 * modes), so that a recording that starts now can begin before now. Kept in whole groups of pictures: it always
 * starts at a keyframe (a recording must open on a picture that decodes alone), and the oldest group goes once the
 * next one starts early enough to cover {@code keepMs} before the newest packet, or when the bytes kept pass
 * {@code maxBytes} (then the pre-roll is shorter than asked: memory stays bounded). Owns its packets: each leaves by
 * {@link #takeFrom} or is freed here and counted as let go. Used by one thread, the recorder's writer.
 */
final class PreRoll {
    /** A packet waiting here: its own reference, when it came, and whether a hole came before it. */
    record Held(AVPacket packet, long wallMs, boolean afterHole) {
        boolean keyframe() { return (packet.flags() & AV_PKT_FLAG_KEY) != 0; }
    }

    private final long keepMs;
    private final long maxBytes;
    private final ArrayDeque<Held> packets = new ArrayDeque<>();
    private long bytes;
    private long letGo;

    PreRoll(long keepMs, long maxBytes) {
        this.keepMs = keepMs;
        this.maxBytes = maxBytes;
    }

    /** Keeps {@code h} (its packet is this pre-roll's now), then lets the groups go that are no longer needed. */
    void add(Held h) {
        if (packets.isEmpty() && !h.keyframe()) {
            // what comes before the first keyframe cannot open a recording
            free(h);
            return;
        }
        packets.addLast(h);
        bytes += h.packet().size();
        long oldest = h.wallMs() - keepMs;
        while (true) {
            Held second = secondKeyframe();
            if (second == null) break;
            if (second.wallMs() > oldest && bytes <= maxBytes) break;
            dropFirstGroup();
        }
        if (bytes > maxBytes && secondKeyframe() == null) clear();   // one group larger than the budget: nothing fits
    }

    /**
     * The packets from the last keyframe at or before {@code fromMs} (or the first kept, when all came later) to the
     * newest, in order, handed over (the caller frees them); those before it are let go.
     */
    List<Held> takeFrom(long fromMs) {
        Held start = null;
        for (Held h : packets) {
            if (h.wallMs() > fromMs && start != null) break;
            if (h.keyframe()) start = h;
        }
        List<Held> out = new ArrayList<>(packets.size());
        boolean taking = false;
        for (Held h : packets) {
            if (h == start) taking = true;
            if (taking) out.add(h);
            else free(h);
        }
        packets.clear();
        bytes = 0;
        return out;
    }

    /** Lets every packet go. */
    void clear() {
        for (Held h : packets) free(h);
        packets.clear();
        bytes = 0;
    }

    int size() { return packets.size(); }

    long bytes() { return bytes; }

    /** Packets let go here (not recorded) so far. */
    long letGo() { return letGo; }

    private Held secondKeyframe() {
        Iterator<Held> it = packets.iterator();
        if (!it.hasNext()) return null;
        it.next();
        while (it.hasNext()) {
            Held h = it.next();
            if (h.keyframe()) return h;
        }
        return null;
    }

    private void dropFirstGroup() {
        do {
            Held h = packets.removeFirst();
            bytes -= h.packet().size();
            free(h);
        } while (!packets.isEmpty() && !packets.peekFirst().keyframe());
    }

    private void free(Held h) {
        letGo++;
        av_packet_free(h.packet());
    }
}
