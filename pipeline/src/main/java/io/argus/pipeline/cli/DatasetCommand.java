package io.argus.pipeline.cli;

import io.argus.trainer.data.SyntheticScenes;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code argus dataset synth}: the synthetic shapes dataset in Darknet's layout. */
@Command(name = "dataset", mixinStandardHelpOptions = true, description = "Make datasets for training.",
        subcommands = {DatasetCommand.Synth.class})
final class DatasetCommand {
    @Command(name = "synth", mixinStandardHelpOptions = true,
            description = {"Write the synthetic shapes dataset in Darknet's layout.",
                    "Circle, square, triangle, star, cross on textured backgrounds, with occlusion and noise: "
                    + "images, labels, train.txt, val.txt, synth.names, synth.data. Deterministic for a seed."})
    static final class Synth implements Callable<Integer> {
        @Option(names = "--out", required = true, description = "output directory")
        Path out;

        @Option(names = "--count", required = true, description = "number of images (train + val)")
        int count;

        @Option(names = "--seed", defaultValue = "1", description = "seed (default ${DEFAULT-VALUE})")
        long seed;

        @Option(names = "--size", defaultValue = "128", description = "image width and height (default ${DEFAULT-VALUE})")
        int size;

        @Option(names = "--val-fraction", defaultValue = "0.1",
                description = "share of the images kept for validation (default ${DEFAULT-VALUE})")
        double valFraction;

        @Override
        public Integer call() {
            if (!(valFraction > 0 && valFraction < 1)) {
                throw new IllegalArgumentException("--val-fraction: expected a value in (0, 1), found " + valFraction);
            }
            Path data = SyntheticScenes.write(out, count, seed, size, valFraction);
            System.out.println("wrote " + count + " images (" + SyntheticScenes.CLASSES.size() + " classes) and "
                    + data);
            return 0;
        }
    }
}
