#!/usr/bin/env python3
"""Which track ids cover each ground-truth object, frame by frame (docs/tracking.md, "Where IDF1 is lost").

scripts/track-ids.py DIR   (DIR/gt.txt, DIR/res.txt from scripts/track-seeds with JAVA_OPTS=-Dwrite=true)

Per frame, ground-truth boxes and result boxes are paired at most IoU cost (IoU >= 0.5), as CLEAR MOT does without its
continuity rule; each object prints runs "track id: first-last frame" ('-': no result box on it; '~' before a run:
less than half visible, not scored). Then, per track id, the objects it covered.
"""
import sys
from collections import defaultdict
import numpy as np
from scipy.optimize import linear_sum_assignment


def read(path):
    rows = defaultdict(list)
    for line in open(path):
        p = line.strip().split(',')
        if len(p) < 6:
            continue
        f, i = int(float(p[0])), int(float(p[1]))
        box = tuple(float(x) for x in p[2:6])
        vis = float(p[8]) if len(p) > 8 else 1.0
        rows[f].append((i, box, vis))
    return rows


def iou(a, b):
    ax2, ay2, bx2, by2 = a[0] + a[2], a[1] + a[3], b[0] + b[2], b[1] + b[3]
    w = min(ax2, bx2) - max(a[0], b[0])
    h = min(ay2, by2) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def main(d):
    gt, res = read(d + '/gt.txt'), read(d + '/res.txt')
    cover = defaultdict(list)  # gt id -> [(frame, track id or None, scored)]
    by_track = defaultdict(lambda: defaultdict(int))
    for f in sorted(gt):
        g, r = gt[f], res.get(f, [])
        m = np.zeros((len(g), len(r)))
        for a, (_, gb, _) in enumerate(g):
            for b, (_, rb, _) in enumerate(r):
                m[a, b] = iou(gb, rb)
        pair = {}
        if len(g) and len(r):
            ra, cb = linear_sum_assignment(-m)
            for a, b in zip(ra, cb):
                if m[a, b] >= 0.5:
                    pair[a] = r[b][0]
        for a, (gid, _, vis) in enumerate(g):
            t = pair.get(a)
            cover[gid].append((f, t, vis >= 0.5))
            if t is not None and vis >= 0.5:
                by_track[t][gid] += 1
    for gid in sorted(cover):
        runs = []
        for f, t, scored in cover[gid]:
            key = (t, scored)
            if runs and runs[-1][0] == key and runs[-1][2] == f - 1:
                runs[-1][2] = f
            else:
                runs.append([key, f, f])
        text = ' '.join(('' if s else '~') + ('-' if t is None else str(t)) + ':%d-%d' % (a, b)
                        for (t, s), a, b in runs)
        print('gt %d: %s' % (gid, text))
    for t in sorted(by_track):
        print('track %d: %s' % (t, ', '.join('gt %d x%d' % kv for kv in sorted(by_track[t].items()))))


if __name__ == '__main__':
    main(sys.argv[1])
