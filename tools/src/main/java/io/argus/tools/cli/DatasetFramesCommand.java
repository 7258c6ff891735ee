package io.argus.tools.cli;

import io.argus.pipeline.cli.ProjectPaths;
import io.argus.tools.tracking.MotDataset;
import io.argus.tools.tracking.MotFile;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code argus dataset frames}: every N-th frame of a video with MOTChallenge ground truth (e.g. of
 * {@code argus dataset tracking}) as a detection dataset in Darknet's layout.
 */
@Command(name = "frames", mixinStandardHelpOptions = true,
        description = {"Make a detection dataset from a video and its MOT truth.",
                "Every N-th decoded frame becomes DIR/images/{train,val}/PREFIX_FRAME.png with its boxes in "
                + "DIR/labels/...; their paths are appended to DIR/train.txt and DIR/val.txt, so several videos "
                + "(e.g. of `argus dataset tracking`) make one dataset. Boxes less visible than --min-visibility "
                + "are not labelled; boxes are cut to the image."})
final class DatasetFramesCommand implements Callable<Integer> {
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
        var written = MotDataset.write(video,
                MotFile.read(gt), classes, out, p, every, minVisibility, valFraction);
        System.out.printf(java.util.Locale.ROOT, "wrote %d training and %d validation images (%d boxes) to %s; %s%n",
                written.trainImages(), written.valImages(), written.boxes(), out, written.data());
        return 0;
    }
}
