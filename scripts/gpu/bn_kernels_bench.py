#!/usr/bin/env python3
"""Times the training's batch-norm passes (kernels/convolutional.cu section (d), FP16) at yolov4-tiny's batch-64
shapes, for one or more copies of kernels/, on the GPU host without Java: NVRTC compiles each copy as
io.argus.gpu.KernelLibrary does (train_common.cuh inlined, common.cuh as a header), the CUDA driver launches the
kernels with the grids Convolutional uses, torch only allocates and times (CUDA events).

  python3 bn_kernels_bench.py LABEL=KERNELS_DIR [LABEL=KERNELS_DIR ...] [--reps 50]

Prints per shape and kernel the median time over the repetitions and the DRAM bytes it must move per
microsecond (GB/s), then each copy's sum over the shapes, and whether each copy's outputs (y, dL/dz, the partial
sums) are bit for bit the first copy's (the partial sums' last bits differ from run to run even for the same copy:
shared-memory atomics add in the order threads arrive). Times include the Python launch (~30 us floor on the small
shapes), so compare copies, not absolute figures, there.
"""
import argparse
import ctypes
import glob
import os
import re
import site
import statistics

import torch

from cuda_events import event_times

BLOCK = 256
BLOCKS_PER_SM = 32             # io.argus.gpu.KernelLaunch
REDUCTION_BLOCKS_PER_SM = 4
# (name, pixels of a batch of 64, padded channels): yolov4-tiny 416's batch-normalized convolution outputs
SHAPES = [("208x208x32", 64 * 208 * 208, 32), ("104x104x64", 64 * 104 * 104, 64),
          ("52x52x128", 64 * 52 * 52, 128), ("26x26x256", 64 * 26 * 26, 256), ("13x13x512", 64 * 13 * 13, 512)]


def nvrtc_library():
    for sp in site.getsitepackages():
        hits = sorted(glob.glob(os.path.join(sp, "nvidia", "**", "libnvrtc.so*"), recursive=True))
        hits = [h for h in hits if "builtins" not in h and ".alt." not in h]
        if hits:
            return ctypes.CDLL(hits[0])
    return ctypes.CDLL("libnvrtc.so")


NVRTC = nvrtc_library()
CUDA = ctypes.CDLL("libcuda.so.1")


def check(status, what):
    if status != 0:
        raise RuntimeError(f"{what}: status {status}")


def inline(directory, text):
    def one(m):
        name = m.group(1)
        return m.group(0) if name == "common.cuh" else inline(directory, open(os.path.join(directory, name)).read())
    return re.sub(r'#include "([a-z_0-9]+\.cuh)"', one, text)


def compile_module(directory, arch):
    source = inline(directory, open(os.path.join(directory, "convolutional.cu")).read()).encode()
    header = open(os.path.join(directory, "common.cuh"), "rb").read()
    prog = ctypes.c_void_p()
    check(NVRTC.nvrtcCreateProgram(ctypes.byref(prog), source, b"convolutional.cu", 1,
                                   (ctypes.c_char_p * 1)(header), (ctypes.c_char_p * 1)(b"common.cuh")),
          "nvrtcCreateProgram")
    opts = [f"--gpu-architecture={arch}".encode(), b"-std=c++17"]
    status = NVRTC.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    if status != 0:
        size = ctypes.c_size_t()
        NVRTC.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        NVRTC.nvrtcGetProgramLog(prog, log)
        raise RuntimeError(f"{directory}: NVRTC failed:\n{log.value.decode()}")
    size = ctypes.c_size_t()
    check(NVRTC.nvrtcGetCUBINSize(prog, ctypes.byref(size)), "nvrtcGetCUBINSize")
    cubin = ctypes.create_string_buffer(size.value)
    check(NVRTC.nvrtcGetCUBIN(prog, cubin), "nvrtcGetCUBIN")
    module = ctypes.c_void_p()
    check(CUDA.cuModuleLoadData(ctypes.byref(module), cubin), "cuModuleLoadData")
    return module


def function(module, name):
    f = ctypes.c_void_p()
    check(CUDA.cuModuleGetFunction(ctypes.byref(f), module, name.encode()), f"cuModuleGetFunction {name}")
    return f


def launch(f, grid, args, stream):
    values = []
    for kind, v in args:
        values.append({"p": ctypes.c_uint64, "l": ctypes.c_longlong, "i": ctypes.c_int, "f": ctypes.c_float}[kind](v))
    argv = (ctypes.c_void_p * len(values))(*[ctypes.cast(ctypes.pointer(v), ctypes.c_void_p) for v in values])
    check(CUDA.cuLaunchKernel(f, max(1, grid), 1, 1, BLOCK, 1, 1, 0, ctypes.c_void_p(stream), argv, None),
          "cuLaunchKernel")


