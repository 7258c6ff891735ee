package io.argus.tools.tracking;

import io.argus.tracking.Line;
import io.argus.tracking.Point;
import io.argus.pipeline.video.Mp4Writer;
import io.argus.trainer.data.Backdrop;
import io.argus.trainer.data.SyntheticScenes;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The synthetic tracking video: a {@link TrackingScript} (objects of the demo's classes that enter, cross, pass
 * behind a post, stop, cross a counting line, leave) rendered frame by frame at the demo model's 128x128 scene size,
 * shown {@value #SCALE}x larger, as the sample video is. Beside the video go its MOTChallenge ground truth and a
 * scene file with the counting line and its true counts:
 * <pre>
 * DIR/video.mp4    {@value #FPS} frames/s, {@value #WIDTH}x{@value #HEIGHT}
 * DIR/gt.txt       frame,id,left,top,width,height,1,class,visibility (frames from 1, video pixels, class of
 *                  demo.names counted from 0)
 * DIR/scene.json   seed, size, fps, frames, classes, anchor, lines: [{id, from, to, in: {class: n}, out: {...}}],
 *                  objects: [{id, class, role, first and last frame}]
 * </pre>
 * A ground-truth box is the object's whole shape's bounding box cut to the frame (a detector sees no more), written
 * for every frame the box is in view; its visibility is the share of the shape the frame shows (hidden by the post
 * or by an object in front, or out of the frame). Everything follows from the seed: the same seed gives the same
 * frames and ground truth.
 */
public final class TrackingVideo {
    public static final int SCALE = 3;
    public static final int WIDTH = TrackingScript.SCENE_SIZE * SCALE;
    public static final int HEIGHT = TrackingScript.SCENE_SIZE * SCALE;
    public static final int FPS = 25;
    public static final String VIDEO_FILE = "video.mp4";
    public static final String GROUND_TRUTH_FILE = "gt.txt";
    public static final String SCENE_FILE = "scene.json";
    public static final String LINE_ID = "line";
    public static final String ANCHOR = "bottom_center";

    private final TrackingScript script;
    private List<MotRow> groundTruth;

    private TrackingVideo(TrackingScript script) {
        this.script = script;
    }

    public static TrackingVideo of(long seed) {
        return new TrackingVideo(new TrackingScript(seed));
    }

    public long seed() { return script.seed; }

    /** What happens in it (tests look behind the ground truth). */
    TrackingScript script() { return script; }

    public int frames() { return script.frames; }

    /** The counting line, video pixels, every class. */
    public Line line() {
        double[] l = script.line;
        return new Line(LINE_ID, new Point(round(l[0] * SCALE), round(l[1] * SCALE)),
                new Point(round(l[2] * SCALE), round(l[3] * SCALE)), false, List.of());
    }

    /** The true crossings of {@link #line()}: the ground truth's own, counted as the pipeline counts. */
    public LineCounts trueCounts() {
        return LineCounts.of(line(), groundTruth(), SyntheticScenes.CLASSES);
    }

    /** An object in a frame, in drawing order. */
    private record Placed(ScriptedObject object, double x, double y) {}

    /** The objects in view of frame {@code t} (from 0), bottom layer first; the post lies under those at or above its layer. */
    private List<Placed> placed(int t) {
        List<Placed> out = new ArrayList<>();
        for (ScriptedObject o : script.objects) {
            double[] p = o.path().at(t);
            if (p != null) out.add(new Placed(o, p[0], p[1]));
        }
        out.sort(Comparator.comparingInt((Placed p) -> p.object().layer()).thenComparingInt(p -> p.object().id()));
        return out;
    }

    private static boolean belowPost(Placed p) { return p.object().layer() < TrackingScript.POST_LAYER; }

    /** The ground truth, frames 1..frames(), sorted by frame then id. */
    public synchronized List<MotRow> groundTruth() {
        if (groundTruth != null) return groundTruth;
        List<MotRow> rows = new ArrayList<>();
        VisibilityMeter meter = new VisibilityMeter(TrackingScript.SCENE_SIZE, TrackingScript.SCENE_SIZE);
        Rectangle2D scene = new Rectangle2D.Double(0, 0, TrackingScript.SCENE_SIZE, TrackingScript.SCENE_SIZE);
        for (int t = 0; t < script.frames; t++) {
            List<Placed> placed = placed(t);
            List<VisibilityMeter.Layer> layers = new ArrayList<>();
            boolean postDone = false;
            for (int i = 0; i < placed.size(); i++) {
                Placed p = placed.get(i);
                if (!postDone && !belowPost(p)) {
                    layers.add(new VisibilityMeter.Layer(-1, script.post, false));
                    postDone = true;
                }
                layers.add(new VisibilityMeter.Layer(i, p.object().shapeAt(p.x(), p.y()), p.object().outlined()));
            }
            if (!postDone) layers.add(new VisibilityMeter.Layer(-1, script.post, false));
            double[] visibility = meter.measure(layers, placed.size());
            for (int i = 0; i < placed.size(); i++) {
                Placed p = placed.get(i);
                Rectangle2D box = p.object().shapeAt(p.x(), p.y()).getBounds2D().createIntersection(scene);
                double w = box.getWidth() * SCALE, h = box.getHeight() * SCALE;
                if (w < 1 || h < 1) continue; // out of view (or a sliver no detector could box)
                // rounded as gt.txt writes them, so the counts from the file are the counts from memory
                rows.add(new MotRow(t + 1, p.object().id(), round(box.getX() * SCALE), round(box.getY() * SCALE),
                        round(w), round(h), 1, p.object().classId(), Math.round(visibility[i] * 10_000) / 10_000.0));
            }
        }
        rows.sort(Comparator.comparingInt(MotRow::frame).thenComparingLong(MotRow::id));
        groundTruth = List.copyOf(rows);
        return groundTruth;
    }

    /** Frame {@code number} (from 1) as the video shows it: {@value #WIDTH}x{@value #HEIGHT}, 3-byte BGR. */
    public BufferedImage frame(int number) {
        return render(number, true, true);
    }

    /** The frame, with or without its pixel noise and its objects (tests compare the two). */
    BufferedImage render(int number, boolean noise, boolean objects) {
        if (number < 1 || number > script.frames) {
            throw new IllegalArgumentException("frame " + number + " outside 1.." + script.frames);
        }
        BufferedImage scene = new BufferedImage(TrackingScript.SCENE_SIZE, TrackingScript.SCENE_SIZE,
                BufferedImage.TYPE_3BYTE_BGR);
        Graphics2D g = scene.createGraphics();
        g.drawImage(script.backdrop, 0, 0, null);
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        List<Placed> placed = objects ? placed(number - 1) : List.of();
        for (Placed p : placed) if (belowPost(p)) p.object().draw(g, p.x(), p.y());
        paintPost(g);
        for (Placed p : placed) if (!belowPost(p)) p.object().draw(g, p.x(), p.y());
        g.dispose();
        if (noise) {
            Backdrop.noise(scene, script.noiseSigma,
                    new SplittableRandom(script.seed * 0xBF58476D1CE4E5B9L + number * 0x94D049BB133111EBL));
        }
        BufferedImage frame = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_3BYTE_BGR);
        Graphics2D f = frame.createGraphics();
        f.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
        f.drawImage(scene, 0, 0, WIDTH, HEIGHT, null);
        f.dispose();
        return frame;
    }

    /**
     * The post: a strip of another part of the background with dark edges. Not a flat-coloured bar: that would look
     * like a stretched square to the demo model, a false object standing there the whole video.
     */
    private void paintPost(Graphics2D g) {
        Backdrop.paintPost(g, script.backdrop, script.post, script.postTextureShift, 0);
    }

    /** scene.json: what a user and {@code argus eval track} need to know about the video. */
    public JsonObject sceneJson() {
        Line l = line();
        LineCounts counts = trueCounts();
        JsonObject in = new JsonObject(), out = new JsonObject();
        for (String name : SyntheticScenes.CLASSES) {
            in.put(name, counts.in(name));
            out.put(name, counts.out(name));
        }
        JsonArray objects = new JsonArray();
        for (ScriptedObject o : script.objects) {
            List<MotRow> rows = groundTruth().stream().filter(r -> r.id() == o.id()).toList();
            objects.add(new JsonObject().put("id", o.id()).put("class", SyntheticScenes.CLASSES.get(o.classId()))
                    .put("role", o.role())
                    .put("firstFrame", rows.isEmpty() ? null : rows.getFirst().frame())
                    .put("lastFrame", rows.isEmpty() ? null : rows.getLast().frame()));
        }
        return new JsonObject()
                .put("generator", "argus dataset tracking --seed " + seed())
                .put("seed", seed())
                .put("width", WIDTH).put("height", HEIGHT).put("fps", FPS).put("frames", frames())
                .put("classes", new JsonArray(SyntheticScenes.CLASSES))
                .put("anchor", ANCHOR)
                .put("lines", new JsonArray().add(new JsonObject().put("id", l.id())
                        .put("from", new JsonArray().add(l.from().x()).add(l.from().y()))
                        .put("to", new JsonArray().add(l.to().x()).add(l.to().y()))
                        .put("in", in).put("out", out)))
                .put("objects", objects);
    }

    /** To 0.01 px, as files keep it. */
    private static double round(double v) { return Math.round(v * 100) / 100.0; }

    /** Writes video.mp4, gt.txt and scene.json into {@code dir}; returns the video's path. */
    public Path write(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path video = dir.resolve(VIDEO_FILE);
        // the bitrate keeps the frames' pixel noise, as a camera's would
        Mp4Writer.write(video, WIDTH, HEIGHT, FPS, 4_000_000, frames(), this::frame);
        MotFile.write(dir.resolve(GROUND_TRUTH_FILE), groundTruth());
        Files.writeString(dir.resolve(SCENE_FILE), sceneJson().encodePrettily() + "\n", StandardCharsets.UTF_8);
        return video;
    }
}
