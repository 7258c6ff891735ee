package io.argus.pipeline.http;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The SockJS bridge's sessions at once: at most {@code max} in all and {@code maxPerAddress} per client address. Each
 * session registers event-bus consumers and holds a queue, and its id is the client's choice, so without a bound a
 * client could open them without end. Thread-safe.
 */
final class BridgeSessions {
    private final int max;
    private final int maxPerAddress;
    /** Each admitted session (by identity) and its client's address. */
    private final Map<Object, String> addressOf = new IdentityHashMap<>();
    private final Map<String, Integer> perAddress = new HashMap<>();

    BridgeSessions(int max, int maxPerAddress) {
        this.max = max;
        this.maxPerAddress = maxPerAddress;
    }

    /** Admits {@code session} from {@code address}; false when a bound is reached (the session is then refused). */
    synchronized boolean open(Object session, String address) {
        if (addressOf.containsKey(session)) return true;
        int fromThere = perAddress.getOrDefault(address, 0);
        if (addressOf.size() >= max || fromThere >= maxPerAddress) return false;
        addressOf.put(session, address);
        perAddress.put(address, fromThere + 1);
        return true;
    }

    /** {@code session} ended (one never admitted is ignored). */
    synchronized void closed(Object session) {
        String address = addressOf.remove(session);
        if (address != null) perAddress.computeIfPresent(address, (a, n) -> n > 1 ? n - 1 : null);
    }

    synchronized int size() { return addressOf.size(); }

    /** Client addresses with a session (for tests: an address whose sessions all ended is forgotten). */
    synchronized int addresses() { return perAddress.size(); }
}
