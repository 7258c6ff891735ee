package io.argus.tools.cli;

import io.argus.detector.DetectParams;
import io.argus.detector.Model;
import io.argus.detector.backends.Detector;
import io.argus.pipeline.cli.CudaSystemProperties;
import io.argus.pipeline.cli.ModelOptions;
import io.argus.pipeline.cli.ProjectPaths;
import io.argus.tools.tracking.ClearMot;
import io.argus.tools.tracking.Hota;
import io.argus.tools.tracking.Idf1;
import io.argus.tools.tracking.LineCounts;
import io.argus.tools.tracking.MotFile;
import io.argus.tools.tracking.MotRow;
import io.argus.tools.tracking.MotSequence;
import io.argus.tools.tracking.SceneFile;
import io.argus.tools.tracking.TrackEval;
import io.argus.tools.tracking.TrackingScores;
import io.argus.tools.tracking.TrackingVideo;
import io.argus.tracking.ByteTracker;
import io.argus.tracking.TrackState;
import io.argus.tracking.TrackerSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code argus eval track}: runs the detector and ByteTrack over a video with MOTChallenge ground truth (or reads a
 * tracker's results file) and prints MOTA, IDF1, HOTA, ID switches and, when the video has a scene.json beside its
 * ground truth, the counting line's counts against the true ones.
 */
@Command(name = "track", mixinStandardHelpOptions = true,
        description = {"Score tracking on a video: MOTA, IDF1, HOTA, ID switches.",
                "Runs the model (default: the demo model) and ByteTrack over --video, or reads a MOTChallenge results "
                + "file (--results), and scores it against MOTChallenge ground truth (--gt) as TrackEval does "
                + "(IoU >= 0.5). With scene.json beside the ground truth (argus dataset tracking), it also "
                + "compares the counting line's in/out counts with the true ones. "
                + "The last line is 'MOTA = X, IDF1 = Y, HOTA = Z, IDSW = N'."})
final class EvalTrackCommand implements Callable<Integer> {
    @Option(names = "--video", description = "the video to track (MP4 or anything FFmpeg reads)")
    Path video;

    @Option(names = "--gt", required = true, description = "MOTChallenge ground truth (gt.txt)")
    Path gt;

    @Option(names = "--results", description = "score this MOTChallenge results file instead of running a model")
    Path results;

    @Option(names = "--detections",
            description = "track these detections (MOTChallenge det.txt: frame,-1,left,top,width,height,conf,class, as "
                    + "--save-detections writes) instead of running a model over --video: one detector pass, many "
                    + "tracker settings")
    Path detections;

    @Option(names = "--save-detections", description = "with --video: also write the model's detections here (det.txt)")
    Path saveDetections;

    @Option(names = "--fps", defaultValue = "25",
            description = "with --detections: the frame rate their frames were taken at (default ${DEFAULT-VALUE})")
    double fps;

    @Option(names = "--cfg", description = "Darknet cfg file (default: config/models/demo.cfg)")
    Path cfg;

    @Option(names = "--weights", description = "Darknet .weights file (default: the demo model's)")
    Path weights;

    @Option(names = "--names", description = "class names, one per line (default: the demo model's)")
    Path names;

    @Option(names = "--width", defaultValue = "0",
            description = "network input width, a multiple of 32 (default: the cfg's; 128 for the demo model)")
    int width;

    @Option(names = "--height", defaultValue = "0",
            description = "network input height, a multiple of 32 (default: the cfg's)")
    int height;

    @Option(names = "--threshold", defaultValue = "0.25",
            description = "detection confidence threshold (default ${DEFAULT-VALUE}, as config/argus.yaml: what the "
                    + "pipeline hands the tracker)")
    float threshold;

    @Option(names = "--nms", defaultValue = "0.45", description = "NMS overlap threshold (default ${DEFAULT-VALUE})")
    float nms;

    @Option(names = "--backend", defaultValue = "auto", description = "cpu, cuda or auto (default ${DEFAULT-VALUE})")
    String backend;

    @Option(names = "--batch", defaultValue = "8", description = "frames per forward pass (default ${DEFAULT-VALUE})")
    int batch;

    // ByteTrack's knobs: unset, the pipeline's (TrackerSettings.DEFAULTS)
    @Option(names = "--per-class", arity = "1",
            description = "ByteTrack associates within a class only (default: the pipeline's, true)")
    Boolean perClass;

    @Option(names = "--track-buffer", description = "frames a lost track is kept (default: the pipeline's, 30)")
    Integer trackBuffer;

    @Option(names = "--exit-buffer",
            description = "frames a track lost going out through an edge of the frame is kept (default: the pipeline's, 5)")
    Integer exitBuffer;

    @Option(names = "--frame-size", description = "the size of the frames of --detections, WIDTHxHEIGHT (default: "
            + "scene.json's beside the ground truth; unknown without it, and no track is taken as gone at an edge)")
    String frameSize;

    @Option(names = "--high-threshold",
            description = "ByteTrack: detections from this score go to the first association (default: the pipeline's, 0.5)")
    Double highThreshold;

    @Option(names = "--new-track-threshold",
            description = "ByteTrack: an unmatched detection starts a track from this score (default: the pipeline's, 0.6)")
    Double newTrackThreshold;

    @Option(names = "--match-threshold",
            description = "ByteTrack: the first association's cost limit, 1 - IoU (default: the pipeline's, 0.8)")
    Double matchThreshold;

    @Option(names = "--min-visibility", defaultValue = "0.5",
            description = "ground-truth boxes less visible than this (hidden, out of the frame) are not scored, "
                    + "nor results on them (default ${DEFAULT-VALUE}; 0 scores all)")
    double minVisibility;

    @Option(names = "--scene", description = "scene.json with counting lines and true counts (default: beside --gt)")
    Path scene;

    @Option(names = "--out", description = "write the tracker's results here (MOTChallenge format)")
    Path out;

    @Override
    public Integer call() throws Exception {
        int inputs = (video != null ? 1 : 0) + (results != null ? 1 : 0) + (detections != null ? 1 : 0);
        if (inputs != 1) {
            throw new IllegalArgumentException("give one of --video (run the model and tracker), --detections (run the "
                    + "tracker) or --results (score only), found " + inputs);
        }
        if (saveDetections != null && video == null) throw new IllegalArgumentException("--save-detections needs --video");
        if (frameSize != null && detections == null) {
            throw new IllegalArgumentException("--frame-size is for --detections (a video says its own size)");
        }
        if (!(fps > 0)) throw new IllegalArgumentException("--fps: expected > 0, found " + fps);
        if (!(minVisibility >= 0 && minVisibility <= 1)) {
            throw new IllegalArgumentException("--min-visibility: expected 0..1, found " + minVisibility);
        }
        List<MotRow> truth = MotFile.read(gt);
        List<String> classNames = null;
        List<MotRow> rows;
        if (results != null) {
            rows = MotFile.read(results);
            System.out.printf(Locale.ROOT, "results %s: %,d boxes of %d tracks%n", results, rows.size(), ids(rows));
        } else if (detections != null) {
            classNames = names != null ? Model.readNames(names) : model().names();
            int[] size = frameSizeOfDetections();
            List<TrackEval.DetectedFrame> frames = TrackEval.fromRows(MotFile.read(detections), classNames, fps,
                    size[0], size[1]);
            TrackEval.Run run = TrackEval.track(frames, tracker());
            System.out.printf(Locale.ROOT, "detections %s: %,d frames%s, %,d detections, %s%n", detections, run.frames(),
                    size[0] > 0 ? " of " + size[0] + "x" + size[1] : " (size unknown)", run.detections(), trackerName());
            rows = run.rows();
        } else {
            Model model = model();
            classNames = model.names();
            rows = track(model);
        }
        if (out != null && results == null) MotFile.write(out, rows);
        TrackingScores s = TrackingScores.of(truth, rows, minVisibility);
        report(truth, s);
        Path sceneFile = scene != null ? scene : sceneBeside(gt);
        if (sceneFile != null) lines(SceneFile.read(sceneFile), rows, classNames);
        System.out.printf(Locale.ROOT, "MOTA = %.4f, IDF1 = %.4f, HOTA = %.4f, IDSW = %d%n", s.clear().mota(),
                s.identity().idf1(), s.hota().hota(), s.clear().idSwitches());
        return 0;
    }

    /** The model and ByteTrack over --video, as the pipeline runs them: the tracker's rows. */
    private List<MotRow> track(Model model) throws Exception {
        Detector.Backend kind = Detector.Backend.valueOf(backend.toUpperCase(Locale.ROOT));
        long start = System.nanoTime();
        try (Detector detector = Detector.open(model, new Detector.Options(kind, batch,
                new DetectParams(threshold, nms, null), CudaSystemProperties.inference()))) {
            List<TrackEval.DetectedFrame> frames = TrackEval.detect(video, detector);
            if (saveDetections != null) MotFile.write(saveDetections, TrackEval.toRows(frames), true);
            TrackEval.Run run = TrackEval.track(frames, tracker());
            System.out.printf(Locale.ROOT, "video %s: %,d frames, %,d detections (confidence >= %s), model %s on %s, "
                    + "%s, %.1f s%s%n", video, run.frames(), run.detections(), threshold, cfgPath(),
                    detector.backendName(), trackerName(), (System.nanoTime() - start) / 1e9,
                    saveDetections != null ? "; detections written to " + saveDetections : "");
            System.out.printf(Locale.ROOT, "results: %,d tracked boxes of %d tracks%s%n", run.rows().size(),
                    ids(run.rows()), out != null ? ", written to " + out : "");
            return run.rows();
        }
    }

    /** The pipeline's tracker settings with this command's changes. */
    private TrackerSettings trackerSettings() {
        TrackerSettings d = TrackerSettings.DEFAULTS;
        return new TrackerSettings(highThreshold != null ? highThreshold : d.highThreshold(), d.lowThreshold(),
                newTrackThreshold != null ? newTrackThreshold : d.newTrackThreshold(),
                matchThreshold != null ? matchThreshold : d.matchThreshold(),
                trackBuffer != null ? trackBuffer : d.trackBuffer(), exitBuffer != null ? exitBuffer : d.exitBuffer(),
                perClass != null ? perClass : d.perClass());
    }

    /** ByteTrack with {@link #trackerSettings()}, as a frame tracker. */
    private TrackEval.FrameTracker tracker() {
        ByteTracker tracker = new ByteTracker(trackerSettings());
        return (dets, timeMs, width, height) -> {
            List<Long> ids = new ArrayList<>(dets.size());
            for (TrackState t : tracker.update(dets, timeMs, width, height)) ids.add(t == null ? null : t.id());
            return ids;
        };
    }

    private String trackerName() {
        TrackerSettings t = trackerSettings();
        return String.format(Locale.ROOT, "ByteTrack (%s, lost tracks kept %d frames, %d when gone out at an edge)",
                t.perClass() ? "per class" : "across classes", t.trackBuffer(), t.exitBuffer());
    }

    private void report(List<MotRow> truth, TrackingScores s) {
        MotSequence seq = s.sequence();
        System.out.printf(Locale.ROOT, "ground truth %s: %,d boxes of %d objects; %,d boxes less visible than %s not "
                + "scored, nor %,d result boxes on them%n", gt, truth.size(), ids(truth), seq.ignoredGtBoxes(),
                minVisibility, seq.ignoredTrackerBoxes());
        ClearMot c = s.clear();
        System.out.printf(Locale.ROOT, "CLEAR:    MOTA = %.4f  MOTP = %.4f  TP %d  FP %d  FN %d  IDSW %d  "
                + "MT %d  PT %d  ML %d  Frag %d%n", c.mota(), c.motp(), c.truePositives(), c.falsePositives(),
                c.falseNegatives(), c.idSwitches(), c.mostlyTracked(), c.partlyTracked(), c.mostlyLost(),
                c.fragmentations());
        Idf1 i = s.identity();
        System.out.printf(Locale.ROOT, "Identity: IDF1 = %.4f  IDP = %.4f  IDR = %.4f  IDTP %d  IDFP %d  IDFN %d%n",
                i.idf1(), i.idp(), i.idr(), i.idTruePositives(), i.idFalsePositives(), i.idFalseNegatives());
        Hota h = s.hota();
        System.out.printf(Locale.ROOT, "HOTA:     HOTA = %.4f  DetA = %.4f  AssA = %.4f  DetRe = %.4f  DetPr = %.4f  "
                + "AssRe = %.4f  AssPr = %.4f  LocA = %.4f%n", h.hota(), h.detA(), h.assA(), h.detRe(), h.detPr(),
                h.assRe(), h.assPr(), h.locA());
    }

    /** Each line's counts from the tracks, against the true counts: "equal to the truth" or "DIFFER". */
    private static void lines(SceneFile scene, List<MotRow> rows, List<String> modelClasses) {
        List<String> classes = modelClasses != null ? modelClasses : scene.classes();
        for (SceneFile.LineTruth truth : scene.lines()) {
            LineCounts found;
            try {
                found = LineCounts.of(truth.line(), rows, classes);
            } catch (IllegalArgumentException e) {
                System.out.printf(Locale.ROOT, "line %s: not counted: %s%n", truth.line().id(), e.getMessage());
                continue;
            }
            StringBuilder b = new StringBuilder();
            boolean equal = true;
            Set<String> names = new LinkedHashSet<>(classes);
            names.addAll(truth.in().keySet());
            names.addAll(truth.out().keySet());
            for (String name : names) {
                int in = found.in(name), out = found.out(name);
                int trueIn = truth.in().getOrDefault(name, 0), trueOut = truth.out().getOrDefault(name, 0);
                equal &= in == trueIn && out == trueOut;
                if (in + out + trueIn + trueOut > 0) {
                    b.append(String.format(Locale.ROOT, "  %s in %d (true %d) out %d (true %d)", name, in, trueIn,
                            out, trueOut));
                }
            }
            System.out.printf(Locale.ROOT, "line %s:%s: %s%n", truth.line().id(), b.isEmpty() ? " no crossings" : b,
                    equal ? "equal to the truth" : "DIFFER from the truth");
        }
    }

    /** --frame-size, else scene.json's size beside the ground truth, else {0, 0} (unknown). */
    private int[] frameSizeOfDetections() {
        if (frameSize != null) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d{1,6})x(\\d{1,6})").matcher(frameSize);
            if (!m.matches() || Integer.parseInt(m.group(1)) == 0 || Integer.parseInt(m.group(2)) == 0) {
                throw new IllegalArgumentException("--frame-size: expected WIDTHxHEIGHT in pixels (e.g. 384x384), found '"
                        + frameSize + "'");
            }
            return new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))};
        }
        Path sceneFile = scene != null ? scene : sceneBeside(gt);
        if (sceneFile == null) return new int[] {0, 0};
        SceneFile s = SceneFile.read(sceneFile);
        return new int[] {s.width(), s.height()};
    }

    private static Path sceneBeside(Path gt) {
        Path dir = gt.toAbsolutePath().getParent();
        Path f = dir == null ? null : dir.resolve(TrackingVideo.SCENE_FILE);
        return f != null && Files.isRegularFile(f) ? f : null;
    }

    private Path cfgPath() {
        return cfg != null ? cfg : ProjectPaths.home().resolve("config/models/demo.cfg");
    }

    /** The model of --cfg/--weights/--names, or the demo model (config/models/demo.*) when no --cfg is given. */
    private Model model() {
        if (cfg == null) {
            if (weights != null || names != null) throw new IllegalArgumentException("--weights and --names need --cfg");
            Path models = ProjectPaths.home().resolve("config/models");
            return Model.load(models.resolve("demo.cfg"), models.resolve("demo.weights"), models.resolve("demo.names"),
                    width, height);
        }
        if (weights == null) throw new IllegalArgumentException("--weights is required with --cfg");
        ModelOptions m = new ModelOptions();
        m.cfg = cfg;
        m.weights = weights;
        m.names = names;
        m.width = width;
        m.height = height;
        return m.load(true);
    }

    private static long ids(List<MotRow> rows) {
        return rows.stream().mapToLong(MotRow::id).distinct().count();
    }
}
