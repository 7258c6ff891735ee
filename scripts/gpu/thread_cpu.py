#!/usr/bin/env python3
"""CPU per thread group of a running JVM (by thread name, digits folded), over a few seconds: where a benchmark's
CPU goes when a profiler is not at hand. Usage: thread_cpu.py PATTERN [SECONDS]"""
import os, re, sys, time

pattern, seconds = sys.argv[1], float(sys.argv[2] if len(sys.argv) > 2 else 5)
def matches(p):
    try:
        return p != str(os.getpid()) and pattern.encode() in open(f'/proc/{p}/cmdline', 'rb').read()
    except OSError:
        return False

# the process with the most threads among those whose command line matches (the JVM, not the shell that started it)
pid = max((p for p in os.listdir('/proc') if p.isdigit() and matches(p)), key=lambda p: len(os.listdir(f'/proc/{p}/task')))

def sample():
    out = {}
    for t in os.listdir(f'/proc/{pid}/task'):
        try:
            stat = open(f'/proc/{pid}/task/{t}/stat').read()
            name = stat[stat.index('(') + 1:stat.rindex(')')]
            f = stat[stat.rindex(')') + 2:].split()
            out[t] = (name, int(f[11]) + int(f[12]))
        except (OSError, ValueError):
            pass
    return out

a = sample(); time.sleep(seconds); b = sample()
hz = os.sysconf('SC_CLK_TCK')
groups = {}
for t, (name, ticks) in b.items():
    d = ticks - a.get(t, (name, ticks))[1]
    key = re.sub(r'\d+', '#', name)
    g = groups.setdefault(key, [0, 0]); g[0] += d; g[1] += 1
total = sum(g[0] for g in groups.values())
print(f"pid {pid}: {total / hz / seconds * 100:.0f}% of a core over {seconds:.0f} s, {len(b)} threads")
for k, (d, n) in sorted(groups.items(), key=lambda kv: -kv[1][0])[:20]:
    print(f"{d / hz / seconds * 100:8.1f}%  {n:4d} threads  {k}")
