package io.argus.pipeline.cluster;

import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.Addresses.RulesChanged;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.config.ConfigException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The cluster's record of run-time camera changes, made to outlive a stop of every node: a shared map from camera id to
 * what REST made of that camera ({@link CameraChange}: added with its definition, removed, paused, zones and lines
 * drawn), written after each change that succeeded, and mirrored by every node to its own file ({@link ChangeMirror})
 * whenever it changes (the node that made the change before it answers, the others when told over the event bus).
 *
 * <p>At start, before the config's cameras are seeded, a node offers the records of its file to the map: each one that
 * is newer than the map's record of its camera (or the map has none: the whole cluster stopped) replaces it and is
 * applied to the live maps (the camera list, pauses, zones and lines), so the nodes' files merge, camera by camera,
 * into the newest record of each, whichever node starts first. A record holds only while the config file's camera of
 * its id is what it was when the change was made (the digest, as on a single node): otherwise the file is the newer
 * word and the record is dropped. The config cameras are then seeded less those removed or defined anew at run time,
 * so a camera removed on one node is not seeded back by another.
 */
public final class ClusterChanges {
    private static final System.Logger LOG = System.getLogger("argus.cluster");
    static final String MAP = "argus.camera-changes";
    /** Records of removed cameras the config file does not have are kept up to this many (the newest): see prune. */
    static final int MAX_REMOVED = 1000;
    private final int maxRemoved;

    private final Vertx vertx;
    private final String node;
    private final Path file;
    private final Map<String, CameraConfig> inFile = new LinkedHashMap<>();
    private final Function<JsonObject, CameraConfig> read;
    private final AtomicLong mirrorsAsked = new AtomicLong();
    private long mirrorWritten;   // guarded by this
    private SealedMap<JsonObject> record;
    private SealedMap<JsonObject> rules;
    private CameraCatalog catalog;
    private CameraStates states;

    /**
     * @param configured the config file's cameras
     * @param read       reads a recorded definition as a camera (CameraConfig.fromJson with the config's models)
     */
    public ClusterChanges(Vertx vertx, String node, Path cacheDir, List<CameraConfig> configured, Function<JsonObject, CameraConfig> read) {
        this(vertx, node, cacheDir, configured, read, MAX_REMOVED);
    }

    /** With a smaller limit on kept records of removed cameras (tests). */
    ClusterChanges(Vertx vertx, String node, Path cacheDir, List<CameraConfig> configured, Function<JsonObject, CameraConfig> read,
                   int maxRemoved) {
        this.maxRemoved = maxRemoved;
        this.vertx = vertx;
        this.node = node;
        this.file = ChangeMirror.file(cacheDir);
        for (CameraConfig c : configured) inFile.put(c.id(), c);
        this.read = read;
    }

    /**
     * Merges this node's file into the cluster's record and applies what it brought (see the class comment); completes
     * with the config cameras not to seed (removed or defined anew at run time). A file that cannot be read fails the
     * start naming it.
     *
     * @param pause pauses ({@code true}) or resumes a camera on the node that runs it, failing when none runs it
     */
    Future<Set<String>> restore(CameraCatalog catalog, CameraStates states, BiFunction<String, Boolean, Future<?>> pause) {
        this.catalog = catalog;
        this.states = states;
        ClusterMaps maps = ClusterMaps.of(vertx);
        return Future.all(maps.objects(MAP), maps.objects(ClusterValues.SCENE_RULES_MAP))
                .compose(m -> {
                    record = m.resultAt(0);
                    rules = m.resultAt(1);
                    // told from now on: a change made on another node while this one merges is copied too
                    vertx.eventBus().<JsonObject>consumer(Addresses.CAMERA_CHANGES, msg -> {
                        if (msg.body() != null && node.equals(msg.body().getValue("node"))) return;   // copied before it told
                        mirror().onFailure(e -> LOG.log(Level.WARNING, "the cluster's camera changes could not be copied to {0}: {1}",
                                file, e.getMessage()));
                    });
                    return vertx.executeBlocking(() -> ChangeMirror.read(file), false);
                })
                .compose(mine -> {
                    Future<Boolean> chain = Future.succeededFuture(false);
                    for (CameraChange c : mine.values()) {
                        if (!c.holdsBeside(inFile.get(c.camera()))) {
                            LOG.log(Level.WARNING, "the run-time change of camera {0} in {1} is dropped: the config file''s camera"
                                    + " of that id changed since, and the file is the newer word", c.camera(), file);
                            continue;
                        }
                        chain = chain.compose(anyPut -> offer(c, pause, 3).map(put -> anyPut || put));
                    }
                    return chain;
                })
                .compose(anyPut -> record.entries().compose(all -> mirror().map(v -> {
                    // the others copy what this node's file brought to the record
                    if (anyPut) tell();
                    return CameraChange.unseeded(List.copyOf(inFile.values()), parse(all));
                })));
    }

