package io.argus.pipeline.cli;

import io.argus.pipeline.app.ArgusApp;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code argus run [--config FILE]}: starts the live pipeline and serves until stopped (Ctrl-C). Without
 * {@code --config} it runs the bundled config/argus.yaml: a generated sample video as the camera and a tiny model.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Run the live pipeline: cameras, detections, dashboard.", "Cameras -> detections -> WebSocket, REST and the dashboard."})
public final class RunCommand implements Callable<Integer> {
    @Option(names = {"-c", "--config"}, description = "YAML config (default: $ARGUS_CONFIG or config/argus.yaml of the Argus home)")
    Path config;

    @Option(names = "--start-timeout", defaultValue = "300", description = "seconds to wait for the start (default ${DEFAULT-VALUE})")
    int startTimeout;

    @Override
    public Integer call() throws Exception {
        configureLogging();
        Path file = ProjectPaths.config(config);
        ArgusApp app;
        ConsoleProgress progress = ConsoleProgress.onStandardOutput();
        try {
            app = ArgusApp.start(file, System.getenv(), progress).get(startTimeout, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            progress.endOpenLine();
            throw new IllegalArgumentException(e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            progress.endOpenLine();
            throw new IllegalStateException("did not start within " + startTimeout + " s");
        }
        progress.ready(app.contents());
        app.dashboard().startLines().forEach(System.out::println); // stdout, not the log: it may carry the token
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                app.closeAndWait();
            } catch (Exception ignored) {
                // exiting anyway
            }
            ShutdownLogging.flush();
            stopped.countDown();
        }, "argus-shutdown"));
        stopped.await();
        return 0;
    }

    /** One line per log record unless the user configured java.util.logging (the benchmarks that run the app too). */
    public static void configureLogging() {
        if (System.getProperty("java.util.logging.config.file") == null
                && System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tT.%1$tL %4$-7s %3$s: %5$s%6$s%n");
        }
    }
}
