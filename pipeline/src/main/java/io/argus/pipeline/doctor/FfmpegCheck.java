package io.argus.pipeline.doctor;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.bytedeco.ffmpeg.global.avcodec;
import org.bytedeco.ffmpeg.global.avformat;
import org.bytedeco.ffmpeg.global.avutil;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacv.FFmpegFrameGrabber;

/**
 * FFmpeg, which decodes every camera and writes the sample video. Its natives come with Argus, but some of them link
 * system libraries (libavdevice links PulseAudio, ALSA and XCB): when one is missing, JavaCV says only "Failed to load
 * class", so this check names the missing library and the package that provides it.
 */
final class FfmpegCheck implements Check {
    @Override
    public String name() { return "FFmpeg"; }

    /** The first run extracts about 70 MB of natives into JavaCPP's cache. */
    @Override
    public Duration timeout() { return Duration.ofSeconds(30); }

    @Override
    public List<Finding> run() throws Exception {
        try {
            FFmpegFrameGrabber.tryLoad();
        } catch (Throwable e) {
            return List.of(explain(e));
        }
        return List.of(Finding.ok(name(), avutil.av_version_info().getString() + " (avutil " + version(avutil.avutil_version())
                + ", avcodec " + version(avcodec.avcodec_version()) + ", avformat " + version(avformat.avformat_version()) + ")"));
    }

    private Finding explain(Throwable e) throws Exception {
        Map<String, String> missing = new LinkedHashMap<>(); // soname -> the native that needs it
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String soname = MissingLibraries.fromLinkError(t.getMessage());
            if (soname != null) missing.putIfAbsent(soname, nativeIn(t.getMessage()));
        }
        for (Path dir : ffmpegNatives()) MissingLibraries.of(dir).forEach(missing::putIfAbsent);
        if (missing.isEmpty()) {
            return Finding.fail(name(), "cannot be loaded: " + Doctor.describe(GpuCheck.rootCause(e)),
                    "run with ARGUS_DEBUG=1 for the whole error; `ldd` on the files in " + Loader.getCacheDir() + " shows missing libraries");
        }
        List<String> libraries = new ArrayList<>(), packages = new ArrayList<>();
        boolean guessed = false;
        for (var m : missing.entrySet()) {
            libraries.add(m.getKey() + (m.getValue() != null ? " (needed by " + m.getValue() + ")" : ""));
            DebianPackages.Package p = DebianPackages.forLibrary(m.getKey());
            if (!packages.contains(p.name())) packages.add(p.name());
            guessed |= !p.certain();
        }
        return Finding.fail(name(), "cannot be loaded: missing system " + (libraries.size() == 1 ? "library " : "libraries ")
                        + String.join(", ", libraries),
                "apt-get install --no-install-recommends " + String.join(" ", packages)
                        + (guessed ? "   (a package name guessed from the library's name: check with apt-cache search)" : ""));
    }

    /** The directories JavaCPP extracted FFmpeg's natives into. */
    private static List<Path> ffmpegNatives() throws Exception {
        File cache = Loader.getCacheDir();
        if (cache == null || !cache.isDirectory()) return List.of();
        try (Stream<Path> jars = Files.list(cache.toPath())) {
            return jars.filter(p -> p.getFileName().toString().startsWith("ffmpeg-")).toList();
        }
    }

    /** The native a loader error is about, e.g. libjniavdevice.so; null if the message names none. */
    private static String nativeIn(String message) {
        var m = java.util.regex.Pattern.compile("/([\\w.+-]+\\.so[.0-9]*): ").matcher(message);
        return m.find() ? m.group(1) : null;
    }

    private static String version(int v) {
        return (v >>> 16) + "." + ((v >>> 8) & 0xff) + "." + (v & 0xff);
    }
}
