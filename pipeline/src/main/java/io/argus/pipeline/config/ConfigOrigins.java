package io.argus.pipeline.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Where each value of the effective configuration came from, as the config was read ({@link ConfigNode} notes every
 * key a reader asks for): the default, a line of the config file, an environment variable, or the runtime overlay
 * (camera/CameraOverlay). For {@code argus config show}. Secrets are redacted as they are noted: a password, token or
 * secret shows as {@code <redacted>}, a camera address without its credentials.
 */
public final class ConfigOrigins {
    public enum Kind { DEFAULT, FILE, ENVIRONMENT, OVERLAY }

    /** @param detail the file and line, the variable's name or the overlay file; null for a default */
    public record Origin(Kind kind, String detail) {
        public String describe() {
            return switch (kind) {
                case DEFAULT -> "default";
                case FILE -> detail;
                case ENVIRONMENT -> "environment " + detail;
                case OVERLAY -> "runtime overlay " + detail;
            };
        }
    }

    /** One value: its key path ({@code cameras[0].url}), the value as read (redacted), where it came from. */
    public record Entry(String key, Object value, Origin origin) {}

    private static final Pattern SECRET = Pattern.compile("(?i).*(password|token|secret)$");
    public static final String REDACTED = "<redacted>";

    private final String file;
    private final Map<String, Integer> lines;
    private final Map<String, Entry> entries = new LinkedHashMap<>();

    /** {@code lines}: the config file's line of each key path ({@link YamlLines}). */
    public ConfigOrigins(String file, Map<String, Integer> lines) {
        this.file = file;
        this.lines = Map.copyOf(lines);
    }

    /** Notes a value read; a later note of the same key (a reader refining what another read) replaces it. */
    void note(String key, Object value, Kind kind, String envName) {
        Origin origin = switch (kind) {
            case FILE -> new Origin(Kind.FILE, file + (lines.containsKey(key) ? ":" + lines.get(key) : ""));
            case ENVIRONMENT -> new Origin(Kind.ENVIRONMENT, envName);
            default -> new Origin(kind, null);
        };
        put(key, value, origin);
    }

    /** A value the runtime overlay gives ({@code overlayFile}), redacted as the others. */
    public void overlay(String key, Object value, String overlayFile) {
        put(key, value, new Origin(Kind.OVERLAY, overlayFile));
    }

    /** Forgets the values under {@code prefix} (a camera the overlay removed or replaced). */
    public void forget(String prefix) {
        entries.keySet().removeIf(k -> k.equals(prefix) || k.startsWith(prefix + ".") || k.startsWith(prefix + "["));
    }

    private void put(String key, Object value, Origin origin) {
        entries.remove(key);   // re-noted: placed where it is read last
        entries.put(key, new Entry(key, redacted(key, value), origin));
    }

    static Object redacted(String key, Object value) {
        if (value == null || "".equals(value)) return value;   // nothing to hide: say it is empty
        if (SECRET.matcher(key).matches()) return REDACTED;
        if (key.endsWith(".url") && value instanceof String s) return CameraUrl.redact(s);
        return value;
    }

    public List<Entry> entries() { return new ArrayList<>(entries.values()); }
}
