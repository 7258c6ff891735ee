package io.argus.pipeline.recording;

import io.argus.pipeline.config.CameraConfig;
import io.argus.recording.PacketSink;
import io.argus.recording.Segment;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;

/** The recordings of this node: where cameras hand their packets, what was recorded, and the storage's state. */
public interface Recordings {
    /**
     * Where {@code camera}'s reader hands its packets: its recorder when its {@code record:} is on (made on first
     * use), else a sink that takes nothing. Called from the camera's thread; never blocks.
     */
    PacketSink sinkFor(CameraConfig camera);

    /** The camera was removed or stopped for good: its recorder finishes its segment and goes. */
    void stopped(String camera);

    /** {@code camera}'s segments overlapping [fromMs, toMs), oldest first. */
    Future<List<Segment>> segments(String camera, long fromMs, long toMs);

    /** The file of segment {@code name} ({@code <camera>/<yyyy-MM-dd>/<ms>.mp4}), checked; a bad name fails. */
    Future<Path> file(String name);

    /** Per camera what its recorder counted, and the storage: bytes, free space, what retention deleted. */
    Future<JsonObject> status();

    /** Nothing recorded here (recording of every camera off). */
    Recordings OFF = new Recordings() {
        @Override public PacketSink sinkFor(CameraConfig camera) { return PacketSink.NONE; }

        @Override public void stopped(String camera) {}

        @Override public Future<List<Segment>> segments(String camera, long fromMs, long toMs) { return Future.succeededFuture(List.of()); }

        @Override public Future<Path> file(String name) {
            return Future.failedFuture(new IllegalArgumentException("nothing is recorded on this node"));
        }

        @Override public Future<JsonObject> status() { return Future.succeededFuture(new JsonObject().put("recording", false)); }
    };
}
