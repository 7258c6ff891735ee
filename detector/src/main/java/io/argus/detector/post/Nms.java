package io.argus.detector.post;

import io.argus.detector.darknet.YoloSpec.NmsKind;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Darknet's per-class NMS (do_nms_sort / diounms_sort): for each class, sort by that class's prob, and let every
 * surviving box zero the prob of later boxes that overlap it by more than the threshold.
 */
public final class Nms {
    private Nms() {}

    public static void apply(List<Candidate> dets, int classes, float thresh, NmsKind kind, float beta) {
        if (thresh <= 0) return;
        List<Candidate> live = new ArrayList<>(dets.size());
        for (Candidate d : dets) if (d.objectness != 0) live.add(d);
        Candidate[] a = live.toArray(new Candidate[0]);
        for (int k = 0; k < classes; k++) {
            final int cls = k;
            java.util.Arrays.sort(a, Comparator.comparingDouble((Candidate d) -> -d.prob[cls]));
            for (int i = 0; i < a.length; i++) {
                if (a[i].prob[k] == 0) continue;
                for (int j = i + 1; j < a.length; j++) {
                    if (a[j].prob[k] == 0) continue;
                    if (overlap(a[i], a[j], kind, beta) > thresh) a[j].prob[k] = 0;
                }
            }
        }
    }

    private static float overlap(Candidate a, Candidate b, NmsKind kind, float beta) {
        return switch (kind) {
            case DEFAULT, CORNERS -> Candidate.iou(a, b);
            case GREEDY -> Candidate.diou(a, b, 0.6f);
            case DIOU -> Candidate.diou(a, b, beta);
        };
    }
}
