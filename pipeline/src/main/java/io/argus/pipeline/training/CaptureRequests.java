package io.argus.pipeline.training;

import io.argus.pipeline.base.RequestRefused;
import java.util.HashMap;
import java.util.Map;

/**
 * Capture requests waiting for a frame ({@code POST /api/training/frames}), counted per client and in all: each
 * holds a promise and a timer for up to 10 s, so a client that fires them in a loop would otherwise hold as many as
 * it likes. Past {@link #PER_CLIENT} for one client or {@link #TOTAL} in all a request is refused with 429 until
 * some end. The map is keyed by client address and bounded by {@link #TOTAL}. Used on the dataset verticle's event
 * loop only.
 */
final class CaptureRequests {
    /** Waiting requests one client may have: a person clicking "capture" on a few cameras at once. */
    static final int PER_CLIENT = 4;
    /** Waiting requests in all. */
    static final int TOTAL = 32;

    private final Map<String, Integer> perClient = new HashMap<>();
    private int total;

    /** Takes a place for {@code client}, or throws a 429 {@link RequestRefused} saying which cap is reached. */
    void reserve(String client) {
        int mine = perClient.getOrDefault(client, 0);
        if (mine >= PER_CLIENT) {
            throw new RequestRefused(429, "capture: " + mine + " capture requests of this client are waiting for a frame"
                    + " (at most " + PER_CLIENT + "): try again when one has ended (each ends within 10 s)");
        }
        if (total >= TOTAL) {
            throw new RequestRefused(429, "capture: " + total + " capture requests are waiting for a frame (at most "
                    + TOTAL + "): try again when some have ended (each ends within 10 s)");
        }
        perClient.put(client, mine + 1);
        total++;
    }

    /** Gives back a place {@link #reserve} took. */
    void release(String client) {
        Integer mine = perClient.get(client);
        if (mine == null) return;
        if (mine <= 1) perClient.remove(client);
        else perClient.put(client, mine - 1);
        total--;
    }

    /** Requests waiting now. */
    int pending() { return total; }
}
