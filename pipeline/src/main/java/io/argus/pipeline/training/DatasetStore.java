package io.argus.pipeline.training;

import io.argus.detector.BgrImage;
import io.argus.detector.Box;
import io.argus.detector.Detection;
import io.argus.detector.io.AtomicFile;
import io.argus.detector.io.OwnerOnly;
import io.argus.pipeline.config.Names;
import io.argus.trainer.data.LabelFile;
import io.argus.trainer.loss.Truth;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.Collections;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import javax.imageio.stream.ImageOutputStream;
import javax.imageio.stream.MemoryCacheImageOutputStream;

/**
 * The collected frames of one model on disk, in Darknet's layout so the trainer core reads them as any dataset:
 * {@code images/<id>.png} (lossless), {@code labels/<id>.txt} (once labelled), {@code frames/<id>.json} (the
 * {@link CollectedFrame}) and {@code store.json} (counters). Used from one thread only (the dataset verticle's I/O
 * thread); every file is replaced atomically ({@link AtomicFile}), the frame's description last: it commits the frame.
 *
 * <p>While a fine-tune runs its frames are pinned: deleting or evicting one removes it from the store at once but
 * keeps its files until {@link #unpin()}.
 */
public final class DatasetStore {
    private static final System.Logger LOG = System.getLogger("argus.training.dataset");

    private final Path dir;
    private final List<String> names;
    private final int valEvery;
    private final int maxFrames;
    private final Map<String, CollectedFrame> frames = new LinkedHashMap<>(); // oldest first
    private final Set<String> pinned = new HashSet<>();
    private final List<String> deferred = new ArrayList<>();
    private long kept;
    private long labelsRevision;

    private DatasetStore(Path dir, List<String> names, int valEvery, int maxFrames) {
        this.dir = dir;
        this.names = List.copyOf(names);
        this.valEvery = valEvery;
        this.maxFrames = maxFrames;
    }

