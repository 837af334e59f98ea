#!/usr/bin/env python3
"""The recorder under load: ROC-TX bursts from 1, 4 and 16 threads (roctx_burst), plain and
under `rocprof-mpi --marker-trace`, alternated in one run.

usage: recorder_load.py LAUNCHER ROCTX_BURST RANK_FILE_DUMP [--threads 1,4,16]
                        [--iterations 1000000] [--repeats 3] [--env NAME=VALUE ...]

Per thread count and workload: median ns per iteration per thread (plain and traced), records
produced and dropped (from the rank file), the traced process's CPU time per recorded event
(writer included), its peak resident memory and the file's size. Each --env setting is also
measured as a variant (for instance ROCPROF_POOL_MAX_BYTES=64M, the earlier default)."""

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile


def run(command, env):
    """(printed ns per iteration, CPU seconds, peak resident MiB) of one run of `command`."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env)
    output, errors = process.stdout.read(), process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{command} failed: {errors}")
    return float(output.split()[-1]), usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0


def dump(tool, directory):
    files = [os.path.join(directory, f) for f in os.listdir(directory) if f.endswith(".h5")]
    text = subprocess.run([tool, files[0]], check=True, capture_output=True, text=True).stdout
    values = dict(line.split(maxsplit=1) for line in text.splitlines() if " " in line)
    return int(values["markers"]), int(values["records_dropped"]), os.path.getsize(files[0])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("launcher")
    parser.add_argument("program")
    parser.add_argument("dump")
    parser.add_argument("--threads", default="1,4,16")
    parser.add_argument("--iterations", type=int, default=1000000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--env", action="append", default=[])
    args = parser.parse_args()
    variants = [("defaults", {})] + [(setting, dict([setting.split("=", 1)]))
                                     for setting in args.env]
    work = tempfile.mkdtemp(prefix="recorder_load_")
    print(f"{'workload':8} {'threads':>7} {'variant':>26} {'plain ns':>9} {'traced ns':>9} "
          f"{'produced':>10} {'dropped':>10} {'cpu ns/ev':>9} {'peak MiB':>8} {'file MB':>8}")
    for workload in ("pair", "burst"):
        per_iteration_events = 2 if workload == "pair" else 3
        for threads in (int(t) for t in args.threads.split(",")):
            command = [args.program, workload, str(threads), str(args.iterations)]
            for name, extra in variants:
                plain, traced, cpus, rss, dropped, sizes, produced = [], [], [], [], [], [], 0
                for repeat in range(args.repeats):
                    plain.append(run(command, dict(os.environ))[0])
                    out = os.path.join(work, f"{workload}{threads}{repeat}")
                    ns, cpu, peak = run([args.launcher, "--marker-trace", "-d", out, "--",
                                            *command], dict(os.environ, **extra))
                    traced.append(ns)
                    kept, lost, size = dump(args.dump, out)
                    produced = threads * args.iterations * per_iteration_events
                    cpus.append(1e9 * cpu / produced)
                    rss.append(peak)
                    dropped.append(lost)
                    sizes.append(size / 1e6)
                    shutil.rmtree(out)
                print(f"{workload:8} {threads:7d} {name:>26} {statistics.median(plain):9.1f} "
                      f"{statistics.median(traced):9.1f} {produced:10d} "
                      f"{int(statistics.median(dropped)):10d} {statistics.median(cpus):9.1f} "
                      f"{max(rss):8.0f} {statistics.median(sizes):8.1f}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
