package io.argus.pipeline.tracking.eval;

import java.util.ArrayList;
import java.util.List;

/** Small ground truths and results written out by hand: boxes of 10x10 unless said otherwise. */
final class Rows {
    private final List<MotRow> rows = new ArrayList<>();

    /** Object {@code id} in {@code frame} at (left, top), 10x10, class 0. */
    Rows box(int frame, long id, double left, double top) {
        return box(frame, id, left, top, 10, 10);
    }

    Rows box(int frame, long id, double left, double top, double width, double height) {
        return box(frame, id, left, top, width, height, 0, 1);
    }

    Rows box(int frame, long id, double left, double top, double width, double height, int classId, double visibility) {
        rows.add(new MotRow(frame, id, left, top, width, height, 1, classId, visibility));
        return this;
    }

    /** The same box in each of frames {@code from..to}. */
    Rows boxes(int from, int to, long id, double left, double top) {
        for (int f = from; f <= to; f++) box(f, id, left, top);
        return this;
    }

    List<MotRow> list() { return List.copyOf(rows); }

    /**
     * The hand-worked scene ClearMotTest and Idf1Test both score: objects A (id 1, at x 0) and B (id 2, at x 100) in
     * frames 1-5; A followed by track 11 in frames 1-3 and 5 (shifted down 2 px, 10x8); B by track 12 in frames 1-2
     * and track 13 in 3-5; a false positive, track 14, in frame 5.
     */
    static MotSequence twoObjectsFiveFrames() {
        Rows gt = new Rows().boxes(1, 5, 1, 0, 0).boxes(1, 5, 2, 100, 0);
        Rows res = new Rows();
        for (int f : new int[] {1, 2, 3, 5}) res.box(f, 11, 0, 2, 10, 8);
        res.boxes(1, 2, 12, 100, 0).boxes(3, 5, 13, 100, 0).box(5, 14, 300, 300);
        return MotSequence.of(gt.list(), res.list());
    }
}
