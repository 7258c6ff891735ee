package io.argus.pipeline.cli;

import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * SIGTERM or SIGINT (Ctrl-C) during {@code argus train}: suspend, not abort. A JVM shutdown hook asks the run to stop
 * after the iteration in progress ({@link #getAsBoolean}, polled by the training loop) and then holds the JVM's exit
 * until the run has written its checkpoint and said so ({@link #close}): the JVM halts as soon as its hooks return, and
 * would otherwise cut the checkpoint short. The process then exits with the JVM's status for the signal (143 for
 * SIGTERM, 130 for SIGINT), so a script's {@code argus train ... && next} does not go on with an unfinished model.
 *
 * <p>A second signal changes nothing: the JVM's shutdown is already under way, so it only waits for this hook too.
 * kill -9 cannot be waited for; every checkpoint file is written atomically, and a resume refuses files of two
 * iterations, so even then nothing is read torn or mixed.
 */
final class SuspendOnSignal implements BooleanSupplier, AutoCloseable {
    private final AtomicBoolean requested = new AtomicBoolean();
    private final CountDownLatch over = new CountDownLatch(1);
    private final PrintStream err;
    private final Thread hook;

    SuspendOnSignal(PrintStream err) {
        this.err = err;
        this.hook = new Thread(this::suspend, "argus-train-suspend");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** The hook: ask the run to stop, wait until it has. */
    private void suspend() {
        if (over.getCount() == 0) return; // the run ended as the signal came
        requested.set(true);
        err.println("argus train: stopping after the iteration in progress, then writing the checkpoint");
        err.flush();
        boolean interrupted = false;
        while (true) {
            try {
                over.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true; // nothing interrupts a hook in the JDK; still, the checkpoint is worth the wait
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    /** Whether a signal asked the run to suspend. */
    @Override
    public boolean getAsBoolean() { return requested.get(); }

    /**
     * The run is over (finished, suspended or failed) and has printed what it had to: the JVM may exit. Call it after
     * the last line is written and flushed.
     */
    @Override
    public void close() {
        over.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook, if it started, returns now that the latch is open
        }
    }
}
