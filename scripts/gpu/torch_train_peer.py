#!/usr/bin/env python3
"""The PyTorch peer of `argus bench train`: the same network built from the Darknet cfg (batch norm as separate
layers, eps 1e-5, as in training), the same batch and the same stand-in loss (the sum over [yolo] heads of the mean of
the squared head input, computed in FP32), SGD with momentum 0.9 and weight decay 0.0005, channels_last and
cudnn.benchmark, in three modes: amp (autocast FP16 + GradScaler from 2^16, as torch.amp recommends), fp32 (IEEE FP32:
TF32 off for cuDNN and matmul) and tf32 (FP32 tensors, TF32 convolutions: PyTorch's default for cuDNN). One iteration = zero_grad, forward, loss, backward, (unscale, inf check,)
step, as Argus's iteration. Images/s from the wall clock over whole iterations after warm-up; memory as
torch.cuda.max_memory_allocated (and reserved) over the whole run. Prints one line per mode in the format
scripts/gpu/train_summary.py reads.

  python3 scripts/gpu/torch_train_peer.py --cfg config/models/cfg/yolov4-tiny.cfg --size 416 --batch 64
"""
import argparse
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_peer import ACTIVATIONS, ints, parse_cfg  # noqa: E402


class TrainNet(torch.nn.Module):
    """Darknet's layers for training; forward returns the raw inputs of the [yolo] heads."""

    def __init__(self, cfg, size):
        super().__init__()
        sections = parse_cfg(cfg)
        net = sections[0]
        w = size or int(net["width"])
        h = size or int(net["height"])
        c = int(net.get("channels", 3))
        self.mods = torch.nn.ModuleList()
        self.layers = []
        shapes = []
        for index, s in enumerate(sections[1:]):
            kind = s["type"]
            if kind in ("convolutional", "conv"):
                filters = int(s.get("filters", 1))
                k = int(s.get("size", 1))
                stride = int(s.get("stride", 1))
                pad = k // 2 if int(s.get("pad", 0)) else int(s.get("padding", 0))
                groups = int(s.get("groups", 1))
                bn = int(s.get("batch_normalize", 0))
                conv = torch.nn.Conv2d(c, filters, k, stride, pad, groups=groups, bias=not bn)
                block = [conv] + ([torch.nn.BatchNorm2d(filters, eps=1e-5, momentum=0.01)] if bn else [])
                self.mods.append(torch.nn.Sequential(*block))
                self.layers.append(("conv", len(self.mods) - 1, ACTIVATIONS[s.get("activation", "logistic")]))
                h = (h + 2 * pad - k) // stride + 1
                w = (w + 2 * pad - k) // stride + 1
                c = filters
            elif kind in ("maxpool", "max"):
                stride = int(s.get("stride", 1))
                k = int(s.get("size", stride))
                padding = int(s.get("padding", k - 1))
                oh = (h + padding - k) // stride + 1
                ow = (w + padding - k) // stride + 1
                left = padding // 2
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
                self.layers.append(("shortcut", f if f >= 0 else index + f, ACTIVATIONS[s.get("activation", "linear")]))
            elif kind == "upsample":
                stride = int(s.get("stride", 2))
                self.layers.append(("upsample", stride, float(s.get("scale", 1))))
                h, w = h * stride, w * stride
            elif kind == "yolo":
                self.layers.append(("yolo",))
            else:
                raise ValueError(f"{cfg}: unsupported section [{kind}]")
            shapes.append((c, h, w))

    def forward(self, x):
        outs, heads = [], []
        for layer in self.layers:
            kind = layer[0]
            if kind == "conv":
                x = layer[2](self.mods[layer[1]](x))
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
                heads.append(x)
            outs.append(x)
        return heads


def stand_in_loss(heads):
    return sum(h.float().pow(2).mean() for h in heads)


def bench(model, x, amp, seconds, warmup):
    opt = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9, weight_decay=0.0005)
    scaler = torch.amp.GradScaler("cuda", init_scale=65536.0, enabled=amp)

    def iteration():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16, enabled=amp):
            heads = model(x)
        loss = stand_in_loss(heads)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        return loss

    for _ in range(warmup):
        iteration()
    torch.cuda.synchronize()
    steady_before = torch.cuda.max_memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    times = []
    t0 = time.time()
    loss = None
    while len(times) < 5 or time.time() - t0 < seconds:
        i0 = time.time()
        loss = iteration()
        loss.detach().item()  # one host read per iteration, as Argus reads its loss
        times.append(time.time() - i0)
    torch.cuda.synchronize()
    elapsed = time.time() - t0
    times.sort()
    return (len(times), elapsed, times[len(times) // 2], max(steady_before, torch.cuda.max_memory_allocated()),
            torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved(), float(loss.detach()))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cfg", required=True)
    p.add_argument("--size", type=int, default=416)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--modes", default="amp,fp32,tf32")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--warmup", type=int, default=5)
    a = p.parse_args()
    torch.backends.cudnn.benchmark = True
    dev = torch.device("cuda")
    name = os.path.splitext(os.path.basename(a.cfg))[0]
    print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name()}, "
          f"cudnn.allow_tf32={torch.backends.cudnn.allow_tf32}", flush=True)
    for mode in a.modes.split(","):
        tf32 = mode != "fp32"
        torch.backends.cudnn.allow_tf32 = tf32
        torch.backends.cuda.matmul.allow_tf32 = tf32
        torch.manual_seed(1)
        model = TrainNet(a.cfg, a.size).to(dev).to(memory_format=torch.channels_last).train()
        x = torch.rand(a.batch, 3, a.size, a.size, device=dev).to(memory_format=torch.channels_last)
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        runs, elapsed, median, peak, steady, reserved, loss = bench(model, x, mode == "amp", a.seconds, a.warmup)
        print(f"torch-train model={name} mode={mode} batch={a.batch} iterations={runs} "
              f"images/s={runs * a.batch / elapsed:.1f} ms/iter={1000 * elapsed / runs:.3f} "
              f"median_ms={1000 * median:.3f} max_allocated_mib={peak / 2**20:.0f} "
              f"steady_max_allocated_mib={steady / 2**20:.0f} max_reserved_mib={reserved / 2**20:.0f} loss={loss:.6g}",
              flush=True)
        del model, x
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
