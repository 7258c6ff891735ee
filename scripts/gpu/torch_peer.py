#!/usr/bin/env python3
"""The PyTorch peer of `argus bench --backend cuda`: the same network built from the Darknet cfg and the same
.weights file (batch norm folded, as Argus does), FP16, channels_last, cudnn.benchmark, timed with CUDA events
in three modes: eager, one CUDA graph per batch size, and torch.compile(mode="max-autotune-no-cudagraphs") for the
batch sizes given with --compile-batch (it takes minutes per batch size). Prints one line per mode and batch in the
format of `argus bench`.

  python3 scripts/gpu/torch_peer.py --cfg config/models/cfg/yolov4-tiny.cfg --weights W --size 416 --batch 1,64
"""
import argparse
import statistics
import struct
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F


def parse_cfg(path):
    sections = []
    for raw in open(path):
        line = raw.split("#", 1)[0].split(";", 1)[0].strip()
        if not line:
            continue
        if line.startswith("["):
            sections.append({"type": line[1:line.index("]")].strip()})
        else:
            key, value = line.split("=", 1)
            sections[-1][key.strip()] = value.strip()
    return sections


def ints(text):
    return [int(v) for v in text.split(",") if v.strip()]


ACTIVATIONS = {
    "linear": lambda x: x,
    "leaky": lambda x: F.leaky_relu(x, 0.1),
    "relu": F.relu,
    "logistic": torch.sigmoid,
    "mish": F.mish,
    "swish": F.silu,
}


