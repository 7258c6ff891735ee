package io.argus.pipeline.config;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * One object of the configuration, read key by key with types, ranges and defaults. Every key may be overridden by
 * an environment variable named after its path: {@code http.port} by {@code ARGUS_HTTP_PORT},
 * {@code models[0].maxBatch} by {@code ARGUS_MODELS_0_MAX_BATCH}. Errors name the full key. {@link #finish()}
 * rejects keys nobody read (typos).
 */
public final class ConfigNode {
    private final String path;      // "http", "cameras[1]", "" for the root
    private final JsonObject json;
    private final Map<String, String> env;
    private final Set<String> used;
    private final Path baseDir;
    private final Set<String> readKeys = new LinkedHashSet<>();
    /** Where each value read came from ({@code argus config show}); null when nobody asks. */
    private final ConfigOrigins origins;

    public ConfigNode(String path, JsonObject json, Map<String, String> env, Set<String> used, Path baseDir) {
        this(path, json, env, used, baseDir, null);
    }

    public ConfigNode(String path, JsonObject json, Map<String, String> env, Set<String> used, Path baseDir, ConfigOrigins origins) {
        this.path = path;
        this.json = json != null ? json : new JsonObject();
        this.env = env;
        this.used = used;
        this.baseDir = baseDir;
        this.origins = origins;
    }

    /**
     * Notes a key of the file read whole by a reader of shapes the typed getters lack (zones, lines), when the file
     * has it: for {@code argus config show}.
     */
    public void noteWhole(String name) {
        if (json.getValue(name) != null) noted(name, json.getValue(name));
    }

    /** {@code value}, the one read of {@code name}, noted with where it came from when someone asks (see above). */
    private <T> T noted(String name, T value) {
        if (origins == null) return value;
        String envName = envName(key(name));
        ConfigOrigins.Kind kind = env.containsKey(envName) ? ConfigOrigins.Kind.ENVIRONMENT
                : json.containsKey(name) ? ConfigOrigins.Kind.FILE : ConfigOrigins.Kind.DEFAULT;
        origins.note(key(name), value instanceof Path p ? p.toString() : value, kind, envName);
        return value;
    }

    /** The environment variable that overrides a key path: {@code cameras[0].maxBatch -> ARGUS_CAMERAS_0_MAX_BATCH}. */
    public static String envName(String keyPath) {
        StringBuilder sb = new StringBuilder("ARGUS");
        for (String part : keyPath.replace("[", ".").replace("]", "").split("\\.")) {
            if (part.isEmpty()) continue;
            sb.append('_');
            for (int i = 0; i < part.length(); i++) {
                char c = part.charAt(i);
                if (Character.isUpperCase(c) && i > 0) sb.append('_');
                sb.append(Character.toUpperCase(c));
            }
        }
        return sb.toString();
    }

    public String key(String name) { return path.isEmpty() ? name : path + "." + name; }

    public Path baseDir() { return baseDir; }

    /** The section as the file has it (no environment overrides): for readers of shapes the typed getters lack. */
    public JsonObject json() { return json; }

    /** The raw value: the environment override when set, else the file's value, else null. */
    private Object raw(String name) {
        readKeys.add(name);
        String envName = envName(key(name));
        if (env.containsKey(envName)) {
            used.add(envName);
            return env.get(envName);
        }
        return json.getValue(name);
    }

    /** Whether the key is set (in the file or the environment), without reading it. */
    public boolean has(String name) {
        return raw(name) != null;
    }

    public String string(String name, String def) {
        return noted(name, stringRead(name, def));
    }

    private String stringRead(String name, String def) {
        Object v = raw(name);
        if (v == null) return def;
        if (v instanceof JsonObject || v instanceof JsonArray) throw new ConfigException(key(name), "expected a text value, found " + describe(v));
        return v.toString();
    }

    public String requiredString(String name) {
        String s = string(name, null);
        if (s == null || s.isBlank()) throw new ConfigException(key(name), "missing (required)");
        return s;
    }

    public String oneOf(String name, String def, String... allowed) {
        return noted(name, oneOfRead(name, def, allowed));
    }

    private String oneOfRead(String name, String def, String... allowed) {
        String s = string(name, def);
        for (String a : allowed) if (a.equalsIgnoreCase(s)) return a;
        throw new ConfigException(key(name), "expected one of " + String.join(", ", allowed) + ", found \"" + s + "\"");
    }

    public int integer(String name, int def, int min, int max) {
        long v = longValue(name, def, min, max);
        return (int) v;
    }

    public long longValue(String name, long def, long min, long max) {
        return noted(name, longValueRead(name, def, min, max));
    }

    private long longValueRead(String name, long def, long min, long max) {
        Object v = raw(name);
        long x;
        if (v == null) return def;
        if (v instanceof Number n && (n instanceof Integer || n instanceof Long || n.doubleValue() == Math.rint(n.doubleValue()))) {
            x = n.longValue();
        } else if (v instanceof String s) {
            try {
                x = Long.parseLong(s.strip());
            } catch (NumberFormatException e) {
                throw new ConfigException(key(name), "expected an integer in " + min + ".." + max + ", found \"" + s + "\"");
            }
        } else {
            throw new ConfigException(key(name), "expected an integer in " + min + ".." + max + ", found " + describe(v));
        }
        if (x < min || x > max) throw new ConfigException(key(name), "expected an integer in " + min + ".." + max + ", found " + x);
        return x;
    }

    public double number(String name, double def, double min, double max) {
        return noted(name, numberRead(name, def, min, max));
    }

    private double numberRead(String name, double def, double min, double max) {
        Object v = raw(name);
        double x;
        if (v == null) return def;
        if (v instanceof Number n) {
            x = n.doubleValue();
        } else if (v instanceof String s) {
            try {
                x = Double.parseDouble(s.strip());
            } catch (NumberFormatException e) {
                throw new ConfigException(key(name), "expected a number in " + min + ".." + max + ", found \"" + s + "\"");
            }
        } else {
            throw new ConfigException(key(name), "expected a number in " + min + ".." + max + ", found " + describe(v));
        }
        if (!(x >= min && x <= max)) throw new ConfigException(key(name), "expected a number in " + min + ".." + max + ", found " + x);
        return x;
    }

    public boolean bool(String name, boolean def) {
        return noted(name, boolRead(name, def));
    }

    private boolean boolRead(String name, boolean def) {
        Object v = raw(name);
        if (v == null) return def;
        if (v instanceof Boolean b) return b;
        if (v instanceof String s) {
            String t = s.strip().toLowerCase(Locale.ROOT);
            if (t.equals("true") || t.equals("yes") || t.equals("1")) return true;
            if (t.equals("false") || t.equals("no") || t.equals("0")) return false;
        }
        throw new ConfigException(key(name), "expected true or false, found " + describe(v));
    }

    /**
     * A list of text values: a YAML list in the file; from the environment one comma-separated value
     * ({@code ARGUS_CLUSTER_MEMBERS=a:5701,b:5701}).
     */
    public List<String> strings(String name) {
        return noted(name, stringsRead(name));
    }

    private List<String> stringsRead(String name) {
        Object v = raw(name);
        List<String> out = new ArrayList<>();
        if (v == null) return out;
        if (v instanceof String s) {
            for (String part : s.split(",")) if (!part.isBlank()) out.add(part.strip());
            return out;
        }
        if (!(v instanceof JsonArray a)) throw new ConfigException(key(name), "expected a list (- items), found " + describe(v));
        for (int i = 0; i < a.size(); i++) {
            Object item = a.getValue(i);
            if (item == null || item instanceof JsonObject || item instanceof JsonArray) {
                throw new ConfigException(key(name) + "[" + i + "]", "expected a text value, found " + describe(item));
            }
            out.add(item.toString().strip());
        }
        return out;
    }

    /**
     * A list given either way: a YAML list, or one value (text or number) whose comma-separated parts are the items,
     * as the environment gives it ({@code ARGUS_MODELS_0_CUDA_DEVICES=0,1}). Null when the key is absent.
     */
    public List<String> listOrValue(String name) {
        return noted(name, listOrValueRead(name));
    }

    private List<String> listOrValueRead(String name) {
        Object v = raw(name);
        if (v == null) return null;
        if (v instanceof JsonArray) return strings(name);
        if (v instanceof JsonObject) throw new ConfigException(key(name), "expected a list (- items) or a value, found a section");
        List<String> out = new ArrayList<>();
        for (String part : v.toString().split(",", -1)) out.add(part.strip());
        return out;
    }

    /** A file path, resolved against the config file's directory when relative; must exist when {@code mustExist}. */
    public Path path(String name, Path def, boolean mustExist) {
        return noted(name, pathRead(name, def, mustExist));
    }

    private Path pathRead(String name, Path def, boolean mustExist) {
        String s = string(name, null);
        if (s == null || s.isBlank()) return def;
        Path p = resolve(s);
        if (mustExist && !java.nio.file.Files.isRegularFile(p)) throw new ConfigException(key(name), "no such file " + p);
        return p;
    }

    public Path resolve(String s) {
        String expanded = s.startsWith("~/") ? System.getProperty("user.home") + s.substring(1) : s;
        Path p = Path.of(expanded);
        return p.isAbsolute() ? p.normalize() : baseDir.resolve(p).normalize();
    }

    public ConfigNode child(String name) {
        Object v = raw(name);
        if (v != null && !(v instanceof JsonObject)) throw new ConfigException(key(name), "expected a section (key: value lines), found " + describe(v));
        return new ConfigNode(key(name), (JsonObject) v, env, used, baseDir, origins);
    }

    /**
     * The objects of a list. Environment variables may add elements past the file's: {@code ARGUS_CAMERAS_2_URL}
     * with two cameras in the file adds a third.
     */
    public List<ConfigNode> list(String name) {
        Object v = raw(name);
        if (v != null && !(v instanceof JsonArray)) throw new ConfigException(key(name), "expected a list (- items), found " + describe(v));
        JsonArray a = v != null ? (JsonArray) v : new JsonArray();
        int count = a.size();
        String prefix = envName(key(name)) + "_";
        for (String e : env.keySet()) {
            if (!e.startsWith(prefix)) continue;
            String rest = e.substring(prefix.length());
            int end = rest.indexOf('_');
            try {
                int index = Integer.parseInt(end < 0 ? rest : rest.substring(0, end));
                if (index >= count && index < count + 64) count = index + 1;
            } catch (NumberFormatException ignored) {
                // not an element override
            }
        }
        List<ConfigNode> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Object item = i < a.size() ? a.getValue(i) : null;
            String k = key(name) + "[" + i + "]";
            if (item != null && !(item instanceof JsonObject)) throw new ConfigException(k, "expected a section (key: value lines), found " + describe(item));
            out.add(new ConfigNode(k, (JsonObject) item, env, used, baseDir, origins));
        }
        return out;
    }

    /** Fails on keys of this object that no reader asked for: a typo should not silently keep the default. */
    public void finish() {
        for (String k : json.fieldNames()) {
            if (!readKeys.contains(k)) {
                throw new ConfigException(key(k), "unknown key (known here: " + String.join(", ", new TreeSet<>(readKeys)) + ")");
            }
        }
    }

    static String describe(Object v) {
        if (v instanceof JsonObject) return "a section";
        if (v instanceof JsonArray) return "a list";
        if (v instanceof String s) return "\"" + s + "\"";
        return String.valueOf(v);
    }
}
