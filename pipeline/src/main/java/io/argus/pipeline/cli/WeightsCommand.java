package io.argus.pipeline.cli;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.darknet.WeightsInit;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code argus weights init}: fresh Darknet-initialised weights for a cfg. */
@Command(name = "weights", mixinStandardHelpOptions = true, description = "Work with Darknet .weights files.",
        subcommands = {WeightsCommand.Init.class})
final class WeightsCommand {
    @Command(name = "init", mixinStandardHelpOptions = true,
            description = {"Write freshly initialised weights for a Darknet cfg.", "Darknet's initialisation scale, from a seed."})
    static final class Init implements Callable<Integer> {
        @Option(names = "--cfg", required = true, description = "Darknet cfg file")
        Path cfg;

        @Option(names = "--seed", defaultValue = "1", description = "random seed (default ${DEFAULT-VALUE})")
        long seed;

        @Option(names = "--out", required = true, description = "output .weights file")
        Path out;

        @Override
        public Integer call() {
            NetworkSpec spec = NetworkSpec.load(cfg);
            for (String w : spec.warnings()) System.err.println("warning: " + w);
            var weights = WeightsInit.darknet(spec, seed);
            WeightsFile.write(out, spec, weights);
            System.out.printf("wrote %s: %d floats for %d convolutional layers of %s%n", out, weights.floatCount(),
                    spec.convolutionalLayers().size(), spec.name());
            return 0;
        }
    }
}
