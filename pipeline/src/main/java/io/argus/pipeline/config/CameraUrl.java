package io.argus.pipeline.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A camera address, checked and classified before FFmpeg ever sees it. Only these are accepted:
 * {@code rtsp://} and {@code rtsps://} (network cameras), a video file (a path or {@code file:} URL: a regular file, or
 * in the config file a named pipe; never a device or anything in /proc, /sys or /dev),
 * a V4L2 device ({@code /dev/videoN}, {@code v4l2:///dev/videoN} or {@code usb:N}) and {@code sample:} (the generated
 * demo video). FFmpeg is then told to open only the protocols of that kind ({@code protocol_whitelist}) and, for
 * files, only plain container formats ({@code format_whitelist}), so a URL cannot smuggle in {@code concat:},
 * {@code subfile:}, playlists or other local files.
 *
 * @param input     what FFmpeg opens
 * @param format    FFmpeg input format to force, or null to probe
 * @param transport RTSP transport (tcp or udp); null for other kinds
 * @param redacted  the address with credentials replaced by {@code ***}: the only form logged or returned by the API
 */
public record CameraUrl(Kind kind, String input, String format, String transport, String redacted) {
    public enum Kind { RTSP, FILE, USB, SAMPLE }

    /** Containers a file camera may be (no concat, playlists, images sequences or device formats). */
    public static final String FILE_FORMATS = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi,mpegts,flv,h264,hevc,mjpeg,mpeg,m4v,nut";

    /**
     * RTSP over UDP: how long (microseconds) FFmpeg's RTSP demuxer holds the RTP packets behind a missing one, waiting
     * for it to come out of order, before it gives up on it ({@code AVFormatContext.max_delay}, used only when a
     * packet is missing; FFmpeg's own default for RTSP). It is set explicitly among the input options: JavaCV, which
     * the CPU decoder once used, wrote its own {@code maxDelay}, -1 unless set, into the format context after opening,
     * and with -1 the demuxer gave up on a missing packet at once, so every packet that came a little late was dropped
     * as "received too late" (docs/reliability.md, UDP behind jitter).
     */
    public static final int RTP_REORDER_DELAY_US = 100_000;

    private static final Pattern USERINFO = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://)([^/@?#\\s\"']*)@");
    private static final Pattern SECRET_QUERY = Pattern.compile("(?i)([?&](?:[^=&]*(?:pass|pwd|token|secret|key|auth|sig)[^=&]*)=)[^&#]*");
    private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*):");

    public static CameraUrl parse(String url, String transport, Path baseDir) {
        String u = url.strip();
        Matcher m = SCHEME.matcher(u);
        String scheme = m.find() ? m.group(1).toLowerCase(Locale.ROOT) : "";
        return switch (scheme) {
            case "rtsp", "rtsps" -> rtsp(u, transport);
            case "sample" -> new CameraUrl(Kind.SAMPLE, u, null, null, u);
            case "v4l2" -> device(uriPath(u));
            case "usb" -> device(u.substring(4).startsWith("/") ? uriPath(u) : "/dev/video" + checkIndex(u.substring(4)));
            case "file" -> file(Path.of(uriPath(u)));
            case "" -> u.startsWith("/dev/video") ? device(u) : file(baseDir.resolve(u).normalize());
            default -> {
                if (scheme.length() == 1 && u.length() > 2 && (u.charAt(2) == '\\' || u.charAt(2) == '/')) yield file(baseDir.resolve(u));
                throw new IllegalArgumentException("unsupported camera URL scheme \"" + scheme + ":\" in " + redact(u)
                        + " (allowed: rtsp://, rtsps://, a video file path or file:, /dev/videoN or v4l2:, usb:N, sample:)");
            }
        };
    }

    private static CameraUrl rtsp(String u, String transport) {
        try {
            URI uri = new URI(u);
            if (uri.getHost() == null || uri.getHost().isEmpty()) throw new IllegalArgumentException("no host in " + redact(u));
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a valid URL: " + redact(u) + " (" + e.getReason() + ")");
        }
        String t = transport == null ? "tcp" : transport.toLowerCase(Locale.ROOT);
        if (!t.equals("tcp") && !t.equals("udp")) throw new IllegalArgumentException("RTSP transport must be tcp or udp, found " + transport);
        return new CameraUrl(Kind.RTSP, u, "rtsp", t, redact(u));
    }

    private static CameraUrl file(Path p) {
        Path abs = p.toAbsolutePath().normalize();
        checkVideoFile(abs, true);
        // "file:" + absolute path: FFmpeg never reads a protocol prefix out of the file name itself.
        return new CameraUrl(Kind.FILE, "file:" + abs, null, null, abs.toString());
    }

    /**
     * A video file camera reads a regular file, or (only when {@code pipeAllowed}) a named pipe a process writes a
     * stream into; never a directory, a device, a socket or anything in /proc, /sys or /dev, where a read may never
     * end ({@code /dev/zero}) or return a secret ({@code /proc/self/environ}). A missing file and one of the wrong
     * kind get the same words: a camera added through the API cannot learn more about a server path than that it
     * cannot be opened (a link that leads into /proc, /sys or /dev is refused as such, the path it names is known).
     */
    private static void checkVideoFile(Path abs, boolean pipeAllowed) {
        if (LocalFiles.inKernelTree(abs)) {
            throw new IllegalArgumentException(LocalFiles.kernelTreeReason(abs) + " (a V4L2 camera is /dev/videoN or usb:N)");
        }
        Path real = null;
        try {
            real = abs.toRealPath();
        } catch (java.io.IOException e) {
            // missing (or not ours to see): cannot be opened, as below
        }
        if (real != null && LocalFiles.inKernelTree(real)) {
            throw new IllegalArgumentException(abs + " leads into /proc, /sys or /dev, whose files are never video files");
        }
        LocalFiles.Kind kind = real != null ? LocalFiles.kind(real) : LocalFiles.Kind.MISSING;
        if (kind == LocalFiles.Kind.REGULAR || pipeAllowed && kind == LocalFiles.Kind.PIPE) return;
        throw new IllegalArgumentException(cannotOpenVideoFile(abs));
    }

    /** The one answer for a file camera that is missing, of the wrong kind or holds no video (camera/SourceProbe). */
    public static String cannotOpenVideoFile(Path abs) {
        return "cannot open video file " + abs + ": expected an existing regular file holding a video stream";
    }

    /**
     * This camera as one that came from the network (the REST API, another node's camera list): a file camera must be
     * a regular file there, not a pipe, which a process on this host may hold open and never write (a camera of the
     * config file may read one: the operator set up what writes into it).
     */
    public CameraUrl requireFromNetwork() {
        if (kind == Kind.FILE) checkVideoFile(Path.of(redacted), false);
        return this;
    }

    private static CameraUrl device(String path) {
        if (!path.matches("/dev/video[0-9]{1,3}")) throw new IllegalArgumentException("expected a V4L2 device /dev/videoN, found " + path);
        return new CameraUrl(Kind.USB, path, "video4linux2", null, path);
    }

    private static String uriPath(String u) {
        try {
            String p = new URI(u).getPath();
            if (p == null || p.isEmpty()) throw new IllegalArgumentException("no path in " + redact(u));
            return p;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a valid URL: " + redact(u) + " (" + e.getReason() + ")");
        }
    }

    private static String checkIndex(String s) {
        if (!s.matches("[0-9]{1,3}")) throw new IllegalArgumentException("usb: expects a device number (usb:0), found usb:" + s);
        return s;
    }

    /** The {@code sample:} camera once its video has been generated: a file, still shown as {@code sample:}. */
    public CameraUrl withSampleFile(Path video) {
        if (kind != Kind.SAMPLE) throw new IllegalStateException(redacted + " is not the sample camera");
        return new CameraUrl(Kind.SAMPLE, "file:" + video.toAbsolutePath().normalize(), null, null, redacted);
    }

    /**
     * The address that parses back to this URL on any node, credentials included (for the cluster's camera list,
     * never for logs or the API): files by absolute path, the sample camera as configured.
     */
    public String address() {
        return kind == Kind.FILE ? redacted : input;
    }

    /** FFmpeg protocols this kind may open. */
    public String protocolWhitelist() {
        return switch (kind) {
            case RTSP -> input.regionMatches(true, 0, "rtsps", 0, 5) ? "rtsps,rtsp,rtp,srtp,udp,tcp,tls" : "rtsp,rtp,srtp,udp,tcp";
            case FILE, SAMPLE, USB -> "file";
        };
    }

    public boolean live() { return kind == Kind.RTSP || kind == Kind.USB; }

    /** Replaces user:password@ and secret-looking query values with ***. */
    public static String redact(String url) {
        if (url == null) return null;
        String s = USERINFO.matcher(url).replaceAll("$1***@");
        return SECRET_QUERY.matcher(s).replaceAll("$1***");
    }

    /** Removes this camera's raw address (and any credentials) from a message, e.g. an FFmpeg error. */
    public String scrub(String message) {
        if (message == null) return null;
        String s = message.replace(input, redacted);
        if (input.startsWith("file:")) s = s.replace(input.substring(5), redacted);
        return redact(s);
    }

    /**
     * FFmpeg's input options for this source, whichever decoder reads it: the protocols and (for files) container
     * formats it may use, and for RTSP the transport, a socket timeout and a quick start.
     */
    public java.util.Map<String, String> inputOptions(int connectTimeoutMs) {
        java.util.Map<String, String> o = new java.util.LinkedHashMap<>();
        o.put("protocol_whitelist", protocolWhitelist());
        switch (kind) {
            case RTSP -> {
                o.put("rtsp_transport", transport());
                o.put("timeout", Long.toString(connectTimeoutMs * 1000L));   // socket I/O timeout, microseconds
                o.put("analyzeduration", "1000000");                          // one second of probing at most
                o.put("fflags", "nobuffer");
                o.put("allowed_media_types", "video");
                o.put("max_delay", Integer.toString(RTP_REORDER_DELAY_US));  // waiting for reordered RTP packets
            }
            case FILE, SAMPLE -> o.put("format_whitelist", FILE_FORMATS);
            case USB -> { }
        }
        return o;
    }
}
