#!/usr/bin/python3
"""rocprof-merge throughput and peak memory on synthetic jobs (issue #6's benchmark).

Usage: /usr/bin/python3 tests/bench/merge_throughput.py BUILD_DIR [REPEATS] [SHAPE...]
                         [--procs 1,2] [--outputs .pftrace,.h5] [--against MERGE
                         [--against-synthetic SYNTHETIC_JOB]]
  SHAPE is RANKSxEVENTS (events per rank), default 64x1000000 and 1024x10000.
  --procs lists the numbers of merge processes (default 1 and 2), --outputs the formats.
  --against names another rocprof-merge (built at another commit, say): every configuration
  runs with both, one after the other, and the table adds its median and the ratio of the
  two (BUILD_DIR's over the other's), measured on the same jobs at the same moments.
  --merge-args gives the merge's options besides the job and -o (default --no-summary,
  which keeps the analysis, on by default); --against-args those of the merge compared with:
  with no --against, this build's own, so that one binary is compared with itself under
  other options (the analysis's cost: --merge-args "--no-summary" --against-args
  "--no-summary --no-analysis"). --against-env NAME=VALUE (repeatable) sets the
  environment of the merge compared with alone, likewise (every launched process merging
  against the merge's own choice: --against-env ROCPROF_MERGE_PROCESSES=all).
  --against-synthetic gives the other build's job generator: the other merge then reads the
  same shapes as that build writes them, for a build of an older rank-file format (one that
  cannot read this build's files).

For each shape it writes the job once (tests/tools/synthetic_job, into a temporary
directory), then merges it to .pftrace and .h5 serially and with 2 merge processes
(mpirun -np 2 --bind-to none), REPEATS times each (default 3), alternating the
configurations so that a slow moment of a noisy machine does not land on one of them. Reported per configuration: the
median wall time, input records per second per merge process (every row of every rank
file), timeline events per second, and the peak resident memory of the largest merge process.
"""

import argparse
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile


def input_records(job, build):
    """Rows of every table of every rank file: with h5py where it is installed, else with the
    format module's own dump tool (tests/rank_file_dump), which prints "table rows" lines."""
    total = 0
    try:
        import h5py
    except ImportError:
        h5py = None
    for name in os.listdir(job):
        path = os.path.join(job, name)
        if h5py is not None:
            with h5py.File(path, "r") as f:
                for name, table in f.items():
                    if isinstance(table, h5py.Dataset) and name not in ("strings",
                                                                        "command_line"):
                        total += table.shape[0]
                    elif isinstance(table, h5py.Group) and len(table) > 0:  # format 1
                        total += min(d.shape[0] for d in table.values())
            continue
        dump = subprocess.run([os.path.join(build, "tests", "rank_file_dump"), path],
                              capture_output=True, text=True, check=True).stdout
        for line in dump.splitlines():
            words = line.split()
            if len(words) == 2 and words[0] not in ("markers_read", "complete", "records_dropped",
                                                    "rank", "arguments", "last_argument"):
                total += int(words[1])
    return total


