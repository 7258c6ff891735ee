package io.argus.tools.tracking;

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
}
