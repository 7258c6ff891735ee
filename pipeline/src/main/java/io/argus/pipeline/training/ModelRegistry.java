package io.argus.pipeline.training;

import io.argus.detector.io.AtomicFile;
import io.argus.detector.io.OwnerOnly;
import io.argus.pipeline.config.Names;
import io.argus.pipeline.inference.LoadedModel;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The versions of one model ({@code versions/registry.json} beside their weights files): the configured one it started
 * from (the base), every fine-tuned candidate with the held-out mAP that decided it, which one serves, and the stack
 * of versions that served before it (what rollback returns to). A registry belongs to its base: when the configured
 * weights change, the old history is set aside ({@code registry-<time>.json}) and a new one starts.
 * Used from one thread. Every file is replaced atomically ({@link AtomicFile}): a version's weights are copied in
 * before {@code registry.json} names them, and {@code registry.json} commits each change (a candidate, a swap that
 * happened, a rollback), so a kill at any moment leaves the last committed history with whole weights. Weights a kill
 * left uncommitted (copied in, not yet named) are removed at the next open.
 */
public final class ModelRegistry {
    private static final System.Logger LOG = System.getLogger("argus.training.registry");

    /** A version: {@code state} configured, accepted, rejected or rolled-back. */
    public record Version(String version, int number, Path file, String parent, String state, double createdAt,
                          Integer run, Double mapBefore, Double mapAfter) {
        public JsonObject toJson() {
            return new JsonObject().put("version", version).put("number", number)
                    .put("file", file != null ? file.toString() : null).put("parent", parent).put("state", state)
                    .put("createdAt", createdAt).put("run", run).put("mapBefore", mapBefore).put("mapAfter", mapAfter);
        }

        static Version fromJson(JsonObject j) {
            String f = j.getString("file");
            return new Version(j.getString("version"), j.getInteger("number"), f != null ? Path.of(f) : null,
                    j.getString("parent"), j.getString("state"), j.getDouble("createdAt", 0.0), j.getInteger("run"),
                    j.getDouble("mapBefore"), j.getDouble("mapAfter"));
        }

        Version withState(String s) {
            return new Version(version, number, file, parent, s, createdAt, run, mapBefore, mapAfter);
        }
    }

    /** A version named after its weights' hash; {@code -r<run>}: a fine-tune that produced weights seen before. */
    public static final Pattern HASH_VERSION = Pattern.compile("sha256:[0-9a-f]{12}(-r[0-9]{1,9})?");

    private final Path dir;
    private final Map<String, Version> versions = new LinkedHashMap<>();
    private final List<String> history = new ArrayList<>(); // versions that served, the active one last
    private String base;

    private ModelRegistry(Path dir) {
        this.dir = dir;
    }

