#!/usr/bin/env python3
"""What tracing adds to a whole MPI job's wall time, and where it goes, side by side in one
run. A short MPI program runs plain, under `rocprof-mpi --marker-trace` (the launcher and the
recorder, no MPI layer), under `rocprof-mpi --mpi-trace` and, with --against, under another
build's launcher with --mpi-trace. The configurations alternate, ROUNDS times each.

Printed per configuration: the median wall time of the whole `mpirun` and its difference to
plain; with the bundled tests/mpi_job_phases (the default program), the medians of its
phases, each the slowest rank's: start-up (the script's launch to the rank's main), MPI_Init,
the work, MPI_Finalize, and exit (the last main's end to mpirun's exit).

Usage: job_fixed_cost.py BUILD_DIR [--against LAUNCHER] [--rounds N] [--ranks N] [--bind]
                         [-- PROGRAM ARGS...]
BUILD_DIR holds bin/rocprof-mpi and tests/mpi_job_phases (a build tree or a GPU-test pack).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

PHASES = ("start-up", "MPI_Init", "work", "MPI_Finalize", "exit")


def mpirun(ranks, bind):
    command = ["mpirun", "--oversubscribe", "-np", str(ranks)]
    command += ["--bind-to", "core", "--map-by", "core"] if bind else ["--bind-to", "none"]
    return command


def run(command, cwd):
    """Wall seconds, and the phases in seconds when the program printed them."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    launched_ns = time.time_ns()
    started = time.monotonic()
    result = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.monotonic() - started
    ended_ns = time.time_ns()
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({result.returncode}):\n"
                         f"{result.stdout[-2000:]}{result.stderr[-2000:]}")
    ranks = [list(map(int, line.split()[2:])) for line in result.stdout.splitlines()
             if line.startswith("phases ")]
    if not ranks:
        return wall, None
    phases = (max(r[0] for r in ranks) - launched_ns, max(r[1] for r in ranks),
              max(r[2] for r in ranks), max(r[3] for r in ranks),
              ended_ns - max(r[4] for r in ranks))
    return wall, [ns / 1e9 for ns in phases]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--against", help="another build's rocprof-mpi, run with --mpi-trace")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--bind", action="store_true", help="bind each rank to a core")
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    build = os.path.abspath(args.build)
    launcher = os.path.join(build, "bin", "rocprof-mpi")
    program = argv[split + 1:] or [os.path.join(build, "tests", "mpi_job_phases"), "1000"]
    configs = {"plain": [], "recorder": [launcher, "--marker-trace"],
               "mpi": [launcher, "--mpi-trace"]}
    if args.against:
        configs["against"] = [os.path.abspath(args.against), "--mpi-trace"]
    samples = {name: [] for name in configs}
    with tempfile.TemporaryDirectory(prefix="fixed_cost_") as tmp:
        for round_ in range(args.rounds):
            for name, prefix in configs.items():
                command = mpirun(args.ranks, args.bind)
                if prefix:
                    command += [*prefix, "-d", os.path.join(tmp, f"{name}{round_}"), "--"]
                samples[name].append(run(command + program, tmp))
    print(f"{args.ranks} ranks{' bound to cores' if args.bind else ''}, {args.rounds} "
          f"alternated rounds: {' '.join(program)}")
    plain = statistics.median(wall for wall, _ in samples["plain"])
    with_phases = all(phases is not None for runs in samples.values() for _, phases in runs)
    print(f"{'config':>10} {'median s':>9} {'- plain s':>10}" +
          ("".join(f" {name:>13}" for name in PHASES) if with_phases else ""))
    for name, runs in samples.items():
        median = statistics.median(wall for wall, _ in runs)
        line = f"{name:>10} {median:>9.3f} {median - plain:>+10.3f}"
        if with_phases:
            line += "".join(f" {statistics.median(p[i] for _, p in runs):>13.4f}"
                            for i in range(len(PHASES)))
        print(line)
    if with_phases:
        print("phases: medians of the slowest rank's seconds")


if __name__ == "__main__":
    main()
