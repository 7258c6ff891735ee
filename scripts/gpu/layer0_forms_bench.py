#!/usr/bin/env python3
"""Times forms of yolov4-tiny's first convolution (3 -> 32 channels, 3x3, stride 2, 416x416 -> 208x208) on cuDNN,
FP16 NHWC, at one batch, so that the input layout the preprocess writes can be chosen on measurements:

  c8     the input as the network holds it today: 3 channels padded to 8 (16 bytes a pixel), 3x3/2, pad 1
  c4     3 channels padded to 4 (8 bytes a pixel), 3x3/2, pad 1
  s2d    space-to-depth: 2x2 pixel blocks as 12 channels padded to 16, shifted one pixel up and left so that the
         3x3/2 convolution becomes a 2x2/1 one without padding on a 209x209 input (block (i, j) holds pixels
         2i-1..2i, 2j-1..2j); the same outputs as c8 (checked here against it)

torch only allocates, runs cuDNN (cudnn.benchmark picks its fastest algorithm per form) and times with CUDA events;
the launch is under the kernel's time at these sizes. Prints the median and spread of each form's time over the
repetitions and the bytes the input and output take.

  python3 layer0_forms_bench.py [--batch 64] [--reps 50]
"""
import argparse
import statistics

import torch
import torch.nn.functional as F

from cuda_events import event_times


def timed(fn, reps):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    return event_times(fn, reps)


def space_to_depth_weights(w):
    """[32, 3, 3, 3] 3x3/2 filters as [32, 16, 2, 2] ones over shifted 2x2 blocks (channel = (dy * 2 + dx) * 3 + c)."""
    k = w.shape[0]
    out = torch.zeros(k, 16, 2, 2, dtype=w.dtype, device=w.device)
    for r in range(3):          # filter row r reads pixel row 2i - 1 + r: block i + r // 2, row r % 2 in it
        for q in range(3):
            br, dy = r // 2, r % 2
            bq, dx = q // 2, q % 2
            for c in range(3):
                out[:, (dy * 2 + dx) * 3 + c, br, bq] = w[:, c, r, q]
    return out


def space_to_depth_input(x):
    """[n, 3, 416, 416] as [n, 16, 209, 209]: pixels shifted by one (a zero row and column before, one after)."""
    n = x.shape[0]
    p = F.pad(x, (1, 1, 1, 1))                                   # 418 x 418, pixel -1 at index 0
    blocks = p.reshape(n, 3, 209, 2, 209, 2).permute(0, 3, 5, 1, 2, 4).reshape(n, 12, 209, 209)
    return F.pad(blocks, (0, 0, 0, 0, 0, 4))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--reps", type=int, default=50)
    args = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(1)
    dev = torch.device("cuda")
    n = args.batch
    image = torch.rand(n, 3, 416, 416, device=dev, dtype=torch.float16)
    w = (torch.randn(32, 3, 3, 3, device=dev) * 0.2).to(torch.float16)
    cl = torch.channels_last

    x8 = F.pad(image, (0, 0, 0, 0, 0, 5)).contiguous(memory_format=cl)
    w8 = F.pad(w, (0, 0, 0, 0, 0, 5)).contiguous(memory_format=cl)
    x4 = F.pad(image, (0, 0, 0, 0, 0, 1)).contiguous(memory_format=cl)
    w4 = F.pad(w, (0, 0, 0, 0, 0, 1)).contiguous(memory_format=cl)
    xs = space_to_depth_input(image).contiguous(memory_format=cl)
    ws = space_to_depth_weights(w).contiguous(memory_format=cl)

    forms = {
        "c8": (lambda: F.conv2d(x8, w8, stride=2, padding=1), x8),
        "c4": (lambda: F.conv2d(x4, w4, stride=2, padding=1), x4),
        "s2d": (lambda: F.conv2d(xs, ws, stride=1, padding=0), xs),
    }
    reference = forms["c8"][0]().float()
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, "
          f"batch {n}, {args.reps} repetitions")
    for name, (fn, x) in forms.items():
        y = fn()
        err = ((y.float() - reference).norm() / reference.norm()).item()
        t = timed(fn, args.reps)
        med = statistics.median(t)
        in_mb = x.numel() * 2 / 1e6
        out_mb = y.numel() * 2 / 1e6
        print(f"{name:4s} input {tuple(x.shape)} {in_mb:7.1f} MB  output {tuple(y.shape)} {out_mb:7.1f} MB  "
              f"median {med:.4f} ms (min {min(t):.4f}, max {max(t):.4f})  "
              f"{(in_mb + out_mb) / 1e3 / (med / 1e3):6.0f} GB/s  vs c8 rel. L2 {err:.2e}")


if __name__ == "__main__":
    main()