    /**
     * Puts {@code mine} in the record unless the record has a newer one of its camera; applies it when put. Completes
     * with whether it was put.
     */
    private Future<Boolean> offer(CameraChange mine, BiFunction<String, Boolean, Future<?>> pause, int attempts) {
        String id = mine.camera();
        return record.read(id).compose(found -> {
            if (found != null && found.valid() && !mine.newerThan(CameraChange.fromJson(id, found.value()))) return Future.succeededFuture(false);
            Future<Boolean> put = found == null ? record.putIfAbsentStored(id, mine.toJson()).map(s -> s == null)
                    : record.replace(id, found, mine.toJson());
            return put.compose(ok -> {
                if (ok) return apply(mine, pause).map(true);
                // another node put its record meanwhile: look again (it may be older)
                return attempts > 1 ? offer(mine, pause, attempts - 1) : Future.succeededFuture(false);
            });
        });
    }

    /** Makes the live maps say what {@code c} says of its camera. */
    private Future<Void> apply(CameraChange c, BiFunction<String, Boolean, Future<?>> pause) {
        String id = c.camera();
        if (c.removed()) {
            return catalog.remove(id).compose(v -> states.remove(id)).compose(v -> rules.remove(id)).mapEmpty();
        }
        CameraConfig defined = null;
        if (c.definition() != null) {
            try {
                defined = read.apply(c.definition());
            } catch (ConfigException | IllegalArgumentException | ClassCastException e) {
                LOG.log(Level.WARNING, "camera {0} added at run time is not run: {1} (fix the config, or delete the camera)", id, e.getMessage());
                return Future.succeededFuture();
            }
        }
        CameraConfig listed = defined;
        // zones, lines and the pause first, the camera listed last: a node that claims it at once finds them
        return (c.rules() != null ? rules.put(id, c.rules()) : rules.remove(id).<Void>mapEmpty())
                .onSuccess(v -> vertx.eventBus().publish(Addresses.SCENE_RULES_CHANGED, new RulesChanged(id).toJson()))
                // a camera already running (another node seeded it first) is paused or resumed where it runs
                .compose(v -> states.paused(id))
                .compose(now -> now == c.paused() ? Future.<Void>succeededFuture()
                        : pause.apply(id, c.paused()).<Void>mapEmpty().recover(e -> states.setPaused(id, c.paused())))
                .compose(v -> listed != null ? catalog.define(listed) : Future.<Void>succeededFuture());
    }

    // ---- changes made over REST -----------------------------------------------------------------------------------

    /** A camera added at run time (after the camera list took it). */
    public Future<Void> added(CameraConfig c) {
        return change(c.id(), previous -> Future.succeededFuture(CameraChange.added(c, inFile.get(c.id()), previous, now())));
    }

    /** A camera removed at run time (after the camera list let it go). */
    public Future<Void> removed(String id) {
        return change(id, previous -> Future.succeededFuture(CameraChange.removed(id, inFile.get(id), previous, now())))
                .compose(v -> inFile.containsKey(id) ? Future.succeededFuture() : prune());
    }

    /** A camera paused ({@code true}) or resumed at run time. */
    public Future<Void> paused(String id, boolean on) {
        return change(id, previous -> current(id, previous).map(c -> c.withPaused(on, now())));
    }

    /** A camera's zones or lines changed: the record takes what the cluster's map of them holds now. */
    public Future<Void> rulesChanged(String id) {
        return change(id, previous -> current(id, previous).compose(c -> rules.get(id).map(drawn -> c.withRules(drawn, now()))));
    }

