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


def main(paths):
    ours, torch, curves = {}, {}, {}
    rows = []
    for path in paths:
        if not os.path.exists(path):
            continue
        if path.endswith(".csv"):
            with open(path) as f:
                rows = list(csv.DictReader(f))
            continue
        for line in open(path, errors="replace"):
            m = LINE.match(line.strip())
            if not m:
                continue
            f = fields(m.group(2))
            if m.group(1) == "argus-train":
                ours[f["precision"]] = f
            elif m.group(1) == "torch-train":
                torch[f["mode"]] = f
            else:
                curves[f["precision"]] = f
    g = lambda d, k, key: float(d[k][key]) if k in d and key in d[k] else float("nan")
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
        by = {}
        for r in rows:
            by.setdefault(r["precision"], {})[int(r["iteration"])] = float(r["loss"])
        other = next((k for k in ("tf32", "fp32") if k in by), None)
        if "mixed" in by and other:
            a, b = by["mixed"], by[other]
            n = min(max(a), max(b))
            diverged = [i for i in sorted(b) if b[i] != b[i]]
            if diverged:
                print(f"\n{other} loss is NaN from iteration {diverged[0]}")
            diverged = [i for i in sorted(a) if a[i] != a[i]]
            if diverged:
                print(f"\nmixed loss is NaN from iteration {diverged[0]}")
            print()
            print(f"| iterations | mean loss mixed | mean loss {other} | mixed/{other} |")
            print("|---|---|---|---|")
            step = max(1, n // 10)
            for s in range(1, n + 1, step):
                e = min(n, s + step - 1)
                ma = sum(a[i] for i in range(s, e + 1)) / (e - s + 1)
                mb = sum(b[i] for i in range(s, e + 1)) / (e - s + 1)
                print(f"| {s}-{e} | {ma:.3f} | {mb:.3f} | {ma / mb if mb == mb and mb else float('nan'):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