    /**
     * Opens the registry in {@code dir} for a model configured as {@code baseVersion} with weights in
     * {@code baseFile}.
     */
    public static ModelRegistry open(Path dir, String baseVersion, Path baseFile) {
        ModelRegistry r = new ModelRegistry(dir);
        Path file = dir.resolve("registry.json");
        try {
            OwnerOnly.privateDirectory(dir);
            AtomicFile.removeLeftovers(dir); // a copy or a save a kill cut short: never referenced
            if (Files.isRegularFile(file)) {
                JsonObject j;
                try {
                    j = new JsonObject(Files.readString(file));
                } catch (RuntimeException e) {
                    // not a file a kill can leave (every save is atomic): keep it for a person, serve the base
                    Path aside = dir.resolve("registry-corrupt-" + System.currentTimeMillis() + ".json");
                    LOG.log(System.Logger.Level.WARNING, file + ": not readable (" + e.getMessage() + "), set aside as "
                            + aside.getFileName() + "; starting a new history from the configured weights");
                    Files.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
                    j = null;
                }
                if (j != null && baseVersion.equals(j.getString("base"))) {
                    r.base = baseVersion;
                    for (Object o : j.getJsonArray("versions", new JsonArray())) {
                        Version v = Version.fromJson((JsonObject) o);
                        r.versions.put(v.version(), v);
                    }
                    for (Object o : j.getJsonArray("history", new JsonArray())) r.history.add((String) o);
                    r.history.removeIf(v -> !r.versions.containsKey(v) || (r.versions.get(v).file() != null
                            && !Files.isRegularFile(r.versions.get(v).file())));
                    if (!r.history.isEmpty()) {
                        removeUncommitted(dir);
                        return r;
                    }
                    r.versions.clear();
                }
                if (j != null) {
                    Files.move(file, dir.resolve("registry-" + System.currentTimeMillis() + ".json"),
                            StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("model registry " + file + ": " + e.getMessage(), e);
        }
        r.base = baseVersion;
        r.versions.put(baseVersion, new Version(baseVersion, 0, baseFile, null, "configured",
                System.currentTimeMillis(), null, null, null));
        r.history.add(baseVersion);
        r.save();
        try {
            removeUncommitted(dir);
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("model registry " + file + ": " + e.getMessage(), e);
        }
        return r;
    }

    /** A version's weights as {@link #copyIn} and {@link #adopt} name them. */
    private static final Pattern VERSION_FILE = Pattern.compile("[0-9]{1,9}-[0-9a-f]{12}(-r[0-9]{1,9})?\\.weights");

    /**
     * Removes weights copied in for a version whose record a kill cut off: the file is written first and
     * {@code registry.json} names it after (the commit), so a kill between the two leaves a file no history names,
     * as large as a model. Files named by any history here, the current one or one set aside, stay; when one of them
     * does not read (then what it names is unknown) nothing is removed.
     */
    private static void removeUncommitted(Path dir) throws IOException {
        Set<String> named = new HashSet<>();
        List<Path> candidates = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                String name = f.getFileName().toString();
                if (VERSION_FILE.matcher(name).matches()) {
                    candidates.add(f);
                } else if (name.startsWith("registry") && name.endsWith(".json")) {
                    try {
                        for (Object o : new JsonObject(Files.readString(f)).getJsonArray("versions", new JsonArray())) {
                            String file = ((JsonObject) o).getString("file");
                            if (file != null) named.add(Path.of(file).getFileName().toString());
                        }
                    } catch (RuntimeException e) {
                        return; // a history that does not read: which files it names is unknown
                    }
                }
            }
        }
        for (Path f : candidates) {
            if (named.contains(f.getFileName().toString())) continue;
            Files.deleteIfExists(f);
            LOG.log(System.Logger.Level.WARNING, f + ": weights no history names (a kill came between their copy and "
                    + "the record that names them), removed");
        }
    }

    public Path dir() { return dir; }

    public String base() { return base; }

    /** The version that serves (or should: the one to resume at start). */
    public Version active() { return versions.get(history.get(history.size() - 1)); }

    /** What rollback would return to, or null. */
    public Version previous() { return history.size() < 2 ? null : versions.get(history.get(history.size() - 2)); }

    public Version get(String version) { return versions.get(version); }

    /**
     * Records a fine-tuned candidate. Accepted: its weights are copied in ({@code <number>-<hash>.weights}) and it
     * is returned to be swapped in, then {@link #activated}. Rejected: only the record is kept.
     */
    public Version addCandidate(Path weights, int run, double mapBefore, double mapAfter, boolean accepted) {
        String version = LoadedModel.fileVersion(weights);
        if (versions.containsKey(version)) version = version + "-r" + run; // the same weights again: still a new entry
        int number = nextNumber();
        Path file = accepted ? copyIn(weights, number, version) : null;
        Version v = new Version(version, number, file, active().version(), accepted ? "accepted" : "rejected",
                System.currentTimeMillis(), run, mapBefore, mapAfter);
        record(v);
        return v;
    }

    /** An adopted version, and whether this adoption added it (false: it was kept here already). */
    public record Adopted(Version version, boolean added) {}

    /**
     * A version that did not come from this node's own fine-tune: promoted on another node of the cluster (its
     * weights fetched from there) or by an operator ({@code state} says which), its weights {@code staged} in this
     * registry's directory (checked for the network, hashed). They must hash to {@code version} when one is given (a
     * transfer that changed a byte is refused). The staged file becomes the version's file and the version is
     * returned to be swapped in, then {@link #activated}, or {@link #forget forgotten} when the swap fails. A version
     * already here is returned as it is (the staged file goes). Either way the staged file is this registry's now.
     */
    public Adopted adopt(StagedWeights staged, String version, String state) {
        try {
            String actual = staged.version();
            if (version == null) version = actual;
            requireVersion("version", version);
            if (!version.equals(actual) && !version.startsWith(actual + "-r")) {
                throw new IllegalArgumentException("version: the weights are " + actual + ", expected " + version);
            }
            Version known = versions.get(version);
            if (known != null && known.file() != null) return new Adopted(known, false);
            int number = nextNumber();
            Path file = dir.resolve(number + "-" + actual.substring("sha256:".length()) + ".weights");
            try {
                Files.move(staged.file(), file, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
            }
            AtomicFile.forceDirectory(dir);
            Version v = new Version(version, number, file, active().version(), state, System.currentTimeMillis(), null, null, null);
            try {
                record(v);
            } catch (RuntimeException e) {
                WeightsIntake.discard(file); // not named by registry.json: nothing to keep
                throw e;
            }
            return new Adopted(v, true);
        } finally {
            WeightsIntake.discard(staged.file()); // gone already when it became the version's file
        }
    }

    /**
     * Removes a version this registry added but that never served (its swap failed): its record and its file, as if
     * it had never been adopted.
     */
    public void forget(String version) {
        Version v = versions.get(version);
        if (v == null || history.contains(version)) throw new IllegalStateException("version " + version + " cannot be forgotten");
        saveOrUndo(() -> versions.remove(version), () -> versions.put(version, v));
        if (v.file() != null && v.file().startsWith(dir)) WeightsIntake.discard(v.file());
    }

    /**
     * The weights file of a kept version that may be served to another node: one this registry wrote in its
     * directory, or the configured weights of the base. Null for any other version (rejected, unknown) and for a
     * record that names a file elsewhere.
     */
    public Path keptFile(String version) {
        Version v = versions.get(version);
        if (v == null || v.file() == null) return null;
        boolean ours = v.file().toAbsolutePath().normalize().getParent().equals(dir.toAbsolutePath().normalize());
        boolean configured = version.equals(base) && v.number() == 0;
        if (!ours && !configured) return null;
        return Files.isRegularFile(v.file(), java.nio.file.LinkOption.NOFOLLOW_LINKS) ? v.file() : null;
    }

    /**
     * {@code value} when it is a version id, else an IllegalArgumentException naming {@code what}: {@code sha256:}
     * and 12 lowercase hex digits ({@link #HASH_VERSION}), with {@code -r<run>} when a fine-tune produced weights seen
     * before; or a name ({@link Names}, up to {@link Names#DERIVED_MAX}), as a configured {@code version} or
     * {@code random-seed-<n>} for generated weights. A file name is only made from the hash part, after this check.
     */
    public static String requireVersion(String what, String value) {
        if (value != null && (HASH_VERSION.matcher(value).matches() || Names.valid(value, Names.DERIVED_MAX))) return value;
        throw new Names.InvalidName(what + ": expected sha256:<12 hex digits> (with -r<run> for a repeated fine-tune) or "
                + Names.expectation(Names.DERIVED_MAX).replace("expected ", "") + ", found " + Names.quoted(value));
    }

    /** Adds or replaces a version's record, saved (or, when the save fails, as it was). */
    private void record(Version v) {
        Version before = versions.get(v.version());
        saveOrUndo(() -> versions.put(v.version(), v), () -> {
            if (before == null) versions.remove(v.version());
            else versions.put(v.version(), before);
        });
    }

    private int nextNumber() { return versions.values().stream().mapToInt(Version::number).max().orElse(0) + 1; }

    /** Copies {@code weights} into the registry as {@code <number>-<hash>.weights}, atomically. */
    private Path copyIn(Path weights, int number, String version) {
        Path file = dir.resolve(number + "-" + version.replace("sha256:", "") + ".weights");
        AtomicFile.copy(weights, file); // a kill mid-copy leaves no partial weights under the version's name
        return file;
    }

    /** {@code version} serves now. */
    public void activated(String version) {
        if (!versions.containsKey(version)) throw new IllegalArgumentException("unknown version " + version);
        saveOrUndo(() -> history.add(version), () -> history.remove(history.size() - 1));
    }

    /** The active version was replaced by {@link #previous()}: it leaves the history for good. */
    public void rolledBack() {
        if (history.size() < 2) throw new IllegalStateException("no previous version");
        String gone = history.get(history.size() - 1);
        Version was = versions.get(gone);
        saveOrUndo(() -> {
            history.remove(history.size() - 1);
            versions.put(gone, was.withState("rolled-back"));
        }, () -> {
            history.add(gone);
            versions.put(gone, was);
        });
    }

    /** Newest first, each with {@code serving} and {@code rollbackTarget} flags. */
    public VersionHistory history() {
        String active = active().version();
        Version prev = previous();
        List<Version> all = new ArrayList<>(versions.values());
        java.util.Collections.reverse(all);
        List<VersionHistory.Listed> listed = new ArrayList<>();
        for (Version v : all) {
            listed.add(new VersionHistory.Listed(v, v.version().equals(active),
                    prev != null && v.version().equals(prev.version()), history.contains(v.version())));
        }
        return new VersionHistory(null, base, active, prev != null ? prev.version() : null, List.copyOf(history),
                List.copyOf(listed));
    }

    /** {@link #history()} as JSON. */
    public JsonObject toJson() { return history().toJson(); }

    /**
     * A change in memory, then saved; when the save fails (a full disk) the change is undone, so memory keeps saying
     * what {@code registry.json} says and a restart finds what the last successful call reported.
     */
    private void saveOrUndo(Runnable change, Runnable undo) {
        change.run();
        try {
            save();
        } catch (RuntimeException e) {
            undo.run();
            throw e;
        }
    }

    private void save() {
        JsonArray vs = new JsonArray();
        for (Version v : versions.values()) vs.add(v.toJson());
        DatasetStore.write(dir.resolve("registry.json"), new JsonObject().put("base", base)
                .put("history", new JsonArray(List.copyOf(history))).put("versions", vs).encodePrettily());
    }
}
