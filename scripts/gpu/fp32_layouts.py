#!/usr/bin/env python3
"""IEEE FP32 convolutions of yolov4-tiny at 416, batch 64, timed by PyTorch (cuDNN) in NCHW and in NHWC
(channels_last): forward, backward data and backward filter per layer shape, TF32 off. Says which layout cuDNN serves
better for each operation: the measurement behind the planner's channels-first candidates for FP32.

  python3 scripts/gpu/fp32_layouts.py [--batch 64] [--size 416]
"""
import argparse

import torch

# (layer, kernel, stride, in channels, out channels, input side at 416)
LAYERS = [
    (0, 3, 2, 3, 32, 416), (1, 3, 2, 32, 64, 208), (2, 3, 1, 64, 64, 104), (4, 3, 1, 32, 32, 104),
    (7, 1, 1, 64, 64, 104), (10, 3, 1, 128, 128, 52), (12, 3, 1, 64, 64, 52), (15, 1, 1, 128, 128, 52),
    (18, 3, 1, 256, 256, 26), (20, 3, 1, 128, 128, 26), (23, 1, 1, 256, 256, 26), (26, 3, 1, 512, 512, 13),
    (27, 1, 1, 512, 256, 13), (28, 3, 1, 256, 512, 13), (29, 1, 1, 512, 255, 13), (35, 3, 1, 384, 256, 26),
]


def timed(fn, runs=10):
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    best = float("inf")
    for _ in range(3):
        start.record()
        for _ in range(runs):
            fn()
        end.record()
        torch.cuda.synchronize()
        best = min(best, start.elapsed_time(end) / runs)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--size", type=int, default=416)
    a = ap.parse_args()
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name()}, "
          f"IEEE FP32 (TF32 off), batch {a.batch}")
    print(f"{'layer':>5} {'shape':<22} {'fwd nchw':>9} {'fwd nhwc':>9} {'dgrad nchw':>11} {'dgrad nhwc':>11} "
          f"{'wgrad nchw':>11} {'wgrad nhwc':>11}  (ms)")
    totals = {}
    for (layer, k, s, cin, cout, side) in LAYERS:
        side = side * a.size // 416
        row = []
        for op in ("fwd", "dgrad", "wgrad"):
            for fmt in (torch.contiguous_format, torch.channels_last):
                x = torch.randn(a.batch, cin, side, side, device="cuda").to(memory_format=fmt)
                w = (torch.randn(cout, cin, k, k, device="cuda") * 0.05).to(memory_format=fmt)
                y = torch.nn.functional.conv2d(x, w, stride=s, padding=k // 2)
                dy = torch.randn_like(y).to(memory_format=fmt)
                if op == "fwd":
                    f = lambda: torch.nn.functional.conv2d(x, w, stride=s, padding=k // 2)
                else:
                    mask = [op == "dgrad", op == "wgrad", False]
                    f = lambda: torch.ops.aten.convolution_backward(dy, x, w, None, [s, s], [k // 2, k // 2], [1, 1],
                                                                   False, [0, 0], 1, mask)
                ms = timed(f)
                row.append(ms)
                key = (op, "nchw" if fmt == torch.contiguous_format else "nhwc")
                totals[key] = totals.get(key, 0.0) + ms
        shape = f"{k}x{k}/{s} {cin}->{cout} {side}"
        print(f"{layer:>5} {shape:<22} " + " ".join(f"{v:>9.3f}" if i < 2 else f"{v:>11.3f}" for i, v in enumerate(row)))
    print("totals: " + ", ".join(f"{op} {fmt} {v:.2f} ms" for (op, fmt), v in totals.items()))
    best = sum(min(totals[(op, "nchw")], totals[(op, "nhwc")]) for op in ("fwd", "dgrad", "wgrad"))
    print(f"sum of per-operation layout minima (whole-model totals per op): {best:.2f} ms")


if __name__ == "__main__":
    main()