def timed(reps, fn):
    times = event_times(fn, reps)
    return statistics.median(times), min(times), max(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("copies", nargs="+", help="LABEL=KERNELS_DIR")
    ap.add_argument("--reps", type=int, default=50)
    a = ap.parse_args()
    torch.cuda.init()
    dev = torch.device("cuda")
    torch.zeros(1, device=dev)   # the primary context current on this thread
    props = torch.cuda.get_device_properties(dev)
    sms = props.multi_processor_count
    arch = f"sm_{props.major}{props.minor}"
    stream = torch.cuda.current_stream().cuda_stream
    print(f"{props.name}, {sms} SMs, {arch}; {a.reps} repetitions, median (min-max) ms; GB/s = bytes that must move / median")
    totals = {}
    outputs = {}
    for copy in a.copies:
        label, directory = copy.split("=", 1)
        module = compile_module(directory, arch)
        k = {n: function(module, n) for n in ("bn_stats_h", "bn_apply_h", "bn_backward_reduce_h", "bn_backward_apply_h")}
        total = 0.0
        for shape, pixels, S in SHAPES:
            C = S
            lanes = pixels * (S // 8)
            rgrid = max(1, min((lanes + 8 * BLOCK - 1) // (8 * BLOCK), REDUCTION_BLOCKS_PER_SM * sms))
            agrid = max(1, min((lanes + BLOCK - 1) // BLOCK, BLOCKS_PER_SM * sms))
            g = torch.Generator(device=dev).manual_seed(1)
            z = torch.randn(pixels, S, device=dev, dtype=torch.float16, generator=g)
            y = torch.empty_like(z)
            dy = torch.randn(pixels, S, device=dev, dtype=torch.float16, generator=g)
            per = lambda: torch.rand(S, device=dev, dtype=torch.float32, generator=g) + 0.5
            shift, mean, inv, gamma, beta, mt, vt = (per() for _ in range(7))
            partial = torch.empty(REDUCTION_BLOCKS_PER_SM * sms * 2 * S, device=dev, dtype=torch.float32)
            p = lambda t: ("p", t.data_ptr())
            runs = {
                "bn_stats_h": (rgrid, [p(z), ("l", pixels), ("i", S), p(shift), p(partial)], 1),
                "bn_apply_h": (agrid, [p(z), p(y), ("l", pixels), ("i", S), ("i", C), p(mean), p(inv), p(gamma),
                                       p(beta), ("i", 1)], 2),
                "bn_backward_reduce_h": (rgrid, [p(dy), p(z), ("l", pixels), ("i", S), ("i", C), p(mean), p(inv),
                                                 p(gamma), p(beta), ("i", 1), p(partial)], 2),
                "bn_backward_apply_h": (agrid, [p(dy), p(z), ("l", pixels), ("i", S), ("i", C), p(mean), p(inv),
                                                p(gamma), p(beta), ("i", 1), p(mt), p(vt)], 3),
            }
            # one pass of each on fresh inputs: the outputs the copies must agree on
            dy0 = dy.clone()
            got = []
            for name in ("bn_stats_h", "bn_apply_h", "bn_backward_reduce_h", "bn_backward_apply_h"):
                grid, args, _ = runs[name]
                launch(k[name], grid, args, stream)
                torch.cuda.synchronize()
                got.append((name, (partial if "reduce" in name or "stats" in name else y if name == "bn_apply_h"
                                   else dy).clone()))
            dy.copy_(dy0)
            outputs.setdefault(shape, []).append((label, got))
            for name, (grid, args, passes) in runs.items():
                launch(k[name], grid, args, stream)   # warm
                med, lo, hi = timed(a.reps, lambda: launch(k[name], grid, args, stream))
                gbs = passes * pixels * S * 2 / (med * 1e-3) / 1e9
                total += med
                print(f"{label:10s} {shape:11s} {name:22s} grid {grid:5d}  {med:7.4f} ms ({lo:.4f}-{hi:.4f})  {gbs:6.0f} GB/s")
            del z, y, dy
            torch.cuda.empty_cache()
        totals[label] = total
    for label, total in totals.items():
        print(f"{label}: the four passes over the five shapes {total:.3f} ms")
    for shape, per_copy in outputs.items():
        base_label, base = per_copy[0]
        for label, got in per_copy[1:]:
            for (name, a), (_, b) in zip(base, got):
                same = torch.equal(a.view(torch.int16) if a.dtype == torch.float16 else a.view(torch.int32),
                                   b.view(torch.int16) if b.dtype == torch.float16 else b.view(torch.int32))
                diff = (a.float() - b.float()).abs().max().item()
                print(f"{shape:11s} {name:22s} {label} vs {base_label}: {'identical' if same else f'DIFFERS (max |diff| {diff:.3g})'}")


if __name__ == "__main__":
    main()