def run(merge, job, output, processes, merge_args=("--no-summary",), settings=()):
    # Each merge process under /usr/bin/time, writing to a file of its own (their stderr
    # would interleave).
    times = output + ".time"
    timed = ["sh", "-c", f'exec /usr/bin/time -o "{times}.${{OMPI_COMM_WORLD_RANK:-0}}" '
             '-f "peak_kb=%M wall_s=%e" "$@"', "sh", merge, job, "-o", output, *merge_args]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.update(setting.split("=", 1) for setting in settings)
    # Unbound: each merge process runs helper threads next to its own, and mpirun's default
    # binding for two processes (a core each) would leave them one CPU between them.
    command = timed if processes == 1 else ["mpirun", "--oversubscribe", "--bind-to", "none",
                                            "-np", str(processes), *timed]
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        sys.exit(f"merge failed: {result.stderr}")
    peaks, walls = [], []
    for index in range(processes):
        with open(f"{times}.{index}") as f:
            text = f.read()
        os.remove(f"{times}.{index}")
        peaks.append(int(re.search(r"peak_kb=(\d+)", text).group(1)))
        walls.append(float(re.search(r"wall_s=([\d.]+)", text).group(1)))
    events = int(re.search(r"(\d+) events ->", result.stdout).group(1))
    return max(walls), max(peaks), events


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("repeats", nargs="?", type=int, default=3)
    parser.add_argument("shapes", nargs="*", default=["64x1000000", "1024x10000"])
    parser.add_argument("--procs", default="1,2")
    parser.add_argument("--outputs", default=".pftrace,.h5")
    parser.add_argument("--against", help="another rocprof-merge to compare with")
    parser.add_argument("--against-synthetic", metavar="SYNTHETIC_JOB",
                        help="the job generator of --against's build: it then merges the same "
                             "shapes as that build writes them (an older rank-file format)")
    parser.add_argument("--merge-args", default="--no-summary",
                        help="rocprof-merge's options besides the job and -o (default: "
                             "--no-summary; the summary's cost: --summary-csv PREFIX)")
    parser.add_argument("--against-args",
                        help="the options of the merge compared with (--against's, or this "
                             "build's own rocprof-merge when --against is not given)")
    parser.add_argument("--against-env", action="append", default=[], metavar="NAME=VALUE",
                        help="an environment setting of the merge compared with alone "
                             "(repeatable): ROCPROF_MERGE_PROCESSES=all, say")
    args = parser.parse_args()
    build, repeats, shapes = args.build, args.repeats, args.shapes
    process_counts = [int(n) for n in args.procs.split(",")]
    outputs = args.outputs.split(",")
    merge = os.path.join(build, "bin", "rocprof-merge")
    synthetic = os.path.join(build, "tests", "synthetic_job")
    if (args.against_args is not None or args.against_env) and not args.against:
        args.against = merge
    merges = [merge] + ([args.against] if args.against else [])
    arguments = [shlex.split(args.merge_args),
                 shlex.split(args.against_args if args.against_args is not None
                             else args.merge_args)]
    print(f"{'job':>12} {'output':>8} {'procs':>5} {'median s':>9} {'records/s/proc':>15} "
          f"{'events/s':>12} {'peak MiB':>9}" + (f" {'against s':>10} {'ratio':>6} {'its MiB':>9}"
                                                 if args.against else ""))
    for shape in shapes:
        ranks, events = shape.split("x")
        with tempfile.TemporaryDirectory(prefix="merge_bench_", dir=os.environ.get("TMPDIR")) as tmp:
            job = os.path.join(tmp, "job")
            subprocess.run([synthetic, job, ranks, events], check=True)
            records = input_records(job, build)
            jobs = [job, job]
            if args.against_synthetic:
                jobs[1] = os.path.join(tmp, "against_job")
                subprocess.run([args.against_synthetic, jobs[1], ranks, events], check=True)
            configs = [(ext, procs) for ext in outputs for procs in process_counts]
            samples = {(config, m): [] for config in configs for m in range(len(merges))}
            for _ in range(repeats):
                for ext, procs in configs:
                    for m, binary in enumerate(merges):
                        output = os.path.join(tmp, "out" + ext)
                        samples[((ext, procs), m)].append(
                            run(binary, jobs[m], output, procs, arguments[m],
                                args.against_env if m == 1 else ()))
                        os.remove(output)
            for ext, procs in configs:
                runs = samples[((ext, procs), 0)]
                wall = statistics.median(r[0] for r in runs)
                peak = max(r[1] for r in runs) / 1024
                out_events = runs[0][2]
                line = (f"{shape:>12} {ext:>8} {procs:>5} {wall:>9.2f} "
                        f"{records / wall / procs / 1e6:>13.2f} M {out_events / wall / 1e6:>10.2f} M "
                        f"{peak:>9.0f}")
                if args.against:
                    other = statistics.median(r[0] for r in samples[((ext, procs), 1)])
                    other_peak = max(r[1] for r in samples[((ext, procs), 1)]) / 1024
                    line += f" {other:>10.2f} {wall / other:>6.2f} {other_peak:>9.0f}"
                print(line)
            print(f"{shape:>12}: {records} input records")


if __name__ == "__main__":
    main()
