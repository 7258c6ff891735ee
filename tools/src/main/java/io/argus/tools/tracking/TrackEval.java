package io.argus.tools.tracking;

import io.argus.detector.BgrImage;
import io.argus.detector.Detection;
import io.argus.detector.backends.Detector;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.ffmpeg.global.avutil;
import org.bytedeco.javacv.FFmpegFrameGrabber;
import org.bytedeco.javacv.Frame;

/**
 * Runs a detector and a tracker over a video, frame by frame as the pipeline does (detections of a frame, at its
 * presentation time, to the tracker), and returns what the tracker made of it as MOTChallenge result rows: one per
 * tracked detection, with the frame (from 1, in decoding order), the track's id, the detection's box, score and class.
 * Frames are detected in batches of the detector's maxBatch; the tracker still sees them one by one, in order.
 */
public final class TrackEval {
    /** A tracker for one video: the track id of each detection of a frame (aligned with them), or null for none. */
    @FunctionalInterface
    public interface FrameTracker {
        /** One frame's detections; frameWidth and frameHeight: the frame's size, 0 when unknown. */
        List<Long> update(List<Detection> detections, double timeMs, int frameWidth, int frameHeight);
    }

    /** The tracker's rows, the video's frame count, all detections before tracking, and how long it took. */
    public record Run(List<MotRow> rows, int frames, int detections, double seconds) {}

    private TrackEval() {}

    /** One decoded frame's detections: its number (from 1, in decoding order) and presentation time. */
    public record DetectedFrame(int number, double timeMs, int width, int height, List<Detection> detections) {}

    /** The detector and then the tracker over the video. */
    public static Run run(Path video, Detector detector, FrameTracker tracker) throws IOException {
        long start = System.nanoTime();
        List<DetectedFrame> frames = detect(video, detector);
        Run tracked = track(frames, tracker);
        return new Run(tracked.rows(), tracked.frames(), tracked.detections(), (System.nanoTime() - start) / 1e9);
    }

    /**
     * The detector over every frame of the video, in batches of its maxBatch: what the pipeline would hand the tracker.
     * Kept apart from tracking so that one detector pass can be tracked many ways (argus eval track --detections).
     */
    public static List<DetectedFrame> detect(Path video, Detector detector) throws IOException {
        if (!Files.isRegularFile(video)) throw new IOException(video + ": no such video file");
        List<DetectedFrame> out = new ArrayList<>();
        int batch = detector.options().maxBatch();
        avutil.av_log_set_level(avutil.AV_LOG_ERROR);
        try (FFmpegFrameGrabber grabber = new FFmpegFrameGrabber(video.toFile())) {
            grabber.setPixelFormat(avutil.AV_PIX_FMT_BGR24);
            grabber.start();
            double fps = grabber.getFrameRate() > 0 ? grabber.getFrameRate() : 25;
            List<BgrImage> images = new ArrayList<>();
            List<Double> times = new ArrayList<>();
            boolean more = true;
            while (more) {
                Frame f = grabber.grabImage();
                more = f != null;
                if (more) {
                    images.add(copy(f));
                    // the presentation time; a stream without one gets the nominal frame rate's
                    times.add(f.timestamp >= 0 ? f.timestamp / 1000.0 : (out.size() + images.size() - 1) * 1000 / fps);
                }
                if (images.size() == batch || (!more && !images.isEmpty())) {
                    List<List<Detection>> found = detector.detect(images);
                    for (int i = 0; i < found.size(); i++) {
                        out.add(new DetectedFrame(out.size() + 1, times.get(i), images.get(i).width(),
                                images.get(i).height(), List.copyOf(found.get(i))));
                    }
                    images.clear();
                    times.clear();
                }
            }
            grabber.stop();
        } catch (FFmpegFrameGrabber.Exception e) {
            throw new IOException(video + ": cannot decode: " + e.getMessage(), e);
        }
        return out;
    }

    /** The tracker over the frames, one by one in order: its rows, one per tracked detection. */
    public static Run track(List<DetectedFrame> frames, FrameTracker tracker) {
        long start = System.nanoTime();
        List<MotRow> rows = new ArrayList<>();
        int detections = 0;
        for (DetectedFrame frame : frames) {
            List<Detection> dets = frame.detections();
            detections += dets.size();
            List<Long> ids = tracker.update(dets, frame.timeMs(), frame.width(), frame.height());
            for (int j = 0; j < dets.size(); j++) {
                Long id = ids.get(j);
                if (id == null) continue;
                Detection d = dets.get(j);
                rows.add(new MotRow(frame.number(), id, d.box().x(), d.box().y(), d.box().w(), d.box().h(),
                        d.confidence(), d.classId(), 1));
            }
        }
        return new Run(List.copyOf(rows), frames.size(), detections, (System.nanoTime() - start) / 1e9);
    }

    /**
     * Detections as MOTChallenge det.txt rows: {@code frame,-1,left,top,width,height,conf,class}. A det file keeps no
     * times; {@link #fromRows} gives them back at the nominal frame rate.
     */
    public static List<MotRow> toRows(List<DetectedFrame> frames) {
        List<MotRow> rows = new ArrayList<>();
        for (DetectedFrame frame : frames) {
            for (Detection d : frame.detections()) {
                rows.add(new MotRow(frame.number(), -1, d.box().x(), d.box().y(), d.box().w(), d.box().h(),
                        d.confidence(), d.classId(), 1));
            }
        }
        return rows;
    }

    /**
     * Frames 1 to the last one with a detection (frames without any included, empty), frame n at (n - 1) / fps
     * seconds, from det.txt rows; a detection's class name is {@code classNames}' entry for its class index. det.txt
     * does not say the frames' size: width and height (0: unknown) are the caller's.
     */
    public static List<DetectedFrame> fromRows(List<MotRow> rows, List<String> classNames, double fps, int width,
                                               int height) {
        int last = 0;
        for (MotRow r : rows) last = Math.max(last, r.frame());
        List<List<Detection>> perFrame = new ArrayList<>();
        for (int i = 0; i < last; i++) perFrame.add(new ArrayList<>());
        for (MotRow r : rows) {
            if (r.classId() < 0 || r.classId() >= classNames.size()) {
                throw new IllegalArgumentException("detection of frame " + r.frame() + ": class " + r.classId()
                        + ", expected 0.." + (classNames.size() - 1) + " (the model's " + classNames.size() + " classes)");
            }
            perFrame.get(r.frame() - 1).add(new Detection(r.classId(), classNames.get(r.classId()), (float) r.confidence(),
                    new io.argus.detector.Box((float) r.left(), (float) r.top(), (float) r.width(), (float) r.height())));
        }
        List<DetectedFrame> frames = new ArrayList<>();
        for (int i = 0; i < last; i++) frames.add(new DetectedFrame(i + 1, i * 1000 / fps, width, height, List.copyOf(perFrame.get(i))));
        return frames;
    }

    /** The grabber reuses its frame buffer: the pixels are copied out. */
    private static BgrImage copy(Frame f) {
        ByteBuffer src = (ByteBuffer) f.image[0];
        int bytes = f.imageStride * f.imageHeight;
        byte[] pixels = new byte[bytes];
        src.get(0, pixels, 0, bytes);
        return new BgrImage(f.imageWidth, f.imageHeight, f.imageStride, ByteBuffer.wrap(pixels));
    }
}
