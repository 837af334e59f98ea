#!/usr/bin/env python3
"""SIGKILL at seeded random moments against the recorder's promise (docs/RECORDER.md): a rank
killed at any moment leaves a file that stock HDF5 (h5py, h5dump) and our reader
(rank_file_dump) read whole, holding every range recorded up to one flush interval before
the kill, with the machine idle or loaded by busy processes. A kill that falls inside a
flush (the recorder logs each flush's start and end: ROCPROF_MPI_FLUSH_LOG) may instead
leave a file our reader refuses, naming it, or that stock HDF5 reads only partly, as the
promise says. Such kills are counted; if more than a quarter of the random kills fall
inside flushes, the run fails. `--flush-kills` adds kills aimed inside flushes, to check
what they leave.

Each case runs `traced_app rate RATE` under the recorder, kills it with SIGKILL at a random
moment, then checks the file. Cases cycle through the rates and loads given. Prints one line
per failure and ends with "N passed, N failed". Exit status 1 if any case failed.

    kill_stress.py --app build/tests/traced_app --recorder build/lib/librocprof-mpi.so \\
        --dump build/tests/rank_file_dump --plugins build/hdf5-plugins \\
        --kills 240 --rates 60000,2000000 --loads 0,3 --seed 1
"""

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import h5py
import hdf5plugin  # noqa: F401  (Debian's build: the plugins' path)
import numpy as np


def parse():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--app", required=True)
    parser.add_argument("--recorder", required=True)
    parser.add_argument("--dump", required=True)
    parser.add_argument("--plugins", required=True)
    parser.add_argument("--lib-dir", default="")
    parser.add_argument("--kills", type=int, default=24)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rates", default="60000,2000000",
                        help="ranges a second, comma-separated; 0 records flat out")
    parser.add_argument("--loads", default="0,3",
                        help="busy processes beside the traced one, comma-separated")
    parser.add_argument("--cases", default="",
                        help="RATE:LOAD pairs, comma-separated, to cycle through instead of "
                             "every rate with every load")
    parser.add_argument("--interval-ms", type=int, default=200,
                        help="ROCPROF_MPI_FLUSH_INTERVAL of the traced process")
    parser.add_argument("--earliest", type=float, default=0.3,
                        help="earliest kill, seconds after the first range")
    parser.add_argument("--latest", type=float, default=1.5,
                        help="latest kill, seconds after the first range")
    parser.add_argument("--slack-ms", type=int, default=100,
                        help="allowed beyond one flush interval: the flush's own time and the "
                             "scheduler's delay in waking the writer")
    parser.add_argument("--flush-kills", type=int, default=0,
                        help="kills aimed inside a flush besides the random ones, on an idle "
                             "machine: each waits for the flush log to show a flush begun, "
                             "then kills; none landing inside fails the run")
    parser.add_argument("--keep", help="copy the files of failed cases here")
    return parser.parse_args()


def boottime_ns():
    return time.clock_gettime_ns(time.CLOCK_BOOTTIME)


def start_load(count):
    return [subprocess.Popen(["/bin/sh", "-c", "while :; do :; done"]) for _ in range(count)]


def stop_load(processes):
    for process in processes:
        process.kill()
    for process in processes:
        process.wait()


def killed_in_flush(log):
    """Whether the flush log (one "begin NS" or "end NS" line per event) ends inside a flush."""
    try:
        with open(log) as lines:
            last = lines.read().split("\n")[-2:-1]
    except FileNotFoundError:
        return False
    return bool(last) and last[0].startswith("begin ")


def check_file(args, path, killed_at_ns):
    """Returns a list of problems with the file (empty: the promise held) and its figures,
    among them whether our reader read it or refused it naming the file."""
    problems = []
    figures = {}
    dump = subprocess.run([args.dump, path], capture_output=True, text=True,
                          env=dict(os.environ, HDF5_PLUGIN_PATH=args.plugins))
    figures["refused_by_name"] = dump.returncode != 0 and path in dump.stderr
    figures["reader_ok"] = dump.returncode == 0
    if dump.returncode != 0:
        problems.append(f"rank_file_dump exit {dump.returncode}: {dump.stderr.strip()[:300]}")
    # Stock h5dump: the structure, and the last rows of the markers (the chunks a kill
    # threatens; dumping millions of rows as text would take minutes). h5py below decodes
    # every chunk with stock HDF5.
    plugin_env = dict(os.environ, HDF5_PLUGIN_PATH=args.plugins)
    h5dump = subprocess.run(["h5dump", "-H", path], capture_output=True, text=True,
                            env=plugin_env)
    if h5dump.returncode != 0:
        problems.append(f"h5dump -H exit {h5dump.returncode}: {h5dump.stderr.strip()[:300]}")
    try:
        with h5py.File(path, "r", locking=False) as f:
            for name in f:
                if isinstance(f[name], h5py.Dataset):
                    f[name][:]  # every chunk decodes
            figures["dropped"] = int(f.attrs["records_dropped"])
            interval_ns = int(f.attrs["flush_interval_ms"]) * 1_000_000
            markers = f.get("markers")
            if markers is None:
                problems.append("no markers table")
                return problems, figures
            rows = markers[:]
    except Exception as error:  # noqa: BLE001  (any failure to read is the finding)
        problems.append(f"h5py: {type(error).__name__}: {error}")
        return problems, figures
    if len(rows):
        first = max(0, len(rows) - 20000)
        tail = subprocess.run(["h5dump", "-d", f"/markers[{first};;{len(rows) - first};]",
                               "-o", "/dev/null", path], capture_output=True, text=True,
                              env=plugin_env)
        if tail.returncode != 0:
            problems.append(f"h5dump of the last markers exit {tail.returncode}: "
                            f"{tail.stderr.strip()[:300]}")
    ops = rows["op"]
    figures["rows"] = len(rows)
    # One thread records push, pop, push, pop...: a gap would break the alternation.
    expected = np.where(np.arange(len(ops)) % 2 == 0, 1, 2)
    if not np.array_equal(ops, expected):
        problems.append("markers do not alternate push/pop: rows lost in the middle")
    if np.any(np.diff(rows["timestamp_ns"].astype(np.int64)) < 0):
        problems.append("marker times go backwards")
    last = int(rows["timestamp_ns"][-1]) if len(rows) else 0
    lost_ns = killed_at_ns - last
    figures["lost_ms"] = lost_ns / 1e6
    if lost_ns > interval_ns + args.slack_ms * 1_000_000:
        problems.append(f"lost {lost_ns / 1e6:.0f} ms before the kill "
                        f"(flush interval {interval_ns / 1e6:.0f} ms)")
    if figures["dropped"]:
        problems.append(f"{figures['dropped']} records dropped")
    return problems, figures


