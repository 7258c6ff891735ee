package io.argus.recording;

import java.nio.file.Path;

/**
 * A recorder in a process of its own, for {@link RecorderKillTest}: records {@code args[0]} (a video file, paced as a
 * live camera sends it) into the storage directory {@code args[1]} in 2 s segments, and prints {@code handed N} after
 * each packet it hands to the recorder, until it is killed.
 */
public final class RecorderProcess {
    private RecorderProcess() {}

    public static void main(String[] args) throws Exception {
        SegmentIndex index = SegmentIndex.open(new StorageLayout(Path.of(args[1])));
        CameraRecorder recorder = new CameraRecorder("cam", index, 2_000, 64 << 20);
        long start = System.currentTimeMillis();
        long[] handed = {0};
        Media.read(Path.of(args[0]), start, recorder::streamStarted, (p, wall) -> {
            io.argus.testkit.Pace.holdMillis(Math.max(0, wall - System.currentTimeMillis()), "a live camera's pace");
            recorder.packet(p, wall);
            System.out.println("handed " + ++handed[0]);
            System.out.flush();
        });
        System.out.println("end");
        io.argus.testkit.Pace.holdMillis(Long.MAX_VALUE, "alive until killed");
    }
}
