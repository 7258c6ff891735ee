package io.argus.pipeline.video.nvdec;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns on one GPU's video decoders between creating NVDEC sessions and decoding with them.
 *
 * <p>FFmpeg creates a decoder's NVDEC session (cuvidCreateDecoder and its surface pool) inside the
 * {@code avcodec_send_packet} that carries its first slice, and the driver runs creations one after another behind
 * the decode work already queued. With the engines kept full by the decoders that had their session (192 streams
 * decoded as fast as they go on an H200, each send waiting ~35 ms for room), sessions created four at a time left
 * the last stream without a picture for 42.7 s. So a decoder about to create its session takes precedence: decoders
 * that already have one start no new send while any decoder is waiting to create or creating, the sends in progress
 * finish, then up to {@link #CREATING} creations go; when none is left the others resume. The same 192 streams then
 * had every first picture within 13.7 s: creations still run one at a time in the driver (~65-70 ms each, whether
 * 4, 16 or 64 were let in at once), but no longer behind a full queue. Decoding pauses only while sessions are being
 * made (a camera starting, reconnecting, or looping a file through a flush).
 *
 * <p>A creator's sends are its sends before its session exists ({@link NvdecDecoder} tells from FFmpeg's format
 * callback): a stream joined between keyframes without its parameter sets sends a few packets FFmpeg only parses
 * first, each a short pause for the others.
 */
final class SessionGate {
    /** Creations let in at once: the driver serialises them anyway (16 or 64 measured the same as 4). */
    static final int CREATING = 4;

    private static final ConcurrentHashMap<Integer, SessionGate> GATES = new ConcurrentHashMap<>();

    /**
     * The longest a decoder waits for its turn before going anyway: a creation or send hung in the driver must not
     * hold every other decoder of the GPU (the camera's watchdog gives a decoder inside NVDEC as long).
     */
    private final long patienceNanos;
    private int creating;
    private int waitingToCreate;
    private int sending;

    /** The gate of CUDA device {@code index}: each GPU's NVDEC engines are its own. */
    static SessionGate of(int index) {
        return GATES.computeIfAbsent(index, i -> new SessionGate(60_000_000_000L));
    }

    SessionGate(long patienceNanos) {
        this.patienceNanos = patienceNanos;
    }

    /** Before a send that may create this decoder's session: waits for the sends in progress and a creation slot. */
    synchronized void beginCreating() {
        waitingToCreate++;
        boolean interrupted = false;
        long deadline = System.nanoTime() + patienceNanos;
        try {
            while ((sending > 0 || creating >= CREATING) && System.nanoTime() < deadline) interrupted |= waitSlice();
        } finally {
            waitingToCreate--;
            if (interrupted) Thread.currentThread().interrupt();
        }
        creating++;
    }

    synchronized void endCreating() {
        creating--;
        notifyAll();
    }

    /** Before a send of a decoder that has its session: waits while sessions are being created. */
    synchronized void beginSending() {
        boolean interrupted = false;
        long deadline = System.nanoTime() + patienceNanos;
        while ((creating > 0 || waitingToCreate > 0) && System.nanoTime() < deadline) interrupted |= waitSlice();
        if (interrupted) Thread.currentThread().interrupt();
        sending++;
    }

    synchronized void endSending() {
        sending--;
        if (sending == 0) notifyAll();
    }

    /**
     * One wait of at most 100 ms (a missed notification costs no more); true when interrupted. The interrupt is kept
     * for the caller rather than thrown: FFmpeg's call around this cannot be abandoned half-way, and the camera's
     * reader stops by its own flag.
     */
    private boolean waitSlice() {
        try {
            wait(Math.max(1, Math.min(100, patienceNanos / 1_000_000L)));
            return false;
        } catch (InterruptedException e) {
            return true;
        }
    }
}
