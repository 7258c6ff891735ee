#!/usr/bin/env python3
"""Summary of a scripts/gpu/run-train.sh job: `argus bench train` against the PyTorch peer (same network, batch and
stand-in loss), mixed precision against FP32 (speed, memory), and the loss curves of real training.

  python3 scripts/gpu/train_summary.py train-bench.log train-torch.log train-curves.log curves.csv
"""
import csv
import os
import re
import sys

LINE = re.compile(r"^(argus-train|torch-train|argus-curve) (.*)$")


def fields(text):
    out = {}
    for part in text.split():
        if "=" in part:
            k, v = part.split("=", 1)
            out[k] = v
    return out


ROUND = re.compile(r"^### round ([0-9]+)$")


def median(xs):
    xs = sorted(x for x in xs if x == x)
    if not xs:
        return float("nan")
    return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2


def main(paths):
    ours_by, torch_by, curves = {}, {}, {}   # per round (run-train.sh's ROUNDS: "### round N" lines), then by mode
    rows = []
    for path in paths:
        if not os.path.exists(path):
            continue
        if path.endswith(".csv"):
            with open(path) as f:
                rows = list(csv.DictReader(f))
            continue
        round_ = 1
        for line in open(path, errors="replace"):
            r = ROUND.match(line.strip())
            if r:
                round_ = int(r.group(1))
                continue
            m = LINE.match(line.strip())
            if not m:
                continue
            f = fields(m.group(2))
            if m.group(1) == "argus-train":
                ours_by.setdefault(round_, {})[f["precision"]] = f
            elif m.group(1) == "torch-train":
                torch_by.setdefault(round_, {})[f["mode"]] = f
            else:
                curves[f["precision"]] = f
    rounds = sorted(set(ours_by) | set(torch_by)) or [1]
    g = lambda d, k, key: float(d[k][key]) if k in d and key in d[k] else float("nan")
    if len(rounds) > 1:
        round_ratios(rounds, ours_by, torch_by, g)
    # the tables below: the median round's figures per side and mode (memory does not move between rounds)
    ours = median_round(ours_by, "images/s")
    torch = median_round(torch_by, "images/s")
    print("| side | precision | images/s | ms/iter | memory MiB (allocated; torch: max_memory_allocated) |")
    print("|---|---|---|---|---|")
    for k in ("mixed", "fp32", "tf32"):
        if k in ours:
            print(f"| argus | {k} | {g(ours, k, 'images/s'):.0f} | {g(ours, k, 'ms/iter'):.2f} | "
                  f"{g(ours, k, 'allocated_mib'):.0f} (peak {g(ours, k, 'peak_allocated_mib'):.0f}, "
                  f"cudaMemGetInfo drop {g(ours, k, 'used_mib'):.0f}) |")
    for k in ("amp", "fp32", "tf32"):
        if k in torch:
            print(f"| pytorch | {k} | {g(torch, k, 'images/s'):.0f} | {g(torch, k, 'ms/iter'):.2f} | "
                  f"{g(torch, k, 'max_allocated_mib'):.0f} (reserved {g(torch, k, 'max_reserved_mib'):.0f}) |")
    print()
    ratios = [
        ("argus mixed / argus fp32 images/s (goal >= 3)", g(ours, "mixed", "images/s") / g(ours, "fp32", "images/s")),
        ("argus mixed / argus fp32 allocated memory (goal <= 0.5)",
         g(ours, "mixed", "allocated_mib") / g(ours, "fp32", "allocated_mib")),
        ("argus mixed / pytorch amp images/s (goal >= 1.0)", g(ours, "mixed", "images/s") / g(torch, "amp", "images/s")),
        ("argus mixed / argus tf32 images/s", g(ours, "mixed", "images/s") / g(ours, "tf32", "images/s")),
        ("argus mixed / argus tf32 allocated memory",
         g(ours, "mixed", "allocated_mib") / g(ours, "tf32", "allocated_mib")),
        ("argus fp32 / pytorch fp32 images/s", g(ours, "fp32", "images/s") / g(torch, "fp32", "images/s")),
        ("argus tf32 / pytorch tf32 images/s", g(ours, "tf32", "images/s") / g(torch, "tf32", "images/s")),
        ("pytorch amp / pytorch fp32 images/s", g(torch, "amp", "images/s") / g(torch, "fp32", "images/s")),
        ("argus mixed / pytorch amp memory", g(ours, "mixed", "allocated_mib") / g(torch, "amp", "max_allocated_mib")),
    ]
    for name, v in ratios:
        print(f"{name}: {v:.2f}")
    if curves:
        print()
        print("| precision | iterations | images/s | first loss | mean loss, last 100 | skipped | skipped after burn-in |")
        print("|---|---|---|---|---|---|---|")
        for k, f in curves.items():
            print(f"| {k} | {f['iterations']} | {float(f['images/s']):.0f} | {f['first_loss']} | {f['last100_loss']} | "
                  f"{f['skipped']} | {f['skipped_after_burn_in']} of {f['after_burn_in']} |")
    if rows:
        curve_table(rows)
    return 0


