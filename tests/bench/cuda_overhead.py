#!/usr/bin/env python3
"""CUDA tracing overhead: the same program plain, under a minimal CUPTI client (the floor any
CUPTI-based tracer pays) and under `rocprof-mpi --cuda-trace`, alternated in one run.

usage: cuda_overhead.py LAUNCHER BENCH_PROGRAM CUPTI_MINIMAL_LIB [REPEATS]
Prints, per workload, the median seconds of each variant, the ratios and the added cost per
launch in microseconds."""

import os
import statistics
import subprocess
import sys
import tempfile

WORKLOADS = [("launch", 100000), ("compute", 200)]


def run(command, env=None):
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        raise SystemExit(f"{command} failed: {result.stderr}")
    return float(result.stdout.split()[-1])


def main():
    launcher, program, minimal = sys.argv[1:4]
    repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    out = tempfile.mkdtemp(prefix="cuda_overhead_")
    print(f"{'workload':10} {'launches':>9} {'plain s':>9} {'CUPTI s':>9} {'ours s':>9} "
          f"{'ours/CUPTI':>10} {'ours/plain':>10} {'+us/launch vs CUPTI':>20}")
    for mode, count in WORKLOADS:
        times = {"plain": [], "cupti": [], "ours": []}
        for i in range(repeats):
            times["plain"].append(run([program, mode, str(count)]))
            times["cupti"].append(run([program, mode, str(count)],
                                      dict(os.environ, LD_PRELOAD=minimal)))
            times["ours"].append(run([launcher, "--cuda-trace", "-d", f"{out}/{mode}{i}", "--",
                                      program, mode, str(count)]))
        plain, cupti, ours = (statistics.median(times[k]) for k in ("plain", "cupti", "ours"))
        print(f"{mode:10} {count:9d} {plain:9.4f} {cupti:9.4f} {ours:9.4f} {ours / cupti:10.3f} "
              f"{ours / plain:10.3f} {1e6 * (ours - cupti) / count:20.3f}")


if __name__ == "__main__":
    main()
