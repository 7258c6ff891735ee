package io.argus.pipeline.cluster;

/**
 * The clocks camera ownership reads: the monotonic one for everything it times itself (renewals, fencing, offers,
 * retries), and the wall clock only for a lease's {@code expires}, which is informative ({@link LeaseWatch}). Tests
 * pass a clock they move by hand.
 */
interface OwnershipClock {
    OwnershipClock SYSTEM = new OwnershipClock() {
        @Override
        public long nanoTime() { return System.nanoTime(); }

        @Override
        public long currentTimeMillis() { return System.currentTimeMillis(); }
    };

    long nanoTime();

    long currentTimeMillis();
}
