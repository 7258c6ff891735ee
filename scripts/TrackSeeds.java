import io.argus.detector.Model;
import io.argus.tracking.ByteTracker;
import io.argus.tracking.TrackState;
import io.argus.tracking.TrackerSettings;
import io.argus.tools.tracking.LineCounts;
import io.argus.tools.tracking.MotFile;
import io.argus.tools.tracking.MotRow;
import io.argus.tools.tracking.SceneFile;
import io.argus.tools.tracking.TrackEval;
import io.argus.tools.tracking.TrackingScores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The tracker (defaults) over the saved detections of many tracking videos at once, in one JVM: per seed MOTA, IDF1,
 * ID switches and whether the line counts equal the truth, then the mean and min IDF1 and the min MOTA. Each argument
 * is a directory with det.txt (argus eval track --save-detections), gt.txt and scene.json (argus dataset tracking);
 * with -Dwrite=true the tracker's rows go to res.txt beside them. Run by scripts/track-seeds.
 */
public class TrackSeeds {
    public static void main(String[] args) throws Exception {
        Path home = Path.of(System.getProperty("argus.home", "."));
        List<String> names = Model.readNames(home.resolve("config/models/demo.names"));
        boolean write = Boolean.getBoolean("write");
        double sumIdf1 = 0, minIdf1 = 1, minMota = 1;
        int below = 0, linesWrong = 0;
        for (String arg : args) {
            Path dir = Path.of(arg);
            SceneFile scene = SceneFile.read(dir.resolve("scene.json"));
            List<TrackEval.DetectedFrame> frames = TrackEval.fromRows(MotFile.read(dir.resolve("det.txt")), names, 25,
                    scene.width(), scene.height());
            ByteTracker tracker = new ByteTracker(TrackerSettings.DEFAULTS);
            TrackEval.Run run = TrackEval.track(frames, (dets, t, w, h) -> {
                List<Long> ids = new ArrayList<>(dets.size());
                for (TrackState s : tracker.update(dets, t, w, h)) ids.add(s == null ? null : s.id());
                return ids;
            });
            if (write) MotFile.write(dir.resolve("res.txt"), run.rows());
            TrackingScores s = TrackingScores.of(MotFile.read(dir.resolve("gt.txt")), run.rows(), 0.5);
            boolean equal = true;
            for (SceneFile.LineTruth truth : scene.lines()) {
                LineCounts found = LineCounts.of(truth.line(), run.rows(), names);
                Set<String> all = new LinkedHashSet<>(names);
                for (String n : all) {
                    equal &= found.in(n) == truth.in().getOrDefault(n, 0) && found.out(n) == truth.out().getOrDefault(n, 0);
                }
            }
            double idf1 = s.identity().idf1(), mota = s.clear().mota();
            sumIdf1 += idf1;
            minIdf1 = Math.min(minIdf1, idf1);
            minMota = Math.min(minMota, mota);
            if (idf1 < 0.9) below++;
            if (!equal) linesWrong++;
            System.out.printf(Locale.ROOT, "%-24s MOTA %.4f IDF1 %.4f IDSW %2d FP %3d FN %3d tracks %2d lines %s%n",
                    dir.getFileName(), mota, idf1, s.clear().idSwitches(), s.clear().falsePositives(),
                    s.clear().falseNegatives(), run.rows().stream().mapToLong(MotRow::id).distinct().count(),
                    equal ? "ok" : "DIFFER");
        }
        System.out.printf(Locale.ROOT, "%d seeds: IDF1 mean %.4f min %.4f, below 0.9: %d; MOTA min %.4f; lines differ: %d%n",
                args.length, sumIdf1 / args.length, minIdf1, below, minMota, linesWrong);
    }
}
