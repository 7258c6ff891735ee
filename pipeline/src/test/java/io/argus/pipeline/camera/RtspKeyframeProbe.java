package io.argus.pipeline.camera;

import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A measurement, not a test ({@code scripts/rtsp-keyframes.sh} runs it): the time from the start of a connection to
 * its first picture for a live RTSP camera ({@link LiveRtspCamera}) at keyframe intervals 1, 4 and 10 s, H.264 and
 * HEVC, over TCP and UDP, with the product's camera settings. One connection per case, one after the other; prints a
 * line per case as it goes, then a Markdown table (docs/pipeline.md keeps the last one).
 */
final class RtspKeyframeProbe {
    private RtspKeyframeProbe() {}

    public static void main(String[] args) throws Exception {
        String missing = LiveRtspCamera.missing();
        if (missing != null) {
            System.err.println("cannot run here: " + missing);
            System.exit(2);
        }
        List<String> codecs = LiveRtspCamera.hevc() ? List.of("h264", "h265") : List.of("h264");
        if (codecs.size() == 1) System.out.println("no x265enc in GStreamer: HEVC cases skipped");
        List<LiveRtspCamera.FirstPicture> rows = new ArrayList<>();
        try (LiveRtspCamera server = LiveRtspCamera.start()) {
            for (String codec : codecs) {
                for (int seconds : new int[] {1, 4, 10}) {
                    for (String transport : List.of("tcp", "udp")) {
                        LiveRtspCamera.FirstPicture p = server.firstPicture(codec, seconds, transport, new JsonObject(), 30_000);
                        System.out.println("CASE " + row(p));
                        rows.add(p);
                    }
                }
            }
        }
        System.out.println();
        System.out.println("| codec | keyframe every | transport | connect (ms) | first picture (ms) | stalls | last error |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (LiveRtspCamera.FirstPicture p : rows) System.out.println(row(p));
        System.exit(0);
    }

    private static String row(LiveRtspCamera.FirstPicture p) {
        return String.format(Locale.ROOT, "| %s | %d s | %s | %s | %s | %d | %s |", p.codec().equals("h265") ? "HEVC" : "H.264",
                p.keyframeSeconds(), p.transport().toUpperCase(Locale.ROOT), ms(p.connectMs()), ms(p.firstPictureMs()),
                p.stalls(), p.lastError() == null ? "" : p.lastError());
    }

    private static String ms(double v) { return Double.isNaN(v) ? "none" : Long.toString(Math.round(v)); }
}
