#!/usr/bin/env python3
"""Compares `argus train` loss curves (the progress lines `N/M [...] loss X ...`, every 10th iteration): the first log
is the reference, the second another uninterrupted run of the same job (the run-to-run noise), the rest runs that
were suspended and resumed (on another GPU count). For each: the mean and largest |loss - reference loss| over the
iterations both logged, overall and after the resume point (the first iteration the log prints twice: the second
half starts with its own line at its first iteration), against the noise. Prints a table.

  python3 scripts/gpu/loss_curves_compare.py straight.log again.log resumed-a.log [resumed-b.log ...]
"""
import re
import sys

LINE = re.compile(r"^(\d+)/(\d+) \[[^\]]*\] loss ([0-9.eE+-]+|nan|inf)")


def curve(path):
    out = {}
    starts = []
    for line in open(path, errors="replace"):
        m = LINE.match(line.strip())
        if m:
            it = int(m.group(1))
            out[it] = float(m.group(3))
        elif " iterations " in line and ".." in line:
            m2 = re.search(r"iterations (\d+)\.\.(\d+)", line)
            if m2:
                starts.append(int(m2.group(1)))
    return out, starts


def compare(ref, other, after=0):
    common = [i for i in sorted(ref) if i in other and i > after]
    if not common:
        return float("nan"), float("nan"), 0
    d = [abs(ref[i] - other[i]) for i in common]
    return sum(d) / len(d), max(d), len(common)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    ref, _ = curve(sys.argv[1])
    noise_curve, _ = curve(sys.argv[2])
    noise_mean, noise_max, n = compare(ref, noise_curve)
    print(f"reference {sys.argv[1]}: {len(ref)} logged iterations, last loss {ref[max(ref)]:.4f}" if ref else "no curve")
    print(f"run to run ({sys.argv[2]}): mean |diff| {noise_mean:.4f}, max {noise_max:.4f} over {n} iterations")
    print("| run | resumed at | mean abs diff after the resume | max | mean over the whole run | within noise (mean <= 2x run-to-run + 0.005) |")
    print("|---|---|---|---|---|---|")
    for path in sys.argv[3:]:
        c, starts = curve(path)
        at = starts[1] - 1 if len(starts) > 1 else 0
        mean_after, max_after, k = compare(ref, c, at)
        mean_all, _, _ = compare(ref, c)
        ok = mean_after <= 2 * noise_mean + 0.005
        print(f"| {path} | {at} | {mean_after:.4f} ({k} points) | {max_after:.4f} | {mean_all:.4f} | {'yes' if ok else 'NO'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
