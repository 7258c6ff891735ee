#!/usr/bin/env python3
"""The side-by-side table of scripts/training/darknet-vs-argus.sh: python3 darknet-vs-argus-summary.py OUT [--blocks].

Per tool, over its runs, median (min-max) of: its own training loss averaged per 10 iterations; at the checkpoints,
the common probe loss (Darknet's loss of the weights on the validation images at 416, learning rate 0) and mAP@0.5
(`argus eval`); the input sizes trained at; the run's wall time. --blocks prints every 10-iteration block (default:
iterations 1-10, then every 50th).
"""
import glob
import os
import re
import statistics
import sys

DARKNET_LINE = re.compile(r"^(\d+): ([-\d.eE+naif]+), ([-\d.eE+naif]+) avg, ([\d.eE+-]+) rate, ([\d.]+) seconds")
ARGUS_LINE = re.compile(r"^(\d+)/(\d+) \[[^\]]*\] loss ([-\d.eE+NaInfity]+) ")
ARGUS_SIZE = re.compile(r"^multi-scale: iteration (\d+) input (\d+)x(\d+)")


def darknet_log(path):
    losses, sizes, size = {}, {}, None
    lines = open(path, errors="replace").read().splitlines()
    for k, line in enumerate(lines):
        if line.strip() == "Resizing" and k + 1 < len(lines) and lines[k + 1].strip().isdigit():
            size = int(lines[k + 1])
        m = DARKNET_LINE.match(line)
        if m:
            it = int(m.group(1))
            losses[it] = float(m.group(2))
            sizes[it] = size
    return losses, sizes


def argus_log(path):
    text = open(path, errors="replace").read().replace("\x1b[K", "")
    losses, sizes, size, start = {}, {}, None, {}
    for line in re.split(r"[\r\n]+", text):
        s = ARGUS_SIZE.match(line)
        if s:
            start[int(s.group(1))] = int(s.group(2))
            continue
        m = ARGUS_LINE.match(line)
        if m:
            it = int(m.group(1))
            losses[it] = float(m.group(3))
    for it in sorted(losses):
        size = start.get(it, size)
        sizes[it] = size
    return losses, sizes


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def fmt(values, digits=3):
    values = [v for v in values if v == v]
    if not values:
        return "-"
    med = statistics.median(values)
    f = f"{{:.{digits}f}}"
    if len(values) == 1:
        return f.format(med)
    return f"{f.format(med)} ({f.format(min(values))}-{f.format(max(values))})"


def read_value(path, pattern):
    if not os.path.exists(path):
        return float("nan")
    m = re.search(pattern, open(path, errors="replace").read(), re.M)
    return float(m.group(1)) if m else float("nan")


def main():
    out = sys.argv[1]
    every_block = "--blocks" in sys.argv
    tools = {"darknet": darknet_log, "argus": argus_log}
    runs = {t: sorted(glob.glob(os.path.join(out, f"{t}-[0-9]*")), key=lambda p: int(p.rsplit("-", 1)[1]))
            for t in tools}
    data = {t: [] for t in tools}
    for t, parse in tools.items():
        for d in runs[t]:
            log = os.path.join(d, "train.log")
            if not os.path.exists(log):
                continue
            losses, sizes = parse(log)
            checkpoints = sorted(int(re.search(r"w(\d+)\.weights$", w).group(1))
                                 for w in glob.glob(os.path.join(d, "w*.weights")))
            data[t].append({
                "dir": d, "losses": losses, "sizes": sizes,
                "wall": read_value(os.path.join(d, "time.txt"), r"^wall_s (\S+)"),
                "map": {n: read_value(os.path.join(d, f"eval-{n}.txt"), r"^mAP@0\.5 = (\S+)") for n in checkpoints},
                "probe": {n: read_value(os.path.join(d, f"probe-{n}.txt"), r"^probe_loss (\S+)") for n in checkpoints},
            })
    if os.path.exists(os.path.join(out, "setup.txt")):
        print(open(os.path.join(out, "setup.txt")).read().rstrip())
    print(f"runs: darknet {len(data['darknet'])}, argus {len(data['argus'])}; median (min-max) over runs")
    initial_map = read_value(os.path.join(out, "initial", "eval-0.txt"), r"^mAP@0\.5 = (\S+)")
    initial_probe = read_value(os.path.join(out, "initial", "probe-0.txt"), r"^probe_loss (\S+)")

    print("\n## Each tool's own training loss, mean per 10 iterations (Darknet: sum of squared deltas per image;"
          " Argus: cross-entropy objectness and classes + box terms per image)")
    print("| iterations | Darknet | Argus |")
    print("|---|---|---|")
    last = max([max(r["losses"]) for t in data for r in data[t] if r["losses"]] or [0])
    for b in range(0, last, 10):
        if not every_block and b not in (0, 10, 20) and (b + 10) % 50 != 0 and b + 10 < last:
            continue
        cells = []
        for t in tools:
            cells.append(fmt([mean([r["losses"][i] for i in range(b + 1, b + 11) if i in r["losses"]])
                              for r in data[t]]))
        print(f"| {b + 1}-{b + 10} | {cells[0]} | {cells[1]} |")

    print("\n## At the checkpoints: common probe loss (Darknet's loss at 416, validation images, rate 0) and mAP@0.5"
          " (argus eval, 416, validation split)")
    print("| iteration | probe loss Darknet | probe loss Argus | mAP@0.5 Darknet | mAP@0.5 Argus |")
    print("|---|---|---|---|---|")
    print(f"| 0 (shared initial weights) | {fmt([initial_probe], 2)} | {fmt([initial_probe], 2)} "
          f"| {fmt([initial_map], 4)} | {fmt([initial_map], 4)} |")
    points = sorted({n for t in data for r in data[t] for n in r["map"]})
    for n in points:
        row = [fmt([r["probe"].get(n, float("nan")) for r in data[t]], 2) for t in tools]
        row += [fmt([r["map"].get(n, float("nan")) for r in data[t]], 4) for t in tools]
        print(f"| {n} | " + " | ".join(row) + " |")

    print("\n## Per run")
    print("| tool | run | wall s | s/iteration | iterations at each input size | mAP@0.5 at the end | probe loss at the end |")
    print("|---|---|---|---|---|---|---|")
    for t in tools:
        for r in data[t]:
            counts = {}
            for s in r["sizes"].values():
                counts[s] = counts.get(s, 0) + 1
            sizes = " ".join(f"{s or 'cfg'}:{c}" for s, c in sorted(counts.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)))
            n = max(r["map"]) if r["map"] else None
            its = len(r["losses"])
            print(f"| {t} | {os.path.basename(r['dir'])} | {r['wall']:.0f} | {r['wall'] / its if its else float('nan'):.2f}"
                  f" | {sizes} | {r['map'].get(n, float('nan')):.4f} | {r['probe'].get(n, float('nan')):.2f} |")


if __name__ == "__main__":
    main()
