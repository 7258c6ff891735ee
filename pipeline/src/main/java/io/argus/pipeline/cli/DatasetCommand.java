package io.argus.pipeline.cli;

import io.argus.trainer.data.SyntheticScenes;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code argus dataset synth}: the synthetic shapes dataset in Darknet's layout; {@code argus dataset pack}: a dataset
 * in a few memory-mapped shards. The tools jar adds {@code dataset tracking} (a synthetic video with MOTChallenge
 * ground truth for {@code argus eval track}) and {@code dataset frames} (such a video as a detection dataset).
 */
@Command(name = "dataset", mixinStandardHelpOptions = true, description = "Make datasets for training.",
        subcommands = {DatasetCommand.Synth.class, DatasetCommand.Pack.class})
final class DatasetCommand {
    @Command(name = "synth", mixinStandardHelpOptions = true,
            description = {"Write the synthetic shapes dataset in Darknet's layout.",
                    "Circle, square, triangle, star, cross on textured backgrounds, with occlusion and noise: "
                    + "images, labels, train.txt, val.txt, synth.names, synth.data. Deterministic for a seed. "
                    + "With --partial, some scenes are like a camera's frames: shapes cut off by the border or "
                    + "partly hidden behind posts and each other, labelled as `argus dataset tracking` boxes them."})
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

        @Option(names = "--partial", defaultValue = "0",
                description = "share of the scenes with shapes cut off by the border or partly hidden (labelled when "
                        + "at least 30%% is in view and half of that unhidden); 0: whole shapes only, the dataset the "
                        + "demo model was first trained on (default ${DEFAULT-VALUE})")
        double partial;

        @Override
        public Integer call() {
            if (!(valFraction > 0 && valFraction < 1)) {
                throw new IllegalArgumentException("--val-fraction: expected a value in (0, 1), found " + valFraction);
            }
            if (!(partial >= 0 && partial <= 1)) {
                throw new IllegalArgumentException("--partial: expected a share in [0, 1], found " + partial);
            }
            Path data = SyntheticScenes.write(out, count, seed, size, valFraction, partial);
            long partials = java.util.stream.IntStream.range(0, count)
                    .filter(i -> SyntheticScenes.isPartial(i, partial)).count();
            System.out.println("wrote " + count + " images (" + SyntheticScenes.CLASSES.size() + " classes"
                    + (partials > 0 ? ", " + partials + " of them partial scenes" : "") + ") and " + data);
            return 0;
        }
    }

    @Command(name = "pack", mixinStandardHelpOptions = true,
            description = {"Pack a dataset into a few large memory-mapped shards.",
                    "Writes OUT/train (and OUT/valid when the .data file has one), each shards of about --shard-mb "
                    + "with images as stored and their labels, plus an index written last; and OUT/packed.data "
                    + "naming them, usable wherever a .data file is (argus train, argus eval)."})
    static final class Pack implements Callable<Integer> {
        @Option(names = "--data", required = true, description = "the Darknet .data file (classes, train, valid, names)")
        Path data;

        @Option(names = "--out", required = true, description = "output folder (must not hold a pack yet)")
        Path out;

        @Option(names = "--shard-mb", defaultValue = "256", description = "shard size in MiB (default ${DEFAULT-VALUE})")
        int shardMb;

        @Override
        public Integer call() {
            var d = io.argus.trainer.data.DataFile.read(data);
            StringBuilder packed = new StringBuilder("classes=" + d.classes() + "\n");
            for (String split : new String[] {"train", "valid"}) {
                Path list = split.equals("train") ? d.requireTrain() : d.valid();
                if (list == null) continue;
                long t0 = System.nanoTime();
                var dataset = io.argus.trainer.data.Dataset.open(list, d.classes());
                var w = io.argus.trainer.data.PackWriter.write(dataset, out.resolve(split), (long) shardMb << 20);
                System.out.printf(java.util.Locale.ROOT, "%s: %d images in %d shard(s), %.1f MiB, %s (%.1f s)%n", split,
                        w.samples(), w.shards(), w.bytes() / 1048576.0, out.resolve(split), (System.nanoTime() - t0) / 1e9);
                packed.append(split).append('=').append(split).append('\n');
            }
            if (d.names() != null) packed.append("names=").append(d.names().toAbsolutePath()).append('\n');
            io.argus.detector.io.AtomicFile.writeString(out.resolve("packed.data"), packed.toString());
            System.out.println("wrote " + out.resolve("packed.data"));
            return 0;
        }
    }
}
