#!/usr/bin/env python3
"""What MPI tracing adds to MPI latency, measured side by side in one run: mpi_pingpong (2 ranks,
each bound to a core) runs plain, under our PMPI layer with the recorder's helper threads free
to use any CPU (`all`, the default), kept on the rank's core (`rank`), and with `all` but
timed by clock_gettime instead of the TSC (`clock`), and, when a Caliper
library is given, under Caliper's `event-trace,trace.mpi`. The configurations alternate,
ROUNDS times each; medians and their ratios to plain are printed, then the cost of a wrapped
call by itself (calls that return at once, no peer to wait for).

Usage: mpi_overhead.py BUILD_DIR [ROUNDS] [--caliper LIBCALIPER_SO]
BUILD_DIR holds lib/librocprof-mpi-pmpi.so and tests/mpi_pingpong (a build tree or a pack).
"""
import argparse
import os
import statistics
import subprocess
import tempfile


def run(build, config, out, caliper):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    command = ["mpirun", "--oversubscribe", "-np", "2", "--bind-to", "core", "--map-by", "core"]
    if config.startswith("ours"):
        variant = config.split("-", 1)[1]
        command += ["-x", f"LD_PRELOAD={build}/lib/librocprof-mpi-pmpi.so",
                    "-x", f"ROCPROF_MPI_OUTPUT_DIR={out}",
                    "-x", f"ROCPROF_MPI_HELPER_CPUS={'rank' if variant == 'rank' else 'all'}",
                    "-x", "ROCPROF_MPI_TIMESTAMPS="
                    f"{'clock_gettime' if variant == 'clock' else 'auto'}"]
    elif config == "caliper":
        command += ["-x", f"LD_PRELOAD={caliper}", "-x", "CALI_CONFIG=event-trace,trace.mpi",
                    "-x", f"CALI_RECORDER_FILENAME={out}/%mpi.rank%.cali"]
    command += [f"{build}/tests/mpi_pingpong", "20000", "7"]
    text = subprocess.run(command, env=env, check=True, capture_output=True, text=True,
                          cwd=out).stdout
    results = {}
    for line in text.splitlines():
        if not line.startswith(("pingpong ", "call ")):
            continue
        kind, key, ns = line.split()
        results[int(key) if kind == "pingpong" else key] = float(ns)
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("rounds", nargs="?", type=int, default=5)
    parser.add_argument("--caliper", help="libcaliper.so built with -DWITH_MPI=On")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    configs = ["plain", "ours-all", "ours-rank", "ours-clock"] + \
        (["caliper"] if args.caliper else [])
    samples = {config: [] for config in configs}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.rounds):
            for config in configs:
                out = os.path.join(tmp, f"{config}{i}")
                os.makedirs(out)
                samples[config].append(run(build, config, out, args.caliper))
    median = {config: {key: statistics.median(s[key] for s in runs) for key in runs[0]}
              for config, runs in samples.items()}
    print(f"medians of {args.rounds} alternated runs; ns per half round trip (ratio to plain)")
    print(f"{'bytes':>6} " + " ".join(f"{config:>18}" for config in configs))
    for size in (8, 65536):
        plain = median["plain"][size]
        print(f"{size:>6} " + " ".join(
            f"{median[c][size]:>10.1f} ({median[c][size] / plain:5.3f})" for c in configs))
    print("ns per call that returns at once")
    for name in (key for key in median["plain"] if isinstance(key, str)):
        print(f"{name:<20} " + " ".join(f"{median[c][name]:>10.1f}" for c in configs))


if __name__ == "__main__":
    main()