def median_round(by_round, key):
    """Per mode, the round whose `key` is the median (the lower middle of an even count)."""
    out = {}
    modes = {k for r in by_round.values() for k in r}
    for k in modes:
        runs = sorted((float(r[k][key]), r[k]) for r in by_round.values() if k in r and key in r[k])
        if runs:
            out[k] = runs[(len(runs) - 1) // 2][1]
    return out


def round_ratios(rounds, ours_by, torch_by, g):
    """Each round's ours / PyTorch's images/s per precision, and their median and spread."""
    print("| round | " + " | ".join(f"argus {a} / pytorch {b}" for a, b in PAIRS) + " |")
    print("|---" * (len(PAIRS) + 1) + "|")
    per = {pair: [] for pair in PAIRS}
    for r in rounds:
        cells = []
        for a, b in PAIRS:
            v = g(ours_by.get(r, {}), a, "images/s") / g(torch_by.get(r, {}), b, "images/s")
            per[(a, b)].append(v)
            cells.append(f"{v:.2f}")
        print(f"| {r} | " + " | ".join(cells) + " |")
    for a, b in PAIRS:
        vs = [v for v in per[(a, b)] if v == v]
        if vs:
            print(f"argus {a} / pytorch {b} images/s over {len(vs)} rounds: median {median(vs):.2f} "
                  f"({min(vs):.2f}-{max(vs):.2f})")
    print()


PAIRS = [("mixed", "amp"), ("fp32", "fp32"), ("tf32", "tf32")]


def curve_table(rows):
    """Window means of every run's loss, then how far precisions are apart against how far two batch orders of
    the same precision are apart (run-to-run noise), as the mean |ln ratio| of window means after the first window."""
    import math
    by = {}
    for r in rows:
        by.setdefault(r["precision"], {})[int(r["iteration"])] = float(r["loss"])
    names = list(by)
    for k in names:
        bad = [i for i in sorted(by[k]) if by[k][i] != by[k][i]]
        if bad:
            print(f"\n{k} loss is NaN from iteration {bad[0]}")
    n = min(max(v) for v in by.values())
    step = max(1, n // 10)
    windows = [(s, min(n, s + step - 1)) for s in range(1, n + 1, step)]
    mean = {k: [sum(by[k][i] for i in range(s, e + 1)) / (e - s + 1) for s, e in windows] for k in names}
    print()
    print("| iterations | " + " | ".join(f"mean loss {k}" for k in names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for w, (s, e) in enumerate(windows):
        print(f"| {s}-{e} | " + " | ".join(f"{mean[k][w]:.3f}" for k in names) + " |")

    def distance(a, b):
        d = [abs(math.log(x / y)) for x, y in zip(mean[a][1:], mean[b][1:]) if x > 0 and y > 0]
        return sum(d) / len(d) if d else float("nan")

    base = lambda k: k.split("@")[0]
    seed = lambda k: k.split("@")[1] if "@" in k else "1"
    same_precision = [(a, b) for i, a in enumerate(names) for b in names[i + 1:] if base(a) == base(b)]
    same_order = [(a, b) for i, a in enumerate(names) for b in names[i + 1:] if base(a) != base(b) and seed(a) == seed(b)]
    if same_order:
        print()
        for a, b in same_precision:
            print(f"run-to-run noise, {a} vs {b} (other batch order): mean |ln ratio| of window means {distance(a, b):.3f}")
        for a, b in same_order:
            print(f"precision difference, {a} vs {b} (same batch order): mean |ln ratio| of window means {distance(a, b):.3f}")
        if same_precision:
            noise = sum(distance(a, b) for a, b in same_precision) / len(same_precision)
            diff = sum(distance(a, b) for a, b in same_order) / len(same_order)
            print(f"precision difference / run-to-run noise: {diff / noise:.2f} (<= 1: the precisions agree within noise)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