def wait_for_flush(log, limit_s):
    """Returns once the flush log shows a flush begun and not ended (True), or after
    `limit_s` (False)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if killed_in_flush(log):
            return True
    return False


def run_case(args, work, rate, load, delay, aim=False):
    out = os.path.join(work, "out")
    shutil.rmtree(out, ignore_errors=True)
    flushes = os.path.join(work, "flushes")
    if os.path.exists(flushes):
        os.remove(flushes)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ROCPROF_MPI_", "OMPI_"))}
    env.update(LD_PRELOAD=args.recorder, ROCPROF_MPI_OUTPUT_DIR=out,
               ROCPROF_MPI_FLUSH_INTERVAL=f"{args.interval_ms}ms",
               ROCPROF_MPI_DOMAINS="roctx", ROCPROF_MPI_FLUSH_LOG=flushes)
    if args.lib_dir:
        env["LD_LIBRARY_PATH"] = args.lib_dir
    busy = start_load(load)
    try:
        app = subprocess.Popen([args.app, "rate", str(rate)], env=env, stdout=subprocess.PIPE,
                               text=True)
        line = app.stdout.readline()
        if line != "started\n":
            app.kill()
            app.wait()
            return [f"the app did not start: {line!r}"], {}, out
        time.sleep(delay)
        if aim:
            wait_for_flush(flushes, 2.0)  # if none is seen, the kill falls where it may
        killed_at = boottime_ns()
        app.send_signal(signal.SIGKILL)
        app.wait()
    finally:
        stop_load(busy)
    files = os.listdir(out)
    if len(files) != 1:
        return [f"expected one file, found {files}"], {}, out
    problems, figures = check_file(args, os.path.join(out, files[0]), killed_at)
    figures["in_flush"] = killed_in_flush(flushes)
    return problems, figures, out


def within_flush_window(problems, figures):
    """Whether a kill inside a flush left what the promise allows there: our reader refuses
    the file naming it, or reads it and only stock HDF5 reads it partly."""
    if not figures.get("in_flush"):
        return False
    if figures.get("refused_by_name"):
        return True
    return figures.get("reader_ok", False) and all(
        p.startswith(("h5py:", "h5dump")) for p in problems)


def main():
    args = parse()
    h5py.h5pl.prepend(args.plugins.encode())
    if args.cases:
        cases = [tuple(int(v) for v in pair.split(":")) for pair in args.cases.split(",")]
    else:
        cases = [(int(r), int(n)) for n in args.loads.split(",") for r in args.rates.split(",")]
    generator = random.Random(args.seed)
    passed = failed = in_flush = aimed = in_flush_damaged = 0
    worst = {}
    with tempfile.TemporaryDirectory(prefix="kill_stress_") as work:
        for case in range(args.kills + args.flush_kills):
            rate, load = cases[case % len(cases)]
            delay = generator.uniform(args.earliest, args.latest)
            aim = case >= args.kills
            if aim:
                load = 0  # busy processes starve the poll that aims the kill
            problems, figures, out = run_case(args, work, rate, load, delay, aim)
            if figures.get("in_flush"):
                if aim:
                    aimed += 1
                else:
                    in_flush += 1
            key = (rate, load)
            if "lost_ms" in figures:
                worst[key] = max(worst.get(key, 0.0), figures["lost_ms"])
            if problems and within_flush_window(problems, figures):
                in_flush_damaged += 1
                print(f"case {case}: rate {rate}/s, load {load}, kill at {delay:.3f} s, inside "
                      "a flush (allowed): " + "; ".join(problems), flush=True)
                passed += 1
            elif problems:
                failed += 1
                print(f"case {case}: rate {rate}/s, load {load}, kill at {delay:.3f} s: "
                      + "; ".join(problems), flush=True)
                if args.keep:
                    target = os.path.join(args.keep, f"case{case}")
                    shutil.copytree(out, target, dirs_exist_ok=True)
            else:
                passed += 1
    for (rate, load), lost in sorted(worst.items()):
        print(f"rate {rate}/s, load {load}: at most {lost:.0f} ms lost before a kill")
    print(f"{in_flush} of {args.kills} random kills fell inside a flush; {aimed} of "
          f"{args.flush_kills} aimed kills did; {in_flush_damaged} kills inside a flush left a "
          "file our reader refused or stock HDF5 read partly")
    if args.flush_kills and aimed == 0:
        failed += 1
        print("no aimed kill fell inside a flush: they tested nothing")
    if in_flush * 4 > args.kills:
        failed += 1
        print("more than a quarter of the kills fell inside a flush: flushes take too long")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
