#!/usr/bin/env python3
"""A short text summary of a directory of rank files (until rocprof-merge, issue #6, gives
the full one): per rank, MPI calls and time in MPI, the top MPI functions, and ROC-TX ranges
with count and total time.

Usage: /usr/bin/python3 scripts/trace_summary.py TRACE_DIR [PLUGIN_DIR]"""
import collections
import os
import sys

import h5py
import numpy
import hdf5plugin  # noqa: F401


def ranges(f, strings):
    """(name, duration_ns) of each completed push/pop range."""
    ops = f["markers/op"][:]
    ids = f["markers/id"][:]
    times = f["markers/timestamp_ns"][:]
    messages = f["markers/message"][:]
    opened = {}
    for op, range_id, time, message in zip(ops, ids, times, messages):
        if op == 1:
            opened[int(range_id)] = (strings[message], int(time))
        elif op == 2 and int(range_id) in opened:
            name, start = opened.pop(int(range_id))
            yield name, int(time) - start


def main():
    directory = sys.argv[1]
    if len(sys.argv) > 2:
        h5py.h5pl.prepend(sys.argv[2].encode())
    files = sorted((int(n[:-3]), n) for n in os.listdir(directory)
                   if n.endswith(".h5") and n[:-3].isdigit())
    print(f"{len(files)} rank files in {directory}")
    print(f"{'rank':>4} {'host':<10} {'MPI calls':>9} {'in MPI ms':>10}  top MPI functions (ms)")
    regions = collections.defaultdict(lambda: [0, 0])
    for rank, name in files:
        with h5py.File(os.path.join(directory, name), "r", locking=False) as f:
            strings = f["strings"].asstr()[:]
            # One row per call: Waitall & co. add a row per request with the call's external id.
            _, first = numpy.unique(f["mpi_calls/external_id"][:], return_index=True)
            functions = strings[f["mpi_calls/function"][:][first]]
            durations = (f["mpi_calls/end_ns"][:] - f["mpi_calls/begin_ns"][:])[first]
            per_function = collections.Counter()
            for function, duration in zip(functions, durations):
                per_function[function] += int(duration)
            top = ", ".join(f"{fn} {ns / 1e6:.2f}" for fn, ns in per_function.most_common(3))
            print(f"{rank:>4} {f.attrs['hostname'][:10]:<10} {len(functions):>9} "
                  f"{durations.sum() / 1e6:>10.2f}  {top}")
            for region, duration in ranges(f, strings):
                regions[region][0] += 1
                regions[region][1] += duration
    print(f"{'ROC-TX range':<16} {'count':>7} {'total ms':>9}   (all ranks)")
    for region, (count, total) in sorted(regions.items(), key=lambda item: -item[1][1]):
        print(f"{region:<16} {count:>7} {total / 1e6:>9.2f}")


if __name__ == "__main__":
    main()
