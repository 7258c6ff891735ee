package io.argus.pipeline.cluster;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A camera supervisor for the unit tests of camera ownership: records what it was asked ("add cam1", "remove cam1"),
 * and answers at once ({@link #answerAtOnce}) or when the test says ({@link #answer}); an add of a camera in
 * {@link #cannotRun} fails.
 */
final class FakeControl implements CameraControl {
    final List<String> asked = new ArrayList<>();
    final Set<String> cannotRun = new HashSet<>();
    boolean answerAtOnce = true;
    private final Map<String, Promise<Void>> pending = new LinkedHashMap<>();

    @Override
    public Future<Void> add(JsonObject definition) { return ask("add " + definition.getString("id"), definition.getString("id")); }

    @Override
    public Future<Void> remove(String camera) { return ask("remove " + camera, null); }

    @Override
    public Future<Void> restorePause(String camera) { return Future.succeededFuture(); }

    private Future<Void> ask(String request, String adding) {
        asked.add(request);
        Promise<Void> p = Promise.promise();
        if (answerAtOnce) complete(p, adding);
        else pending.put(request, p);
        return p.future();
    }

    /** Answers the pending {@code request} ("add cam1", "remove cam1"). */
    void answer(String request) {
        Promise<Void> p = pending.remove(request);
        if (p == null) throw new AssertionError("no pending request " + request + "; asked: " + asked);
        complete(p, request.startsWith("add ") ? request.substring(4) : null);
    }

    private void complete(Promise<Void> p, String adding) {
        if (adding != null && cannotRun.contains(adding)) p.fail("camera " + adding + ": its file is missing on this node");
        else p.complete();
    }
}
