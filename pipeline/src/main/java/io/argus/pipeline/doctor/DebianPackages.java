package io.argus.pipeline.doctor;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The Debian/Ubuntu package that provides a shared library, so a missing library comes with the command that installs
 * it. Known sonames first (those FFmpeg's natives and Java2D need), then {@code dpkg -S} (which finds a library that
 * is installed but not on the loader's path), then Debian's naming rule for library packages (libfoo.so.1 is in
 * libfoo1, libfoo2.so.1 in libfoo2-1), checked with {@code apt-cache show} where apt is there.
 */
final class DebianPackages {
    static final Map<String, String> KNOWN = Map.of(
            "libpulse.so.0", "libpulse0",
            "libxcb-shm.so.0", "libxcb-shm0",
            "libxcb.so.1", "libxcb1",
            "libasound.so.2", "libasound2",
            "libfontconfig.so.1", "fontconfig",
            "libfreetype.so.6", "libfreetype6",
            "libva.so.2", "libva2",
            "libva-drm.so.2", "libva-drm2",
            "libdrm.so.2", "libdrm2");

    private DebianPackages() {}

    /** A package name and whether it is known to provide the library (false: a guess from the naming rule). */
    record Package(String name, boolean certain) {
        /** The command a person runs, e.g. {@code apt-get install --no-install-recommends libpulse0}. */
        String installCommand() {
            return "apt-get install --no-install-recommends " + name;
        }
    }

    static Package forLibrary(String soname) {
        String known = KNOWN.get(soname);
        if (known != null) return new Package(known, true);
        String owner = dpkgOwner(soname);
        if (owner != null) return new Package(owner, true);
        String guess = byNamingRule(soname);
        return new Package(guess, exists(guess));
    }

    /** Debian's rule: the soname without ".so" and its version, joined by "-" when the name ends in a digit. */
    static String byNamingRule(String soname) {
        int so = soname.indexOf(".so");
        if (so < 0) return soname;
        String base = soname.substring(0, so).toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        String version = soname.length() > so + 4 ? soname.substring(so + 4) : "";
        if (version.isEmpty()) return base;
        return base + (Character.isDigit(base.charAt(base.length() - 1)) ? "-" : "") + version;
    }

    private static String dpkgOwner(String soname) {
        if (!Processes.onPath("dpkg")) return null;
        Processes.Output o = Processes.run(List.of("dpkg", "-S", "/" + soname), Duration.ofSeconds(5));
        if (o == null || o.exitCode() != 0 || o.stdout().isBlank()) return null;
        String first = o.stdout().lines().findFirst().orElse("");
        int colon = first.indexOf(':');
        return colon > 0 ? first.substring(0, colon).strip() : null;
    }

    private static boolean exists(String pkg) {
        if (!Processes.onPath("apt-cache")) return false;
        Processes.Output o = Processes.run(List.of("apt-cache", "show", pkg), Duration.ofSeconds(5));
        return o != null && o.exitCode() == 0 && !o.stdout().isBlank();
    }
}