    /**
     * Opens (creating) the store in {@code dir} and reads its index. A frame is committed when its
     * {@code frames/<id>.json} is (the last file {@link #add} and {@link #label} replace), so opening also finishes
     * what a kill cut short: the temporary files of unfinished writes go, an image without a description goes, and a
     * label file that disagrees with its description is rewritten from it. A description that cannot be read (not
     * one a kill can leave: every write is atomic) is set aside as {@code <id>.json.corrupt} with a warning naming it,
     * and the other frames open.
     */
    public static DatasetStore open(Path dir, List<String> names, int valEvery, int maxFrames) {
        DatasetStore s = new DatasetStore(dir, names, valEvery, maxFrames);
        try {
            OwnerOnly.privateDirectory(dir); // frames of cameras and their labels: the owner's only
            for (String sub : List.of("images", "labels", "frames")) OwnerOnly.privateDirectory(dir.resolve(sub));
            for (String sub : List.of("", "images", "labels", "frames")) removeTemporary(dir.resolve(sub));
            List<CollectedFrame> found = new ArrayList<>();
            try (Stream<Path> files = Files.list(dir.resolve("frames"))) {
                for (Path p : files.filter(f -> f.toString().endsWith(".json")).toList()) {
                    try {
                        CollectedFrame f = CollectedFrame.fromJson(new JsonObject(Files.readString(p)));
                        Names.require("frame id", f.id(), Names.DERIVED_MAX); // its files are named after it
                        found.add(f);
                    } catch (RuntimeException e) {
                        Path aside = p.resolveSibling(p.getFileName() + ".corrupt");
                        LOG.log(System.Logger.Level.WARNING, p + ": not a collected frame (" + e.getMessage()
                                + "), set aside as " + aside.getFileName() + "; the other frames are kept");
                        Files.move(p, aside, StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
            found.sort(Comparator.comparingDouble(CollectedFrame::captureTime).thenComparing(CollectedFrame::id));
            for (CollectedFrame f : found) s.frames.put(f.id(), f);
            Path state = dir.resolve("store.json");
            if (Files.isRegularFile(state)) {
                try {
                    JsonObject j = new JsonObject(Files.readString(state));
                    s.kept = j.getLong("kept", 0L);
                    s.labelsRevision = j.getLong("labelsRevision", 0L);
                } catch (RuntimeException e) {
                    // a revision only has to move on: the clock in ms is beyond any count of label changes
                    s.kept = found.size();
                    s.labelsRevision = System.currentTimeMillis();
                    LOG.log(System.Logger.Level.WARNING, state + ": not readable (" + e.getMessage()
                            + "), counters restarted from the " + found.size() + " frames");
                }
            }
            s.repair();
        } catch (IOException e) {
            throw new UncheckedIOException("dataset store " + dir + ": " + e.getMessage(), e);
        }
        return s;
    }

    /** Images without a description and label files that disagree with theirs (see {@link #open}). */
    private void repair() throws IOException {
        int orphans = 0, relabelled = 0;
        try (Stream<Path> files = Files.list(dir.resolve("images"))) {
            for (Path p : files.toList()) {
                String n = p.getFileName().toString();
                if (n.endsWith(".png") && !frames.containsKey(n.substring(0, n.length() - 4))) {
                    Files.deleteIfExists(p);
                    orphans++;
                }
            }
        }
        try (Stream<Path> files = Files.list(dir.resolve("labels"))) {
            for (Path p : files.toList()) {
                String n = p.getFileName().toString();
                CollectedFrame f = n.endsWith(".txt") ? frames.get(n.substring(0, n.length() - 4)) : null;
                if (f != null && f.labeled()) continue;
                Files.deleteIfExists(p);
                relabelled++;
            }
        }
        for (CollectedFrame f : frames.values()) {
            if (!f.labeled()) continue;
            Path file = labelFile(f.id());
            String want = labelText(f);
            if (!Files.isRegularFile(file) || !want.equals(Files.readString(file))) {
                AtomicFile.writeString(file, want);
                relabelled++;
            }
        }
        if (orphans + relabelled > 0) {
            LOG.log(System.Logger.Level.INFO, "dataset store " + dir + ": finished writes cut short: " + orphans
                    + " image(s) without a description removed, " + relabelled + " label file(s) made to match theirs");
        }
    }

    /** Temporary files of writes that never finished (this class's and {@link AtomicFile}'s). */
    private static void removeTemporary(Path d) throws IOException {
        try (Stream<Path> files = Files.list(d)) {
            for (Path p : files.filter(f -> f.getFileName().toString().endsWith(".tmp")).toList()) Files.deleteIfExists(p);
        }
    }

    public Path dir() { return dir; }

    public List<String> names() { return names; }

    public int size() { return frames.size(); }

    public boolean full() { return frames.size() >= maxFrames && oldestEvictable() == null; }

    /** Changes whenever labels change (new, edited, removed): a scheduled run waits for a new revision. */
    public long labelsRevision() { return labelsRevision; }

    /** Newest first. */
    public List<CollectedFrame> frames() {
        List<CollectedFrame> out = new ArrayList<>(frames.values());
        java.util.Collections.reverse(out);
        return out;
    }

    public CollectedFrame get(String id) { return frames.get(id); }

    /** A frame's image; {@code id} must be a name (it came from a request). */
    public Path image(String id) { return Names.fileIn(dir.resolve("images"), "frame id", id, ".png", Names.DERIVED_MAX); }

    Path labelFile(String id) { return Names.fileIn(dir.resolve("labels"), "frame id", id, ".txt", Names.DERIVED_MAX); }

    private Path metaFile(String id) { return Names.fileIn(dir.resolve("frames"), "frame id", id, ".json", Names.DERIVED_MAX); }

    /**
     * Keeps a frame: writes the image and its description; every {@code valEvery}-th kept frame (the first
     * included) is held out. {@code labels}: the teacher's, or null. When the store is full the oldest unlabelled
     * frame goes; returns null (nothing kept) when every frame is labelled.
     */
    public CollectedFrame add(String camera, long frame, double pts, double captureTime, BgrImage image,
                              double confidence, String servedBy, List<Detection> proposals, List<Detection> labels) {
        if (frames.size() >= maxFrames) {
            CollectedFrame old = oldestEvictable();
            if (old == null) return null;
            delete(old.id());
        }
        String id = newId(camera, captureTime);
        String split = kept % valEvery == 0 ? CollectedFrame.VAL : CollectedFrame.TRAIN;
        kept++;
        CollectedFrame f = new CollectedFrame(id, camera, frame, pts, captureTime, image.width(), image.height(), split,
                confidence, servedBy, List.copyOf(proposals), labels == null ? null : List.copyOf(labels),
                labels == null ? null : "teacher", labels == null ? 0 : captureTime);
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        try (ImageOutputStream out = new MemoryCacheImageOutputStream(png)) { // in memory: no cache file elsewhere
            ImageIO.write(image.toBufferedImage(), "png", out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode " + image(id) + ": " + e.getMessage(), e);
        }
        AtomicFile.write(image(id), png.toByteArray());
        if (labels != null) {
            writeLabels(f);
            labelsRevision++;
        }
        writeMeta(f);
        frames.put(id, f);
        writeState();
        return f;
    }

    /** Sets a frame's labels ({@code source}: annotation or teacher); null when there is no such frame. */
    public CollectedFrame label(String id, List<Detection> labels, String source, double atMs) {
        CollectedFrame f = frames.get(id);
        if (f == null) return null;
        CollectedFrame g = f.withLabels(labels, source, atMs);
        writeLabels(g);
        try {
            writeMeta(g);
        } catch (RuntimeException e) {
            // not committed (a full disk): the label file goes back to the description's, which a run would read
            try {
                writeLabels(f);
            } catch (RuntimeException again) {
                e.addSuppressed(again); // the next start makes it match (open's repair)
            }
            throw e;
        }
        frames.put(id, g);
        labelsRevision++;
        writeState();
        return g;
    }

    /** Removes a frame (its files now, or after the run that pinned it); false when there is no such frame. */
    public boolean delete(String id) {
        CollectedFrame f = frames.remove(id);
        if (f == null) return false;
        if (f.labeled()) labelsRevision++;
        try {
            Files.deleteIfExists(metaFile(id));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + id + ": " + e.getMessage(), e);
        }
        if (pinned.contains(id)) deferred.add(id);
        else deleteFiles(id);
        writeState();
        return true;
    }

    /** The labelled frames of each split at this moment, pinned until {@link #unpin()}. */
    public Snapshot pin() {
        List<Path> train = new ArrayList<>(), val = new ArrayList<>();
        int valObjects = 0;
        Map<String, Integer> perClass = new TreeMap<>();
        for (CollectedFrame f : frames.values()) {
            if (!f.labeled()) continue;
            pinned.add(f.id());
            boolean heldOut = CollectedFrame.VAL.equals(f.split());
            if (heldOut) {
                val.add(image(f.id()));
                valObjects += f.labels().size();
            } else {
                train.add(image(f.id()));
            }
            for (Detection d : f.labels()) {
                String name = d.className() != null ? d.className() : "#" + d.classId();
                perClass.merge(name, heldOut ? 1 : 0, Integer::sum);
            }
        }
        return new Snapshot(List.copyOf(train), List.copyOf(val), valObjects, Collections.unmodifiableMap(perClass), labelsRevision);
    }

    /**
     * Labelled frames of a run: image paths (labels beside them in Darknet's layout); held-out objects in all and of
     * each class seen in any labelled frame (0 for a class only in training frames). Classes are the model's, so the
     * map is bounded by its names.
     */
    public record Snapshot(List<Path> train, List<Path> val, int valObjects, Map<String, Integer> valObjectsPerClass,
                           long labelsRevision) {}

    public void unpin() {
        pinned.clear();
        for (String id : deferred) deleteFiles(id);
        deferred.clear();
    }

    /** Frames and objects per class and split, for the dashboard. */
    public DatasetStats stats() {
        int labeled = 0, teacher = 0, trainFrames = 0, valFrames = 0;
        int[][] objects = new int[names.size()][2];
        for (CollectedFrame f : frames.values()) {
            if (!f.labeled()) continue;
            labeled++;
            if ("teacher".equals(f.labelSource())) teacher++;
            int s = CollectedFrame.VAL.equals(f.split()) ? 1 : 0;
            if (s == 1) valFrames++;
            else trainFrames++;
            for (Detection d : f.labels()) objects[d.classId()][s]++;
        }
        List<DatasetStats.ClassObjects> classes = new ArrayList<>();
        for (int c = 0; c < names.size(); c++) {
            classes.add(new DatasetStats.ClassObjects(c, names.get(c), objects[c][0], objects[c][1]));
        }
        return new DatasetStats(frames.size(), maxFrames, labeled, frames.size() - labeled, teacher, trainFrames,
                valFrames, labelsRevision, List.copyOf(classes), null);
    }

    private CollectedFrame oldestEvictable() {
        for (CollectedFrame f : frames.values()) if (!f.labeled()) return f;
        return null;
    }

    private String newId(String camera, double captureTime) {
        String base = camera + "-" + Math.round(captureTime);
        String id = base;
        for (int i = 2; frames.containsKey(id) || Files.exists(image(id)); i++) id = base + "-" + i;
        return id;
    }

    private void writeLabels(CollectedFrame f) {
        Path file = labelFile(f.id());
        if (f.labels() == null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete " + file + ": " + e.getMessage(), e);
            }
            return;
        }
        write(file, labelText(f));
    }

    private static String labelText(CollectedFrame f) {
        StringBuilder b = new StringBuilder();
        for (Detection d : f.labels()) b.append(LabelFile.format(truth(d, f.width(), f.height()))).append('\n');
        return b.toString();
    }

    /** A pixel box as Darknet's relative centre and size. */
    static Truth truth(Detection d, int width, int height) {
        Box box = d.box();
        return new Truth((box.x() + box.w() / 2) / width, (box.y() + box.h() / 2) / height, box.w() / width,
                box.h() / height, d.classId());
    }

    private void writeMeta(CollectedFrame f) {
        write(metaFile(f.id()), f.toJson().encodePrettily());
    }

    private void writeState() {
        write(dir.resolve("store.json"), new JsonObject().put("kept", kept).put("labelsRevision", labelsRevision).encode());
    }

    private void deleteFiles(String id) {
        try {
            Files.deleteIfExists(image(id));
            Files.deleteIfExists(labelFile(id));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the files of " + id + ": " + e.getMessage(), e);
        }
    }

    /** Atomically ({@link AtomicFile}); a full disk throws UncheckedIOException naming the file, the old one intact. */
    static void write(Path file, String text) {
        AtomicFile.writeString(file, text);
    }
}
