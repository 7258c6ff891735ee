package io.argus.detector.cpu;

/**
 * What the Winograd layers of one network share, since they run one after the other: the native matrices between
 * the transforms and oneDNN's products (V, the transformed tiles; M, the products), each grown to the largest layer's
 * and re-pointed like the {@link Scratchpad} they are; each thread's heap arrays; and the threads of the Java loops,
 * started at the first Winograd layer. A network without one allocates none of it.
 */
final class WinogradWorkspace implements AutoCloseable {
    /** V: alpha^2 matrices of tiles x input channels, the products' left operands. */
    final Scratchpad tiles = new Scratchpad();
    /** M: alpha^2 matrices of tiles x filters, the products. */
    final Scratchpad products = new Scratchpad();
    private ParallelRanges threads;
    private WinogradTransforms.Staging[] staging;

    /** The Java loops' threads (as many as oneDNN's), started on first use. */
    synchronized ParallelRanges threads() {
        if (threads == null) {
            threads = new ParallelRanges(ParallelRanges.threadCount());
            staging = new WinogradTransforms.Staging[threads.threads()];
            for (int i = 0; i < staging.length; i++) staging[i] = new WinogradTransforms.Staging();
        }
        return threads;
    }

    /** Thread {@code worker}'s heap arrays, large enough for every layer {@link #reserve}d so far. */
    WinogradTransforms.Staging staging(int worker) { return staging[worker]; }

    /** Grows every thread's heap arrays to what {@code layer} needs (at build time, never per frame). */
    synchronized void reserve(WinogradTransforms layer) {
        threads();
        for (WinogradTransforms.Staging s : staging) layer.reserve(s);
    }

    @Override
    public synchronized void close() {
        if (threads != null) threads.close();
        tiles.close();
        products.close();
    }
}
