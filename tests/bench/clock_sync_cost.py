#!/usr/bin/env python3
"""Cost of the clock synchronisation at MPI_Init for 2..N ranks, oversubscribed on this
machine. Two layouts:
  shared   all ranks in one time namespace (as ranks of one host: one group, no ping-pong)
  separate every rank in a time namespace of its own (as one rank per host: every rank a
           group leader, log2(ranks) rounds of ping-pongs)
For each run, the duration of the init-time `rocprof_mpi_clock_sync` call is read from every
rank file; the table shows the slowest rank (median over REPEATS runs).

Usage: clock_sync_cost.py BUILD_DIR [MAX_RANKS] [REPEATS]
"""
import os
import statistics
import subprocess
import sys
import tempfile

import h5py
import hdf5plugin  # noqa: F401


def run(build, ranks, layout, out):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    program = ["env", f"LD_PRELOAD={build}/lib/librocprof-mpi-pmpi.so",
               f"ROCPROF_MPI_OUTPUT_DIR={out}", f"{build}/tests/mpi_patterns", "clock"]
    command = ["mpirun", "--oversubscribe"]
    for rank in range(ranks):
        if rank:
            command.append(":")
        command += ["-np", "1"] + (["unshare", "-T"] if layout == "separate" else []) + program
    subprocess.run(command, env=env, check=True, capture_output=True, text=True, timeout=600)
    slowest = 0
    for rank in range(ranks):
        with h5py.File(os.path.join(out, f"{rank}.h5"), "r") as f:
            strings = f["strings"].asstr()[:]
            names = strings[f["mpi_calls"]["function"][:]]
            begins = f["mpi_calls"]["begin_ns"][:][names == "rocprof_mpi_clock_sync"]
            ends = f["mpi_calls"]["end_ns"][:][names == "rocprof_mpi_clock_sync"]
            slowest = max(slowest, int(ends[0] - begins[0]))  # the one at MPI_Init
    return slowest


def main():
    build = os.path.abspath(sys.argv[1])
    h5py.h5pl.prepend(os.path.join(build, "hdf5-plugins").encode())
    max_ranks = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    print(f"{'ranks':>5} {'shared clock us':>16} {'separate clocks us':>19}")
    ranks = 2
    while ranks <= max_ranks:
        row = []
        for layout in ("shared", "separate"):
            samples = []
            for i in range(repeats):
                with tempfile.TemporaryDirectory() as tmp:
                    samples.append(run(build, ranks, layout, os.path.join(tmp, "out")))
            row.append(statistics.median(samples) / 1000)
        print(f"{ranks:>5} {row[0]:>16.1f} {row[1]:>19.1f}", flush=True)
        ranks *= 2


if __name__ == "__main__":
    main()
