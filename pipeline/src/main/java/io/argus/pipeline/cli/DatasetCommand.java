package io.argus.pipeline.cli;

import io.argus.pipeline.tracking.eval.LineCounts;
import io.argus.pipeline.tracking.eval.TrackingVideo;
import io.argus.trainer.data.SyntheticScenes;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code argus dataset synth}: the synthetic shapes dataset in Darknet's layout; {@code argus dataset tracking}:
 * a synthetic video with MOTChallenge ground truth for {@code argus eval track}; {@code argus dataset frames}: a video
 * with MOTChallenge ground truth as a detection dataset.
 */
@Command(name = "dataset", mixinStandardHelpOptions = true, description = "Make datasets for training.",
        subcommands = {DatasetCommand.Synth.class, DatasetCommand.TrackingVideoCommand.class, DatasetCommand.Frames.class,
                DatasetCommand.Pack.class})
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
                        + "at least 30% is in view and half of that unhidden); 0: whole shapes only, the dataset the "
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

    @Command(name = "tracking", mixinStandardHelpOptions = true,
            description = {"Write a synthetic tracking video with its ground truth.",
                    "Shapes of the demo's classes enter, cross each other, pass behind a post, stop, cross a counting "
                    + "line and leave: DIR/video.mp4, DIR/gt.txt (MOTChallenge), DIR/scene.json (the line and its "
                    + "true counts). Deterministic for a seed. Score a tracker on it with `argus eval track`."})
    static final class TrackingVideoCommand implements Callable<Integer> {
        @Option(names = "--out", required = true, description = "output directory")
        Path out;

        @Option(names = "--seed", defaultValue = "1", description = "seed (default ${DEFAULT-VALUE})")
        long seed;

        @Override
        public Integer call() throws Exception {
            org.bytedeco.ffmpeg.global.avutil.av_log_set_level(org.bytedeco.ffmpeg.global.avutil.AV_LOG_ERROR);
            TrackingVideo v = TrackingVideo.of(seed);
            Path video = v.write(out);
            LineCounts counts = v.trueCounts();
            long objects = v.groundTruth().stream().mapToLong(r -> r.id()).distinct().count();
            System.out.printf(java.util.Locale.ROOT,
                    "wrote %s (%d frames, %dx%d, %d fps), %s (%d boxes of %d objects), %s (line: %d in, %d out)%n",
                    video, v.frames(), TrackingVideo.WIDTH, TrackingVideo.HEIGHT, TrackingVideo.FPS,
                    out.resolve(TrackingVideo.GROUND_TRUTH_FILE), v.groundTruth().size(), objects,
                    out.resolve(TrackingVideo.SCENE_FILE), counts.totalIn(), counts.totalOut());
            return 0;
        }
    }

    @Command(name = "frames", mixinStandardHelpOptions = true,
            description = {"Make a detection dataset from a video and its MOT truth.",
                    "Every N-th decoded frame becomes DIR/images/{train,val}/PREFIX_FRAME.png with its boxes in "
                    + "DIR/labels/...; their paths are appended to DIR/train.txt and DIR/val.txt, so several videos "
                    + "(e.g. of `argus dataset tracking`) make one dataset. Boxes less visible than --min-visibility "
                    + "are not labelled; boxes are cut to the image."})
    static final class Frames implements Callable<Integer> {
        @Option(names = "--video", required = true, description = "the video")
        Path video;

        @Option(names = "--gt", required = true, description = "its MOTChallenge ground truth (gt.txt, with classes)")
        Path gt;

        @Option(names = "--out", required = true, description = "output directory (added to when it holds a dataset)")
        Path out;

        @Option(names = "--names", description = "class names, one per line (default: the demo model's)")
        Path names;

        @Option(names = "--prefix", description = "image name prefix (default: the video's directory name)")
        String prefix;

        @Option(names = "--every", defaultValue = "3", description = "take every N-th frame (default ${DEFAULT-VALUE})")
        int every;

        @Option(names = "--min-visibility", defaultValue = "0.3",
                description = "label boxes at least this visible (default ${DEFAULT-VALUE})")
        double minVisibility;

        @Option(names = "--val-fraction", defaultValue = "0",
                description = "share of the frames, the last ones, kept for validation (default ${DEFAULT-VALUE})")
        double valFraction;

        @Override
        public Integer call() throws Exception {
            Path namesFile = names != null ? names : ProjectPaths.home().resolve("config/models/demo.names");
            java.util.List<String> classes = io.argus.detector.Model.readNames(namesFile);
            String p = prefix != null ? prefix : video.toAbsolutePath().getParent().getFileName().toString();
            if (!p.matches("[A-Za-z0-9_.-]+")) {
                throw new IllegalArgumentException("--prefix: expected letters, digits, '_', '.', '-', found \"" + p + "\"");
            }
            var written = io.argus.pipeline.tracking.eval.MotDataset.write(video,
                    io.argus.pipeline.tracking.eval.MotFile.read(gt), classes, out, p, every, minVisibility, valFraction);
            System.out.printf(java.util.Locale.ROOT, "wrote %d training and %d validation images (%d boxes) to %s; %s%n",
                    written.trainImages(), written.valImages(), written.boxes(), out, written.data());
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
                var w = io.argus.trainer.data.pack.PackWriter.write(dataset, out.resolve(split), (long) shardMb << 20);
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
