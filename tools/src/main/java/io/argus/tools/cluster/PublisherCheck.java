package io.argus.tools.cluster;

import io.argus.tools.cluster.DetectionTap.Received;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The cluster's one-owner promise, checked on what a client received (after its node's epoch filter):
 *
 * <ul>
 *   <li>per 100 ms sample of arrival time and camera, the nodes that published it; a sample with two publishers is a
 *       hand-over (the old owner's last frames and the new owner's first), and it is a violation only when their
 *       frame (capture) times overlap: two nodes streaming the camera at once;
 *   <li>per camera over the whole run: the epoch never goes back, one epoch comes from one node, and the frames of
 *       consecutive epochs do not interleave in capture time.
 * </ul>
 */
final class PublisherCheck {
    record Result(int messages, int samples, int handoverSamples, int overlappingSamples, int epochRegressions,
                  int epochsFromTwoNodes, int interleavedEpochs, String firstProblem) {
        boolean clean() { return overlappingSamples == 0 && epochRegressions == 0 && epochsFromTwoNodes == 0 && interleavedEpochs == 0; }

        Result plus(Result o) {
            return new Result(messages + o.messages, samples + o.samples, handoverSamples + o.handoverSamples,
                    overlappingSamples + o.overlappingSamples, epochRegressions + o.epochRegressions,
                    epochsFromTwoNodes + o.epochsFromTwoNodes, interleavedEpochs + o.interleavedEpochs,
                    firstProblem != null ? firstProblem : o.firstProblem);
        }

        static final Result NONE = new Result(0, 0, 0, 0, 0, 0, 0, null);
    }

    private PublisherCheck() {}

    static Result check(List<Received> received, long sampleMs) {
        Map<String, List<Received>> byCamera = new TreeMap<>();
        for (Received r : received) byCamera.computeIfAbsent(r.camera(), k -> new ArrayList<>()).add(r);
        int samples = 0, handovers = 0, overlapping = 0, regressions = 0, twoNodes = 0, interleaved = 0;
        String first = null;
        for (var e : byCamera.entrySet()) {
            String camera = e.getKey();
            List<Received> msgs = e.getValue();
            msgs.sort(Comparator.comparingDouble(Received::atMs));
            // 100 ms samples: node -> [first, last] capture time within the sample
            Map<Long, Map<String, double[]>> bySample = new TreeMap<>();
            for (Received r : msgs) {
                double[] span = bySample.computeIfAbsent((long) Math.floor(r.atMs() / sampleMs), k -> new TreeMap<>())
                        .computeIfAbsent(r.node(), k -> new double[]{Double.MAX_VALUE, -Double.MAX_VALUE});
                span[0] = Math.min(span[0], r.captureTime());
                span[1] = Math.max(span[1], r.captureTime());
            }
            for (var s : bySample.entrySet()) {
                samples++;
                if (s.getValue().size() < 2) continue;
                handovers++;
                List<Map.Entry<String, double[]>> spans = new ArrayList<>(s.getValue().entrySet());
                boolean overlap = false;
                for (int i = 0; i < spans.size(); i++) {
                    for (int j = i + 1; j < spans.size(); j++) {
                        double[] a = spans.get(i).getValue();
                        double[] b = spans.get(j).getValue();
                        if (a[0] <= b[1] && b[0] <= a[1]) overlap = true;
                    }
                }
                if (overlap) {
                    overlapping++;
                    if (first == null) first = camera + ": nodes " + s.getValue().keySet() + " both published frames of the same time in the sample at "
                            + s.getKey() * sampleMs + " ms";
                }
            }
            // whole run, per epoch
            long epoch = Long.MIN_VALUE;
            Map<Long, String> nodeOf = new HashMap<>();
            java.util.Set<Long> sharedEpochs = new java.util.HashSet<>();
            Map<Long, double[]> span = new TreeMap<>();
            for (Received r : msgs) {
                if (r.epoch() < epoch) {
                    regressions++;
                    if (first == null) first = camera + ": epoch " + r.epoch() + " (" + r.node() + ") arrived after epoch " + epoch;
                }
                epoch = Math.max(epoch, r.epoch());
                String prev = nodeOf.putIfAbsent(r.epoch(), r.node());
                if (prev != null && !prev.equals(r.node()) && sharedEpochs.add(r.epoch())) {
                    twoNodes++;
                    if (first == null) first = camera + ": epoch " + r.epoch() + " from " + prev + " and " + r.node();
                }
                double[] s = span.computeIfAbsent(r.epoch(), k -> new double[]{Double.MAX_VALUE, -Double.MAX_VALUE});
                s[0] = Math.min(s[0], r.captureTime());
                s[1] = Math.max(s[1], r.captureTime());
            }
            double[] before = null;
            for (var s : span.entrySet()) {
                if (before != null && s.getValue()[0] <= before[1]) {
                    interleaved++;
                    if (first == null) first = camera + ": epoch " + s.getKey() + " starts at capture time " + s.getValue()[0]
                            + ", before the previous epoch's last frame " + before[1];
                }
                before = s.getValue();
            }
        }
        return new Result(received.size(), samples, handovers, overlapping, regressions, twoNodes, interleaved, first);
    }
}
