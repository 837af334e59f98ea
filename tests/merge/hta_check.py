#!/usr/bin/env python3
"""Runs Holistic Trace Analysis (HTA, facebookresearch/HolisticTraceAnalysis) on the per-rank
traces rocprof-merge wrote (-o NAME.hta: the files in NAME/) and checks its per-rank GPU busy
time against the merge's own (the per-rank table of rocprof-merge --report).

    hta_check.py --hta-source CHECKOUT --traces NAME --report job.html [--summary-csv PREFIX]

CHECKOUT is a checkout of HolisticTraceAnalysis (its hta/ package is imported from there).
Without one the check says why it skipped and exits 77 (ctest's skip code). HTA needs pandas,
numpy, plotly, networkx and ijson (Debian: python3-pandas python3-plotly python3-networkx
python3-ijson).

HTA rounds each event's start up and its end down to whole microseconds unless
HTA_DISABLE_NS_ROUNDING=1; the check runs both ways, holds the unrounded figures to 1 % and
shows the rounded ones (HTA refuses a trace whose rounding made an event negative)."""

import argparse
import os
import re
import subprocess
import sys

SKIP = 77

ANALYSES = r'''
import json, os, sys
sys.path.insert(0, sys.argv[1])
from hta.trace_analysis import TraceAnalysis
analysis = TraceAnalysis(trace_dir=sys.argv[2])
temporal = analysis.get_temporal_breakdown(visualize=False)
idle = analysis.get_idle_time_breakdown(visualize=False)[0]
kernels = analysis.get_gpu_kernel_breakdown(visualize=False)[1]
overlap = analysis.get_comm_comp_overlap(visualize=False)
result = {
    "busy_us": {int(r["rank"]): float(r["kernel_time(us)"] - r["idle_time(us)"])
                for _, r in temporal.iterrows()},
    "compute_us": {int(r["rank"]): float(r["compute_time(us)"]) for _, r in temporal.iterrows()},
    "idle_categories": sorted(set(idle["idle_category"])),
    "kernel_us": {f"{int(r['rank'])}/{r['name']}": float(r["sum (us)"])
                  for _, r in kernels.iterrows()},
    "overlap": {int(r["rank"]): None if r["comp_comm_overlap_pctg"] != r["comp_comm_overlap_pctg"]
                else float(r["comp_comm_overlap_pctg"]) for _, r in overlap.iterrows()},
}
print("HTA-RESULT " + json.dumps(result))
'''


def report_gpu_busy_ms(path):
    """rank -> GPU busy (ms) from the report's per-rank table."""
    with open(path, encoding="utf-8") as f:
        html = f.read()
    busy = {}
    for cells in re.findall(r"<tr>((?:<td>[^<]*</td>){9})</tr>", html):
        values = re.findall(r"<td>([^<]*)</td>", cells)
        if re.fullmatch(r"\d+", values[0]):
            busy[int(values[0])] = float(values[6])
    return busy


def run_hta(source, traces, rounding):
    import json  # noqa: PLC0415

    env = dict(os.environ, HTA_DISABLE_NS_ROUNDING="0" if rounding else "1")
    result = subprocess.run([sys.executable, "-c", ANALYSES, source, traces], env=env,
                            capture_output=True, text=True, timeout=600)
    found = [line for line in result.stdout.splitlines() if line.startswith("HTA-RESULT ")]
    if result.returncode != 0 or not found:
        raise RuntimeError(f"HTA failed ({result.returncode}): {result.stderr[-3000:]}")
    return json.loads(found[0][len("HTA-RESULT "):])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hta-source", default=os.environ.get("HTA_SOURCE", ""))
    parser.add_argument("--traces", required=True, help="the directory NAME of NAME.hta")
    parser.add_argument("--report", required=True, help="rocprof-merge --report of the job")
    args = parser.parse_args()
    if not args.hta_source:
        print("skipped: no HTA source given (--hta-source or HTA_SOURCE)")
        return SKIP
    if not os.path.isfile(os.path.join(args.hta_source, "hta", "trace_analysis.py")):
        print(f"skipped: {args.hta_source} holds no hta package (hta/trace_analysis.py)")
        return SKIP
    missing = []
    for module in ("pandas", "numpy", "plotly", "networkx", "ijson"):
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
    if missing:
        print(f"skipped: HTA needs {', '.join(missing)} (scripts/install-deps.sh installs them)")
        return SKIP

    ours = report_gpu_busy_ms(args.report)
    exact = run_hta(args.hta_source, args.traces, rounding=False)
    # Informational: HTA's default rounding can make sub-microsecond events negative, which
    # its own checks then refuse.
    try:
        rounded = run_hta(args.hta_source, args.traces, rounding=True)
    except RuntimeError as error:
        print("HTA with its default rounding to microseconds failed:",
              str(error).strip().splitlines()[-1])
        rounded = {"busy_us": {}}
    failures = []
    print("rank  GPU busy (ms): rocprof-merge  HTA  HTA rounding to us")
    for rank in sorted(ours):
        theirs = exact["busy_us"].get(str(rank))
        theirs_rounded = rounded["busy_us"].get(str(rank), float("nan"))
        if theirs is None:
            failures.append(f"HTA has no rank {rank}")
            continue
        print(f"{rank:4}  {ours[rank]:12.3f}  {theirs / 1000:10.3f}  {theirs_rounded / 1000:10.3f}")
        if abs(theirs / 1000 - ours[rank]) > 0.01 * ours[rank] + 0.001:
            failures.append(f"rank {rank}: HTA {theirs / 1000:.3f} ms, ours {ours[rank]:.3f} ms")
    if sorted(int(r) for r in exact["busy_us"]) != sorted(ours):
        failures.append(f"ranks: HTA {sorted(exact['busy_us'])}, ours {sorted(ours)}")
    print("HTA idle time categories:", ", ".join(exact["idle_categories"]))
    print("HTA kernel breakdown (us):",
          ", ".join(f"{k} {v:.1f}" for k, v in sorted(exact["kernel_us"].items())))
    print("HTA communication/computation overlap (%):", exact["overlap"])
    if failures:
        print("FAILED:", "; ".join(failures))
        return 1
    print("HTA read every rank; its GPU busy time equals rocprof-merge's within 1 %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