    /**
     * What the record says of a camera that exists: its record, or the config file's camera, or (a camera added before
     * records were kept) the definition listed.
     */
    private Future<CameraChange> current(String id, CameraChange previous) {
        if (previous != null && !previous.removed()) return Future.succeededFuture(previous);
        long seq = previous == null ? 0 : previous.seq();
        CameraConfig c = inFile.get(id);
        if (c != null) return Future.succeededFuture(withSeq(CameraChange.ofFile(c), seq));
        return catalog.get(id).compose(entry -> {
            if (entry == null) return Future.failedFuture(new IllegalStateException("camera \"" + id + "\" is not in the cluster's list"));
            return Future.succeededFuture(withSeq(CameraChange.added(read.apply(entry.getJsonObject("definition")), null, null, 0), seq));
        });
    }

    private static CameraChange withSeq(CameraChange c, long seq) {
        return new CameraChange(c.camera(), seq, c.config(), c.definition(), c.removed(), c.paused(), c.rules());
    }

    /**
     * Replaces the camera's record by what {@code next} makes of it (by compare-and-set: a change made meanwhile on
     * another node is read again), mirrors the record to this node's file, then tells the other nodes.
     */
    private Future<Void> change(String id, Function<CameraChange, Future<CameraChange>> next) { return change(id, next, 5); }

    private Future<Void> change(String id, Function<CameraChange, Future<CameraChange>> next, int attempts) {
        return record.read(id).compose(found -> {
            CameraChange previous = found != null && found.valid() ? CameraChange.fromJson(id, found.value()) : null;
            return next.apply(previous).compose(changed -> {
                Future<Boolean> put = found == null ? record.putIfAbsentStored(id, changed.toJson()).map(s -> s == null)
                        : record.replace(id, found, changed.toJson());
                return put.compose(ok -> {
                    if (ok) return Future.<Void>succeededFuture();
                    if (attempts > 1) return change(id, next, attempts - 1);
                    return Future.failedFuture(new IllegalStateException("camera \"" + id + "\": the cluster's record of it keeps changing; not written"));
                });
            });
        }).compose(v -> mirrorAndTell());
    }

    /**
     * Keeps the records of removed cameras the config file does not have to the newest {@link #MAX_REMOVED}: they are
     * kept so that an older file does not bring such a camera back, but cameras added and removed over and over must not
     * grow the record without end.
     */
    private Future<Void> prune() {
        return record.entries().compose(all -> {
            List<CameraChange> removed = new ArrayList<>();
            parse(all).values().forEach(c -> {
                if (c.removed() && c.config() == null) removed.add(c);
            });
            if (removed.size() <= maxRemoved) return Future.succeededFuture();
            removed.sort(Comparator.comparingLong(CameraChange::seq));
            List<Future<Boolean>> gone = new ArrayList<>();
            for (CameraChange c : removed.subList(0, removed.size() - maxRemoved)) gone.add(record.removeIfPresent(c.camera(), all.get(c.camera())));
            // the files (this node's and, told, the others') then forget them too
            return Future.join(new ArrayList<Future<?>>(gone)).compose(v -> mirrorAndTell());
        });
    }

    /** Writes the record to this node's file, then tells the other nodes to copy it to theirs. */
    private Future<Void> mirrorAndTell() {
        return mirror().onSuccess(v -> tell());
    }

    /** Tells the other nodes that the record changed: each copies it to its own file. */
    private void tell() {
        vertx.eventBus().publish(Addresses.CAMERA_CHANGES, new JsonObject().put("node", node));
    }

    /**
     * Writes the record as the cluster holds it now to this node's file. Of several copies under way, a copy read
     * earlier never replaces one read later.
     */
    private Future<Void> mirror() {
        long asked = mirrorsAsked.incrementAndGet();
        return record.entries().compose(all -> vertx.executeBlocking(() -> {
            Map<String, CameraChange> copy = parse(all);
            synchronized (this) {
                if (asked > mirrorWritten) {
                    ChangeMirror.write(file, copy);
                    mirrorWritten = asked;
                }
            }
            return null;
        }, false));
    }

    /** The map's values (validated when read: an invalid one was counted, logged and left out). */
    private static Map<String, CameraChange> parse(Map<String, JsonObject> all) {
        Map<String, CameraChange> out = new TreeMap<>();
        all.forEach((id, j) -> out.put(id, CameraChange.fromJson(id, j)));
        return out;
    }

    private static long now() { return System.currentTimeMillis(); }
}
