package io.argus.tools.cli;

import io.argus.tools.tracking.LineCounts;
import io.argus.tools.tracking.TrackingVideo;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code argus dataset tracking}: the synthetic tracking video ({@link TrackingVideo}) with its ground truth, the input
 * {@code argus eval track} scores a tracker on.
 */
@Command(name = "tracking", mixinStandardHelpOptions = true,
        description = {"Write a synthetic tracking video with its ground truth.",
                "Shapes of the demo's classes enter, cross each other, pass behind a post, stop, cross a counting "
                + "line and leave: DIR/video.mp4, DIR/gt.txt (MOTChallenge), DIR/scene.json (the line and its "
                + "true counts). Deterministic for a seed. Score a tracker on it with `argus eval track`."})
final class DatasetTrackingCommand implements Callable<Integer> {
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
