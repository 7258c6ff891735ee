package io.argus.tools.tracking;

import io.argus.trainer.data.LabelFile;
import io.argus.trainer.loss.Truth;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.imageio.ImageIO;
import org.bytedeco.ffmpeg.global.avutil;
import org.bytedeco.javacv.FFmpegFrameGrabber;
import org.bytedeco.javacv.Frame;
import org.bytedeco.javacv.Java2DFrameConverter;

/**
 * A video with MOTChallenge ground truth as a detection dataset in Darknet's layout: every {@code every}-th decoded
 * frame as a PNG with its boxes as a label file. The frames are the decoded video's, compression and all, so a model
 * fine-tuned on them sees what it will see at run time.
 *
 * <p>Which boxes are labelled: those at least {@code minVisibility} visible (in the frame and not hidden; the ground
 * truth's visibility column), cut to the image. Objects less visible than that are neither labelled nor anything
 * else: the model is simply not taught them, as {@code argus eval track} does not score them below its own
 * {@code --min-visibility}.
 */
public final class MotDataset {
    /** What was written: images and boxes per split, and the .data file. */
    public record Written(int trainImages, int valImages, int boxes, Path data) {}

    private MotDataset() {}

    /**
     * Writes DIR/images/{train,val}/PREFIX_NNNNNN.png, DIR/labels/{train,val}/PREFIX_NNNNNN.txt, and appends their paths
     * (relative to DIR) to DIR/train.txt and DIR/val.txt, so several videos can go into one dataset; writes
     * DIR/NAME.names and DIR/NAME.data (NAME: the directory's name). The last {@code valFraction} of the sampled frames
     * are the validation split.
     */
    public static Written write(Path video, List<MotRow> truth, List<String> classNames, Path dir, String prefix,
                                int every, double minVisibility, double valFraction) throws IOException {
        if (every < 1) throw new IllegalArgumentException("every: expected 1 or more frames, found " + every);
        if (!(minVisibility >= 0 && minVisibility <= 1)) {
            throw new IllegalArgumentException("minimum visibility: expected 0..1, found " + minVisibility);
        }
        if (!(valFraction >= 0 && valFraction < 1)) {
            throw new IllegalArgumentException("validation share: expected [0, 1), found " + valFraction);
        }
        if (!Files.isRegularFile(video)) throw new IOException(video + ": no such video file");
        Map<Integer, List<MotRow>> byFrame = new TreeMap<>();
        for (MotRow r : truth) {
            if (r.classId() < 0 || r.classId() >= classNames.size()) {
                throw new IllegalArgumentException("ground truth, frame " + r.frame() + ", object " + r.id() + ": class "
                        + r.classId() + ", expected 0.." + (classNames.size() - 1) + " (" + classNames.size()
                        + " class names)");
            }
            byFrame.computeIfAbsent(r.frame(), k -> new ArrayList<>()).add(r);
        }
        for (String split : List.of("train", "val")) {
            Files.createDirectories(dir.resolve("images").resolve(split));
            Files.createDirectories(dir.resolve("labels").resolve(split));
        }
        // each sampled frame is written as it is decoded, to the training split; the split's size is known only at
        // the end, when the last ones move to the validation split (a whole video is never held in memory)
        List<String> names = new ArrayList<>();
        int boxes = 0;
        avutil.av_log_set_level(avutil.AV_LOG_ERROR);
        try (FFmpegFrameGrabber grabber = new FFmpegFrameGrabber(video.toFile());
             Java2DFrameConverter converter = new Java2DFrameConverter()) {
            grabber.setPixelFormat(avutil.AV_PIX_FMT_BGR24);
            grabber.start();
            int number = 0;
            for (Frame f; (f = grabber.grabImage()) != null; ) {
                number++;
                if ((number - 1) % every != 0) continue;
                BufferedImage image = converter.getBufferedImage(f);
                String name = String.format("%s_%06d", prefix, number);
                StringBuilder labels = new StringBuilder();
                for (MotRow r : byFrame.getOrDefault(number, List.of())) {
                    if (r.visibility() < minVisibility) continue;
                    Truth t = cut(r, image.getWidth(), image.getHeight());
                    if (t == null) continue;
                    labels.append(LabelFile.format(t)).append('\n');
                    boxes++;
                }
                ImageIO.write(image, "png", file(dir, "images", "train", name + ".png").toFile());
                Files.writeString(file(dir, "labels", "train", name + ".txt"), labels, StandardCharsets.UTF_8);
                names.add(name);
            }
            grabber.stop();
        }
        int val = (int) Math.round(names.size() * valFraction);
        int train = names.size() - val;
        List<String> trainPaths = new ArrayList<>(), valPaths = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            if (i >= train) {
                Files.move(file(dir, "images", "train", name + ".png"), file(dir, "images", "val", name + ".png"),
                        StandardCopyOption.REPLACE_EXISTING);
                Files.move(file(dir, "labels", "train", name + ".txt"), file(dir, "labels", "val", name + ".txt"),
                        StandardCopyOption.REPLACE_EXISTING);
            }
            (i < train ? trainPaths : valPaths).add("images/" + (i < train ? "train" : "val") + "/" + name + ".png");
        }
        append(dir.resolve("train.txt"), trainPaths);
        append(dir.resolve("val.txt"), valPaths);
        String stem = dir.toAbsolutePath().normalize().getFileName().toString();
        Files.write(dir.resolve(stem + ".names"), classNames, StandardCharsets.UTF_8);
        Path data = dir.resolve(stem + ".data");
        Files.writeString(data, "classes=" + classNames.size() + "\ntrain=train.txt\nvalid=val.txt\nnames=" + stem
                + ".names\n", StandardCharsets.UTF_8);
        return new Written(train, val, boxes, data);
    }

    private static Path file(Path dir, String kind, String split, String name) {
        return dir.resolve(kind).resolve(split).resolve(name);
    }

    /** The box cut to the image, relative (Darknet's centre x, y, width, height); null when nothing is left. */
    static Truth cut(MotRow r, int width, int height) {
        double left = Math.max(0, r.left()), top = Math.max(0, r.top());
        double right = Math.min(width, r.right()), bottom = Math.min(height, r.top() + r.height());
        if (right <= left || bottom <= top) return null;
        return new Truth((float) ((left + right) / 2 / width), (float) ((top + bottom) / 2 / height),
                (float) ((right - left) / width), (float) ((bottom - top) / height), r.classId());
    }

    private static void append(Path file, List<String> lines) {
        try {
            Files.write(file, lines, StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot write: " + e.getMessage(), e);
        }
    }
}
