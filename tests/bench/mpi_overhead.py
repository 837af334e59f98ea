#!/usr/bin/env python3
"""What the PMPI wrappers add to MPI latency, measured in one run: mpi_pingpong (2 ranks) is
run alternately without and with LD_PRELOAD of librocprof-mpi-pmpi.so, ROUNDS times each;
the medians of each configuration and their ratio are printed with the added one-way time;
then the cost of a wrapped call by itself (calls that return at once, no peer to wait for).

Usage: mpi_overhead.py BUILD_DIR [ROUNDS]
"""
import os
import statistics
import subprocess
import sys
import tempfile


def run(build, traced, out):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    command = ["mpirun", "--oversubscribe", "-np", "2", "--bind-to", "core"]
    if traced:
        command += ["-x", f"LD_PRELOAD={build}/lib/librocprof-mpi-pmpi.so",
                    "-x", f"ROCPROF_MPI_OUTPUT_DIR={out}"]
    command += [f"{build}/tests/mpi_pingpong", "20000", "7"]
    text = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    results = {}
    for line in text.splitlines():
        kind, key, ns = line.split()
        results[int(key) if kind == "pingpong" else key] = float(ns)
    return results


def main():
    build = os.path.abspath(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    samples = {False: [], True: []}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(rounds):
            for traced in (False, True):
                samples[traced].append(run(build, traced, os.path.join(tmp, f"{i}")))
    print(f"{'bytes':>6} {'plain ns':>10} {'wrapped ns':>11} {'ratio':>6} {'added per call ns':>18}")
    for size in (8, 65536):
        plain = statistics.median(s[size] for s in samples[False])
        wrapped = statistics.median(s[size] for s in samples[True])
        print(f"{size:>6} {plain:>10.1f} {wrapped:>11.1f} {wrapped / plain:>6.3f} "
              f"{(wrapped - plain):>18.1f}")
    print(f"{'call':<20} {'plain ns':>10} {'wrapped ns':>11} {'added ns':>9}")
    for name in ("MPI_Send_PROC_NULL", "MPI_Comm_rank"):
        plain = statistics.median(s[name] for s in samples[False])
        wrapped = statistics.median(s[name] for s in samples[True])
        print(f"{name:<20} {plain:>10.1f} {wrapped:>11.1f} {wrapped - plain:>9.1f}")


if __name__ == "__main__":
    main()
