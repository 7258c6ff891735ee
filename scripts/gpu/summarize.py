#!/usr/bin/env python3
"""Reads the logs of run-gpu.sh (argus bench --backend cuda and torch_peer.py, with '### model NAME' markers) and
prints one markdown table: images/s per model, batch and mode, ours against PyTorch's."""
import os
import re
import sys
from collections import defaultdict

LINE = re.compile(r"^(\S+)\s+batch\s+(\d+):\s+([\d.]+) ms/batch\s+([\d.]+) ms/image\s+([\d.]+) images/s\s+([\d.]+) "
                  r"TFLOP/s\s+\((.*), (\d+) runs\)")


def key(name, what):
    if name == "argus-cuda":
        if what.startswith("forward, CUDA graph"):
            return "ours graph"
        if what.startswith("forward, no graph"):
            return "ours no-graph"
        if "device memory" in what:
            return "ours detect device"
        if "unified memory" in what:
            return "ours detect unified"
        return "ours " + what
    return {"torch-eager": "torch eager", "torch-graph": "torch graph", "torch-compile": "torch compile"}.get(name, name)


def main(paths):
    rows = defaultdict(dict)   # (model, batch) -> column -> (images/s, ms, tflops)
    order = []
    for path in paths:
        if not os.path.exists(path):
            continue
        model = "?"
        for line in open(path, errors="replace"):
            if line.startswith("### model "):
                model = line.split()[2]
                continue
            m = LINE.match(line.strip())
            if not m:
                continue
            name, batch, ms, _, ips, tflops, what, _ = m.groups()
            k = (model, int(batch))
            if k not in rows:
                order.append(k)
            rows[k][key(name, what)] = (float(ips), float(ms), float(tflops))
    cols = ["ours graph", "ours no-graph", "ours detect device", "ours detect unified", "torch eager", "torch graph",
            "torch compile"]
    header = ["model", "batch"] + [c + " img/s" for c in cols] + ["ours ms/batch", "ours TFLOP/s", "ours/eager",
                                                                     "ours/graph", "ours/compile"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    models = []
    for m, _ in order:
        if m not in models:
            models.append(m)
    for model in models:
        for batch in sorted(b for m, b in order if m == model):
            r = rows[(model, batch)]
            ours = r.get("ours graph")
            cells = [model, str(batch)] + [f"{r[c][0]:.0f}" if c in r else "" for c in cols]
            cells += [f"{ours[1]:.3f}" if ours else "", f"{ours[2]:.0f}" if ours else ""]
            for c in ("torch eager", "torch graph", "torch compile"):
                cells.append(f"{ours[0] / r[c][0]:.2f}" if ours and c in r else "")
            print("| " + " | ".join(cells) + " |")

if __name__ == "__main__":
    main(sys.argv[1:])
