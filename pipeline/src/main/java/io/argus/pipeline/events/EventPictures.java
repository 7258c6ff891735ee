package io.argus.pipeline.events;

import io.argus.detector.Box;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.opencv.global.opencv_imgcodecs;
import org.bytedeco.opencv.global.opencv_imgproc;
import org.bytedeco.opencv.opencv_core.Mat;
import org.bytedeco.opencv.opencv_core.Point;
import org.bytedeco.opencv.opencv_core.Rect;
import org.bytedeco.opencv.opencv_core.Scalar;

/**
 * An event's pictures from its best snapshot: the snapshot with the object's box drawn, and the object cropped out (its
 * box and a margin around it). Made when asked, from the kept JPEG: nothing more is stored per event. The box is in the
 * frame's pixels; the JPEG may be the frame scaled down (snapshots' maxWidth), so the box is scaled to it.
 */
final class EventPictures {
    /** Around the object in a crop, as a share of its box's width and height on each side. */
    static final double CROP_MARGIN = 0.15;
    private static final int QUALITY = 90;

    private EventPictures() {}

    /** The snapshot with the box drawn (green, 2 px at 640 wide, thicker on larger pictures). */
    static byte[] withBox(byte[] jpeg, int frameWidth, Box box) {
        try (PointerScope scope = new PointerScope()) {
            Mat img = decode(jpeg);
            Rect r = scaled(img, frameWidth, box, 0);
            int thickness = Math.max(2, Math.round(img.cols() / 320f));
            opencv_imgproc.rectangle(img, new Point(r.x(), r.y()), new Point(r.x() + r.width() - 1, r.y() + r.height() - 1),
                    new Scalar(0, 220, 0, 0), thickness, opencv_imgproc.LINE_8, 0);
            return encode(img);
        }
    }

    /** The object with {@link #CROP_MARGIN} around it, clipped to the picture. */
    static byte[] crop(byte[] jpeg, int frameWidth, Box box) {
        try (PointerScope scope = new PointerScope()) {
            Mat img = decode(jpeg);
            return encode(new Mat(img, scaled(img, frameWidth, box, CROP_MARGIN)));
        }
    }

    /** The box in the JPEG's pixels, widened by {@code margin}, within the picture and at least 1 x 1. */
    static Rect scaled(Mat img, int frameWidth, Box box, double margin) {
        double s = frameWidth > 0 ? img.cols() / (double) frameWidth : 1;
        double mx = box.w() * margin;
        double my = box.h() * margin;
        int x0 = clamp((int) Math.floor((box.x() - mx) * s), 0, img.cols() - 1);
        int y0 = clamp((int) Math.floor((box.y() - my) * s), 0, img.rows() - 1);
        int x1 = clamp((int) Math.ceil((box.right() + mx) * s), x0 + 1, img.cols());
        int y1 = clamp((int) Math.ceil((box.bottom() + my) * s), y0 + 1, img.rows());
        return new Rect(x0, y0, x1 - x0, y1 - y0);
    }

    private static int clamp(int v, int lo, int hi) { return Math.max(lo, Math.min(hi, v)); }

    private static Mat decode(byte[] jpeg) {
        Mat img = opencv_imgcodecs.imdecode(new Mat(new BytePointer(jpeg)), opencv_imgcodecs.IMREAD_COLOR);
        if (img == null || img.empty()) throw new IllegalStateException("the kept snapshot does not decode as a JPEG");
        return img;
    }

    private static byte[] encode(Mat img) {
        BytePointer buf = new BytePointer();
        if (!opencv_imgcodecs.imencode(".jpg", img, buf, new IntPointer(opencv_imgcodecs.IMWRITE_JPEG_QUALITY, QUALITY))) {
            throw new IllegalStateException("JPEG encoding failed");
        }
        byte[] bytes = new byte[(int) buf.limit()];
        buf.get(bytes);
        return bytes;
    }
}
