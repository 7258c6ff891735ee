package io.argus.pipeline.camera;

import io.argus.pipeline.config.CameraUrl;
import io.vertx.core.json.JsonObject;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bytedeco.javacv.FFmpegFrameGrabber;

/**
 * The one look a camera added through the API gets before it is accepted: a video file must hold a video stream FFmpeg
 * reads, a V4L2 device must exist. Such a camera would otherwise be accepted and retried forever with FFmpeg's words
 * in its status. A network camera is not probed: cameras come and go, one that is down now may be up in a minute, and
 * its status says why it fails meanwhile. Blocking (FFmpeg opens the file): run it off the event loop, bounded by
 * {@link #TIMEOUT_MS}.
 */
public final class SourceProbe {
    /** How long the caller waits for a probe before accepting the camera unprobed (a file is read up to its probe size). */
    public static final int TIMEOUT_MS = 5000;

    private SourceProbe() {}

    /**
     * Why the camera {@code definition} ({@code url}, {@code transport}) cannot be added here, as "url: problem", or
     * null. A definition whose url does not parse also gets null: adding it names that problem, with the rest.
     */
    public static String refusal(JsonObject definition, Path baseDir) {
        CameraUrl source;
        try {
            Object url = definition.getValue("url");
            Object transport = definition.getValue("transport");
            if (!(url instanceof String u) || transport != null && !(transport instanceof String)) return null;
            source = CameraUrl.parse(u, (String) transport, baseDir).requireFromNetwork();
        } catch (IllegalArgumentException e) {
            return null;
        }
        return switch (source.kind()) {
            case USB -> Files.exists(Path.of(source.input())) ? null
                    : "url: no V4L2 device " + source.input() + " on this host (is the camera plugged in?)";
            case FILE -> videoFileProblem(source);
            case RTSP, SAMPLE -> null;
        };
    }

    /**
     * A file that FFmpeg cannot open as video gets the words a missing file gets (CameraUrl: the API does not tell
     * which server paths exist); FFmpeg's reason goes to the log, for the operator.
     */
    private static String videoFileProblem(CameraUrl source) {
        FFmpegFrameGrabber grabber = new FFmpegFrameGrabber(source.input());
        source.inputOptions(TIMEOUT_MS).forEach(grabber::setOption);
        String why;
        try {
            grabber.startUnsafe(true);
            if (grabber.getVideoCodec() != 0 && grabber.getImageWidth() > 0) return null;
            why = "no video stream";
        } catch (Exception | LinkageError e) {
            why = CameraReader.readable(source.scrub(e.getMessage()));
        } finally {
            try {
                grabber.releaseUnsafe();
            } catch (Exception e) {
                // nothing was opened
            }
        }
        System.getLogger("argus.camera").log(Level.INFO, "refused video file {0}: {1}", source.redacted(),
                why);
        return "url: " + CameraUrl.cannotOpenVideoFile(Path.of(source.redacted()));
    }
}
