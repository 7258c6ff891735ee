package io.argus.pipeline.training;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.darknet.WeightsInit;
import io.argus.pipeline.config.TrainingConfig;
import io.argus.trainer.backends.TrainingBackends;
import io.argus.trainer.data.SyntheticScenes;
import io.argus.trainer.train.IterationStats;
import io.argus.trainer.train.TrainingBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fine-tune that runs beside live detection until it is closed, to measure what training costs detection
 * ({@code argus bench pipeline --fine-tune}). It is the trainer verticle's training, not a look-alike: {@link FineTune#run}
 * with the {@code training:} settings (backend chosen as the verticle chooses it at start, CUDA in mixed precision on a
 * lowest-priority stream when usable; the same {@code cpuShare} bound; a lowest-priority thread), of the live model's
 * cfg and network size from its start weights. Only the data and the length differ: synthetic shapes scenes (the
 * pipeline's collected frames need a person labelling them) and no iteration limit, so it trains through the whole
 * measured window; closing cancels it at the next pass, and nothing is evaluated or swapped.
 */
public final class BackgroundFineTune implements AutoCloseable {
    /** Scenes trained on: enough for a few distinct batches; their size is the demo model's input. */
    private static final int SCENES = 64;
    private static final int SCENE_SIZE = 128;
    /** Stands for "until closed": a fine-tune's updates are bounded by 1,000,000 in the config as well. */
    private static final int UNBOUNDED = 1_000_000;

    private final AtomicBoolean cancelled = new AtomicBoolean();
    private final CountDownLatch started = new CountDownLatch(1);
    private final AtomicLong iterations = new AtomicLong();
    private final int imagesPerIteration;
    private final Thread thread;
    private volatile String backend = "?";
    private volatile String precision = "?";
    private volatile String device = "?";
    private volatile float lossScale = Float.NaN;
    private volatile long skipped;
    private volatile Throwable failure;

    private BackgroundFineTune(TrainingConfig settings, TrainingBackends.Choice choice, FineTune.Inputs in) {
        TrainingConfig config = settings.withIterations(UNBOUNDED);
        imagesPerIteration = config.batch();
        thread = new Thread(() -> {
            try {
                FineTune.run(config, choice, in, new FineTune.Listener() {
                    @Override
                    public void onStart(TrainingBackend b, int trainImages, int valImages) {
                        backend = b.kind();
                        precision = b.precision();
                        device = b.name();
                    }

                    @Override
                    public void onIteration(IterationStats s) {
                        lossScale = s.lossScale();
                        skipped = s.skipped();
                        iterations.incrementAndGet();
                        started.countDown();
                    }
                }, cancelled::get);
            } catch (CancellationException e) {
                // closed: the normal end
            } catch (Throwable e) {
                failure = e;
            } finally {
                started.countDown();
            }
        }, "argus-bench-fine-tune");
        thread.setDaemon(true);
        thread.setPriority(Thread.MIN_PRIORITY); // as the trainer verticle's thread
    }

    /**
     * Starts training {@code cfg} at {@code width}x{@code height} from Darknet-initialised weights ({@code seed}, as a
     * model without weights is served) with {@code settings}; scratch files go to {@code workDir}. An unusable
     * {@code backend: cuda} fails here, as the trainer verticle's start does.
     */
    public static BackgroundFineTune start(TrainingConfig settings, Path cfg, int width, int height, long seed,
                                           Path workDir) throws Exception {
        TrainingBackends.Choice choice = TrainingBackends.choose(settings.backend(), "training.backend");
        Files.createDirectories(workDir);
        NetworkSpec spec = NetworkSpec.load(cfg, width, height);
        Path weights = workDir.resolve("start.weights");
        WeightsFile.write(weights, spec, WeightsInit.darknet(spec, seed));
        Path scenes = workDir.resolve("scenes");
        // synth.data is written last (SyntheticScenes): without it a kill cut the scenes short, so they are made again
        if (!Files.isRegularFile(scenes.resolve("synth.data"))) SyntheticScenes.write(scenes, SCENES, 7, SCENE_SIZE, 0.125);
        FineTune.Inputs in = new FineTune.Inputs(cfg, width, height, List.of(), weights, scenes.resolve("train.txt"),
                scenes.resolve("val.txt"), workDir.resolve("candidate.weights"), seed);
        BackgroundFineTune t = new BackgroundFineTune(settings, choice, in);
        t.thread.start();
        return t;
    }

    /** Waits until the first update is done (the backend opened, cuDNN's algorithms chosen); false on failure. */
    public boolean awaitFirstIteration(long seconds) throws InterruptedException {
        return started.await(seconds, TimeUnit.SECONDS) && failure == null && iterations.get() > 0;
    }

    /** SGD updates done so far. */
    public long iterations() { return iterations.get(); }

    public int imagesPerIteration() { return imagesPerIteration; }

    /** cpu or cuda. */
    public String backend() { return backend; }

    /** fp32, mixed, tf32 or mixed-emulated. */
    public String precision() { return precision; }

    /** The backend's own description. */
    public String device() { return device; }

    public float lossScale() { return lossScale; }

    /** Updates skipped for FP16 overflow. */
    public long skippedSteps() { return skipped; }

    /** Why it stopped by itself, or null. */
    public Throwable failure() { return failure; }

    @Override
    public void close() throws InterruptedException {
        cancelled.set(true);
        thread.join(TimeUnit.SECONDS.toMillis(60));
    }
}
