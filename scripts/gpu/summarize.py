#!/usr/bin/env python3
"""Reads the logs of run-gpu.sh or run-onnx.sh (argus bench --backend cuda and torch_peer.py or onnx_peers.py, with
'### model NAME' markers) and prints one markdown table: images/s per model, batch and mode, ours against PyTorch's
(and ONNX Runtime's, when the logs have it)."""
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
        pinned = " pinned" if "pinned frames" in what else ""
        if "device memory" in what:
            return "ours detect device" + pinned
        if "unified memory" in what:
            return "ours detect unified" + pinned
        return "ours " + what
    if name.startswith("onnxrt"):
        return "onnxrt"
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
    peers = ["torch eager", "torch graph", "torch compile"]
    if any("onnxrt" in r for r in rows.values()):
        peers.append("onnxrt")
    cols = ["ours graph", "ours no-graph", "ours detect device", "ours detect unified"]
    cols += [c for c in ("ours detect device pinned", "ours detect unified pinned") if any(c in r for r in rows.values())]
    cols += peers
    header = ["model", "batch"] + [c + " img/s" for c in cols] + ["ours ms/batch", "ours TFLOP/s"] + [
        "ours/" + c.split()[-1] for c in peers]
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
            for c in peers:
                cells.append(f"{ours[0] / r[c][0]:.2f}" if ours and c in r else "")
            print("| " + " | ".join(cells) + " |")

if __name__ == "__main__":
    main(sys.argv[1:])
