#!/usr/bin/env python3
"""Per test class: tests run, passed, failed, skipped and seconds, from the JUnit console's XML reports (the
directories junit_tests in preamble.sh writes), then each failure's first line. Exits 1 when any test failed.
    junit_summary.py REPORT_DIR...
"""
import glob
import os
import sys
import xml.etree.ElementTree as ET

rows = {}
failures = []
for d in sys.argv[1:]:
    for f in sorted(glob.glob(os.path.join(d, "TEST-*.xml"))):
        for case in ET.parse(f).getroot().iter("testcase"):
            cls = case.get("classname", "?")
            r = rows.setdefault(cls, {"run": 0, "passed": 0, "failed": 0, "skipped": 0, "s": 0.0, "module": os.path.basename(os.path.normpath(d))})
            r["run"] += 1
            r["s"] += float(case.get("time", "0") or 0)
            bad = case.find("failure")
            if bad is None:
                bad = case.find("error")
            if bad is not None:
                r["failed"] += 1
                msg = (bad.get("message") or bad.text or "").strip().splitlines()
                failures.append(f"{cls}.{case.get('name')}: {msg[0] if msg else bad.get('type', '')}"[:600])
            elif case.find("skipped") is not None:
                r["skipped"] += 1
            else:
                r["passed"] += 1

print("| run | class | tests | passed | failed | skipped | s |")
print("|---|---|---|---|---|---|---|")
total = {"run": 0, "passed": 0, "failed": 0, "skipped": 0, "s": 0.0}
for cls, r in sorted(rows.items(), key=lambda kv: (kv[1]["module"], kv[0])):
    print(f"| {r['module']} | {cls.rsplit('.', 1)[-1]} | {r['run']} | {r['passed']} | {r['failed']} | {r['skipped']} | {r['s']:.1f} |")
    for k in total:
        total[k] += r[k]
print(f"| all | {len(rows)} classes | {total['run']} | {total['passed']} | {total['failed']} | {total['skipped']} | {total['s']:.1f} |")
if not rows:
    print("no XML reports under " + " ".join(sys.argv[1:]))
for f in failures:
    print("FAILED " + f)
sys.exit(1 if failures or not rows else 0)