class DarknetNet(torch.nn.Module):
    """Darknet's layers as Argus's NetworkSpec resolves them; forward returns the activated [yolo] outputs."""

    def __init__(self, cfg, weights, size):
        super().__init__()
        sections = parse_cfg(cfg)
        net = sections[0]
        w = size or int(net["width"])
        h = size or int(net["height"])
        c = int(net.get("channels", 3))
        self.flops = 0
        self.layers = []
        self.convs = torch.nn.ModuleList()
        shapes = []
        data = open(weights, "rb").read()
        major, minor, _revision = struct.unpack_from("<3i", data, 0)
        pos = 12 + (8 if major * 10 + minor >= 2 else 4)
        floats = np.frombuffer(data, dtype="<f4", offset=pos)
        at = 0
        for index, s in enumerate(sections[1:]):
            kind = s["type"]
            if kind in ("convolutional", "conv"):
                filters = int(s.get("filters", 1))
                k = int(s.get("size", 1))
                stride = int(s.get("stride", 1))
                pad = k // 2 if int(s.get("pad", 0)) else int(s.get("padding", 0))
                groups = int(s.get("groups", 1))
                bn = int(s.get("batch_normalize", 0))
                conv = torch.nn.Conv2d(c, filters, k, stride, pad, groups=groups, bias=True)
                n_w = filters * (c // groups) * k * k

                def take(n):
                    nonlocal at
                    t = torch.from_numpy(floats[at:at + n].copy())
                    at += n
                    return t

                bias = take(filters)
                if bn:
                    scales, mean, var = take(filters), take(filters), take(filters)
                weight = take(n_w).view(filters, c // groups, k, k)
                if bn:
                    factor = scales / torch.sqrt(var + 1e-5)
                    weight = weight * factor.view(-1, 1, 1, 1)
                    bias = bias - mean * factor
                conv.weight.data.copy_(weight)
                conv.bias.data.copy_(bias)
                self.convs.append(conv)
                oh = (h + 2 * pad - k) // stride + 1
                ow = (w + 2 * pad - k) // stride + 1
                self.flops += 2 * n_w * oh * ow
                self.layers.append(("conv", len(self.convs) - 1, ACTIVATIONS[s.get("activation", "logistic")]))
                c, h, w = filters, oh, ow
            elif kind in ("maxpool", "max"):
                stride = int(s.get("stride", 1))
                k = int(s.get("size", stride))
                padding = int(s.get("padding", k - 1))
                oh = (h + padding - k) // stride + 1
                ow = (w + padding - k) // stride + 1
                left = padding // 2   # Darknet's window starts at -padding/2 (C division)
                right = (ow - 1) * stride + k - w - left
                bottom = (oh - 1) * stride + k - h - left
                self.layers.append(("maxpool", k, stride, left, right, bottom, oh, ow))
                h, w = oh, ow
            elif kind == "route":
                refs = [r if r >= 0 else index + r for r in ints(s["layers"])]
                groups = int(s.get("groups", 1))
                gid = int(s.get("group_id", 0))
                self.layers.append(("route", refs, groups, gid))
                c = sum(shapes[r][0] // groups for r in refs)
                h, w = shapes[refs[0]][1], shapes[refs[0]][2]
            elif kind == "shortcut":
                f = ints(s["from"])[0]
                self.layers.append(("shortcut", f if f >= 0 else index + f,
                                    ACTIVATIONS[s.get("activation", "linear")]))
            elif kind == "upsample":
                stride = int(s.get("stride", 2))
                self.layers.append(("upsample", stride, float(s.get("scale", 1))))
                h, w = h * stride, w * stride
            elif kind == "yolo":
                anchors = len(ints(s["mask"]))
                self.layers.append(("yolo", anchors, 5 + int(s.get("classes", 20)), float(s.get("scale_x_y", 1)),
                                    int(s.get("new_coords", 0))))
            else:
                raise ValueError(f"{cfg}: unsupported section [{kind}]")
            shapes.append((c, h, w))
        if at != len(floats):
            raise ValueError(f"{weights}: read {at} floats, file holds {len(floats)}")

    def forward(self, x):
        outs, heads = [], []
        for layer in self.layers:
            kind = layer[0]
            if kind == "conv":
                x = layer[2](self.convs[layer[1]](x))
            elif kind == "maxpool":
                _, k, stride, left, right, bottom, oh, ow = layer
                if left == right == bottom and left <= k // 2:
                    x = F.max_pool2d(x, k, stride, padding=left)
                else:
                    x = F.pad(x, (left, max(right, 0), left, max(bottom, 0)), value=float("-inf"))
                    x = F.max_pool2d(x, k, stride)[:, :, :oh, :ow]
            elif kind == "route":
                _, refs, groups, gid = layer
                parts = [outs[r] if groups == 1 else outs[r].chunk(groups, dim=1)[gid] for r in refs]
                x = parts[0] if len(parts) == 1 else torch.cat(parts, dim=1)
            elif kind == "shortcut":
                x = layer[2](x + outs[layer[1]])
            elif kind == "upsample":
                x = F.interpolate(x, scale_factor=layer[1], mode="nearest")
                if layer[2] != 1:
                    x = x * layer[2]
            elif kind == "yolo":
                _, anchors, entries, scale, new_coords = layer
                n, _, hh, ww = x.shape
                v = x.view(n, anchors, entries, hh, ww)
                if new_coords:
                    xy, rest = v[:, :, :2], v[:, :, 2:]
                    xy = xy * scale - 0.5 * (scale - 1)
                    heads.append(torch.cat([xy, rest], dim=2))
                else:
                    sig = torch.sigmoid(v)
                    xy = sig[:, :, :2] * scale - 0.5 * (scale - 1)
                    heads.append(torch.cat([xy, v[:, :, 2:4], sig[:, :, 4:]], dim=2))
            outs.append(x)
        return heads


def time_it(fn, seconds, min_runs=10):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start_event, end_event = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start_event.record()
    fn()
    end_event.record()
    end_event.synchronize()
    single = start_event.elapsed_time(end_event)
    group = max(1, min(50, int(2.0 / max(single, 1e-3)) + 1))
    samples = []
    t0 = time.time()
    while len(samples) < min_runs or time.time() - t0 < seconds:
        start_event.record()
        for _ in range(group):
            fn()
        end_event.record()
        end_event.synchronize()
        samples.append(start_event.elapsed_time(end_event) / group)
    return statistics.median(samples), len(samples) * group


def report(name, batch, ms, runs, flops, what):
    print(f"{name:<10} batch {batch:3d}: {ms:8.3f} ms/batch  {ms / batch:8.4f} ms/image  {1000.0 * batch / ms:9.1f} "
          f"images/s  {flops * batch / (ms / 1000.0) / 1e12:6.1f} TFLOP/s  ({what}, {runs} runs)", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cfg", required=True)
    p.add_argument("--weights", required=True)
    p.add_argument("--size", type=int, default=416)
    p.add_argument("--batch", default="1,8,32,64")
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--compile-batch", default="", help="batch sizes to time with torch.compile max-autotune")
    a = p.parse_args()
    torch.backends.cudnn.benchmark = True
    dev = torch.device("cuda")
    model = DarknetNet(a.cfg, a.weights, a.size).to(dev).half().to(memory_format=torch.channels_last).eval()
    print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name()}, "
          f"{model.flops / 1e9:.2f} GFLOP/image", flush=True)
    compile_batches = set(ints(a.compile_batch)) if a.compile_batch else set()
    compiled = None
    with torch.inference_mode():
        for batch in ints(a.batch):
            x = torch.rand(batch, 3, a.size, a.size, device=dev).half().to(memory_format=torch.channels_last)
            ms, runs = time_it(lambda: model(x), a.seconds)
            report("torch-eager", batch, ms, runs, model.flops, "eager FP16 channels_last cudnn.benchmark")
            static_x = x.clone()
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    model(static_x)
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                model(static_x)
            ms, runs = time_it(graph.replay, a.seconds)
            report("torch-graph", batch, ms, runs, model.flops, "CUDA graph")
            del graph
            if batch in compile_batches:
                if compiled is None:
                    compiled = torch.compile(model, mode="max-autotune-no-cudagraphs")
                t0 = time.time()
                compiled(x)
                torch.cuda.synchronize()
                print(f"torch.compile max-autotune-no-cudagraphs batch {batch}: compiled in {time.time() - t0:.0f} s",
                      flush=True)
                ms, runs = time_it(lambda: compiled(x), a.seconds)
                report("torch-compile", batch, ms, runs, model.flops, "torch.compile max-autotune-no-cudagraphs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
