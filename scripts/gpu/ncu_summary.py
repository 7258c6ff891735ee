#!/usr/bin/env python3
"""The last forward of an `argus bench forwards` run profiled by Nsight Compute (`ncu --csv --page raw`): the forward is
found as the last complete block of a repeating kernel sequence (the command runs the same forward N times last; a
profile cut short leaves a partial one after it), then its kernels
are listed costliest first with achieved DRAM bandwidth, SM throughput and tensor-pipe activity, and totals.

usage: ncu_summary.py NCU_CSV [--runs N] [--top K]"""
import argparse
import csv
import sys

TIME = "gpu__time_duration.sum"
DRAM = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
DRAM_BYTES = "dram__bytes.sum"
SM = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
HMMA = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"
GMMA = "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"


def rows(path):
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]   # ncu's own log lines are not CSV
    reader = csv.reader(lines)
    header = next(reader)
    units = next(reader)
    out = []
    for r in reader:
        out.append(dict(zip(header, r)))
    return header, dict(zip(header, units)), out


def number(row, key):
    v = row.get(key, "")
    try:
        return float(v.replace(",", ""))
    except ValueError:
        return float("nan")


def last_run(keys, runs, shortest=8):
    """(start, length) of the last complete forward: the latest end at which `runs` consecutive blocks of `length`
    kernels are equal (the smallest such length, at least `shortest`: cuDNN's kernels share names, so two equal
    neighbours prove nothing). A run cut short by the profiler leaves a partial forward after it, skipped."""
    n = len(keys)
    for end in range(n, 0, -1):
        for length in range(shortest, end // runs + 1):
            tail = keys[end - length:end]
            if all(keys[end - (k + 1) * length:end - k * length] == tail for k in range(1, runs)):
                return end - length, length
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--top", type=int, default=10)
    a = ap.parse_args()
    header, units, kernels = rows(a.csv)
    if not kernels:
        sys.exit(f"{a.csv}: no kernel rows")
    keys = [(k["Kernel Name"], k.get("Grid Size"), k.get("Block Size")) for k in kernels]
    found = last_run(keys, a.runs)
    if found is None:
        sys.exit(f"{a.csv}: no {a.runs} forwards in a row repeat one kernel sequence ({len(keys)} kernels)")
    start, length = found
    forward = kernels[start:start + length]
    scale = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3}.get(units.get(TIME, "nsecond"), 1e-3)
    total_us = sum(number(k, TIME) * scale for k in forward)
    dram_b = sum(number(k, DRAM_BYTES) for k in forward if number(k, DRAM_BYTES) == number(k, DRAM_BYTES))
    bunit = units.get(DRAM_BYTES, "byte")
    bscale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}.get(bunit, 1)
    print(f"one forward: kernels {start}-{start + length - 1} of {len(kernels)}, {length} kernels, {total_us:.1f} us of kernel time (ncu serializes kernels; "
          f"under the profiler's clock control), DRAM {dram_b * bscale / 1e6:.1f} MB "
          f"= {dram_b * bscale / (total_us * 1e-6) / 1e12:.2f} TB/s averaged over kernel time")
    ranked = sorted(forward, key=lambda k: -number(k, TIME))
    print(f"| # | kernel | grid | time us | share | DRAM % of peak | SM % of peak | tensor pipe % (hmma / gmma) |")
    print("|---|---|---|---|---|---|---|---|")
    for i, k in enumerate(ranked[:a.top], 1):
        t = number(k, TIME) * scale
        name = k["Kernel Name"]
        name = name if len(name) <= 70 else name[:67] + "..."
        print(f"| {i} | `{name}` | {k.get('Grid Size', '')} | {t:.1f} | {100 * t / total_us:.1f}% | "
              f"{number(k, DRAM):.1f} | {number(k, SM):.1f} | {number(k, HMMA):.1f} / {number(k, GMMA):.1f} |")
    top_share = sum(number(k, TIME) * scale for k in ranked[:a.top]) / total_us
    print(f"the {a.top} costliest: {100 * top_share:.1f}% of the forward's kernel time")


if __name__ == "__main__":
    main()
