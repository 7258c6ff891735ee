package io.argus.pipeline.app;

import io.argus.pipeline.base.RequestRefused;
import io.argus.pipeline.camera.CameraOverlay;
import io.argus.pipeline.camera.CameraStatus;
import io.argus.pipeline.camera.Cameras;
import io.argus.pipeline.cluster.ClusterChanges;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.events.EventQueries;
import io.argus.pipeline.events.EventQueries.RulePart;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The cameras as REST changes them, made to last: each change that succeeds is written to the {@link CameraOverlay}
 * before it is answered (a restart finds it), a deleted camera's zones, lines and counts are forgotten with it (a
 * camera added later under its id does not inherit them), and a camera as answered shows the zones and lines that
 * really apply to it, which may be ones drawn over REST rather than those of its definition.
 *
 * <p>On a single node the overlay is this node's file; in a cluster ({@code overlay} null) the camera list lives in
 * the cluster's maps (cluster/CameraCatalog) and each change is written to the cluster's record of run-time changes
 * instead ({@link ClusterChanges}), which every node copies to its own file (docs/cluster.md).
 */
final class DurableCameras implements Cameras {
    private final Vertx vertx;
    private final Cameras inner;
    private final EventQueries events;
    private final CameraOverlay overlay;
    private final Path overlayFile;
    private final ClusterChanges cluster;
    private final Map<String, CameraConfig> inFile;
    private final Function<JsonObject, CameraConfig> read;

    /**
     * @param overlay  null in a cluster
     * @param cluster  the cluster's record of run-time changes; null on a single node
     * @param inFile   the config file's cameras by id
     * @param read     reads a REST body as a camera (the definition the overlay keeps)
     */
    DurableCameras(Vertx vertx, Cameras inner, EventQueries events, CameraOverlay overlay, Path overlayFile, ClusterChanges cluster,
                   Map<String, CameraConfig> inFile, Function<JsonObject, CameraConfig> read) {
        this.vertx = vertx;
        this.inner = inner;
        this.events = events;
        this.overlay = overlay;
        this.overlayFile = overlayFile;
        this.cluster = cluster;
        this.inFile = Map.copyOf(inFile);
        this.read = read;
    }

    @Override
    public Future<List<CameraStatus>> list() { return inner.list(); }

    @Override
    public Future<CameraStatus> get(String id) { return inner.get(id).compose(this::withAppliedRules); }

    /**
     * Added, then kept; the rules of an earlier camera of that id (a file left by a version that kept them) are
     * forgotten, so the definition's zones and lines are the ones that apply, and the answer shows them.
     */
    @Override
    public Future<CameraStatus> add(JsonObject definition) {
        return inner.add(definition).compose(status -> keep(o -> o.added(read.apply(definition), inFile.get(status.id())), k -> k.added(read.apply(definition)))
                        .recover(e -> inner.remove(status.id()).transform(ar -> Future.failedFuture(e)))
                        .compose(v -> events.forget(status.id()))
                        .map(status))
                .compose(this::withAppliedRules);
    }

    @Override
    public Future<Void> remove(String id) {
        return inner.remove(id).compose(v -> keep(o -> o.removed(id, inFile.get(id)), k -> k.removed(id))
                .transform(kept -> events.forget(id).transform(forgotten -> kept.failed() ? Future.failedFuture(kept.cause())
                        : forgotten.failed() ? Future.failedFuture(forgotten.cause()) : Future.<Void>succeededFuture())));
    }

    @Override
    public Future<CameraStatus> pause(String id) {
        return inner.pause(id).compose(status -> keep(o -> o.paused(id, true), k -> k.paused(id, true)).map(status));
    }

    @Override
    public Future<CameraStatus> resume(String id) {
        return inner.resume(id).compose(status -> keep(o -> o.paused(id, false), k -> k.paused(id, false)).map(status));
    }

    /** Pauses the cameras the overlay has paused (at start, once the supervisor runs them). */
    Future<Void> pauseKept(java.util.Set<String> paused) {
        Future<Void> chain = Future.succeededFuture();
        for (String id : paused) chain = chain.compose(v -> inner.pause(id).mapEmpty());
        return chain;
    }

    /**
     * Changes the overlay and writes it (on a worker), or in a cluster the cluster's record; a write that fails is a
     * 500/507 naming the file.
     */
    private Future<Void> keep(java.util.function.Consumer<CameraOverlay> change, Function<ClusterChanges, Future<Void>> inCluster) {
        Future<Void> kept;
        if (cluster != null) kept = inCluster.apply(cluster);
        else if (overlay == null) return Future.succeededFuture();
        else kept = vertx.executeBlocking(() -> {
            overlay.change(change, overlayFile);
            return (Void) null;
        }, false);
        return kept.recover(e -> Future.failedFuture(new RequestRefused(diskFull(e) ? 507 : 500,
                "the change is not kept for a restart: " + e.getMessage(), e)));
    }

    private static boolean diskFull(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains("No space left")) return true;
        }
        return false;
    }

    /** The camera with the zones and lines that apply to it now; as it is when they cannot be told. */
    private Future<CameraStatus> withAppliedRules(CameraStatus status) {
        return Future.all(events.rules(status.id(), RulePart.ZONES), events.rules(status.id(), RulePart.LINES))
                .map(all -> CameraStatus.of(status.json().copy().put("zones", all.resultAt(0)).put("lines", all.resultAt(1))))
                .otherwise(status);
    }
}
