package io.argus.pipeline.http;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Wrong tokens per client address, and from all addresses together. A generated token cannot be guessed, but a
 * configured one may be weak: after {@link #MAX_FAILURES} wrong tokens within {@link #WINDOW_SECONDS} an address is
 * refused (429 with Retry-After) for the rest of that window, even with the right token, so guessing runs at a few
 * attempts a minute at best. A guesser with many addresses (an IPv6 prefix, a botnet) is held back by the same rule for
 * everyone: after {@link #MAX_FAILURES_ALL} wrong tokens within a window from all addresses together, every token
 * check is refused for the rest of it; a legitimate user then waits too, the price of keeping a weak token's guessing
 * to a hundred attempts a minute. Requests with no token at all are not counted: they guess nothing, and a dashboard
 * opened without its token must not lock its user out.
 *
 * <p>Memory is bounded: at most {@link #MAX_ADDRESSES} addresses are tracked; when full, expired windows go first,
 * then the oldest. Thread-safe (the HTTP verticle and the SockJS bridge both report here).
 */
final class FailedAttempts {
    static final int MAX_FAILURES = 10;
    static final int MAX_FAILURES_ALL = 100;
    static final long WINDOW_SECONDS = 60;
    static final int MAX_ADDRESSES = 10_000;

    /** Failures of one address since {@code startNanos}. */
    private static final class Window {
        final long startNanos;
        int failures;

        Window(long startNanos) { this.startNanos = startNanos; }
    }

    private final LongSupplier nanoClock;
    private final int maxAddresses;
    /** In window start order (a new window is re-inserted at the end), so expired ones are at the head. */
    private final LinkedHashMap<String, Window> byAddress = new LinkedHashMap<>();
    /** Failures from all addresses together (null: none in a current window). */
    private Window all;

    FailedAttempts() { this(System::nanoTime, MAX_ADDRESSES); }

    FailedAttempts(LongSupplier nanoClock, int maxAddresses) {
        this.nanoClock = nanoClock;
        this.maxAddresses = maxAddresses;
    }

    /** Seconds until {@code address} may try again (its own lockout or everyone's); 0 when it may now. */
    synchronized long retryAfterSeconds(String address) {
        long now = nanoClock.getAsLong();
        Window w = current(address, now);
        long own = w != null && w.failures >= MAX_FAILURES ? secondsLeft(w, now) : 0;
        return Math.max(own, everyoneWaits(now));
    }

    /** Whether every address is refused now (too many wrong tokens from all of them together). */
    synchronized boolean everyoneLockedOut() { return everyoneWaits(nanoClock.getAsLong()) > 0; }

    /** Counts a wrong token from {@code address}. */
    synchronized void failed(String address) {
        long now = nanoClock.getAsLong();
        Window w = current(address, now);
        if (w == null) {
            makeRoom(now);
            w = new Window(now);
            byAddress.put(address, w);
        }
        w.failures++;
        if (all == null || expired(all, now)) all = new Window(now);
        all.failures++;
    }

    private long everyoneWaits(long now) {
        if (all == null || expired(all, now) || all.failures < MAX_FAILURES_ALL) return 0;
        return secondsLeft(all, now);
    }

    private static long secondsLeft(Window w, long now) {
        long left = w.startNanos + TimeUnit.SECONDS.toNanos(WINDOW_SECONDS) - now;
        return Math.max(1, TimeUnit.NANOSECONDS.toSeconds(left + 999_999_999));
    }

    synchronized int tracked() { return byAddress.size(); }

    /** The address's window if it has not expired (an expired one is dropped). */
    private Window current(String address, long now) {
        Window w = byAddress.get(address);
        if (w != null && expired(w, now)) {
            byAddress.remove(address);
            return null;
        }
        return w;
    }

    private boolean expired(Window w, long now) {
        return now - w.startNanos >= TimeUnit.SECONDS.toNanos(WINDOW_SECONDS);
    }

    /** Drops expired windows (all at the head), then, while full, the oldest. */
    private void makeRoom(long now) {
        Iterator<Window> it = byAddress.values().iterator();
        while (it.hasNext()) {
            Window w = it.next();
            if (!expired(w, now) && byAddress.size() < maxAddresses) break;
            it.remove();
        }
    }
}
