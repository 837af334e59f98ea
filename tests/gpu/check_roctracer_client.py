#!/usr/bin/env python3
"""GPU test of the roctracer API's CUDA domains (needs an NVIDIA GPU; exit 77 = skipped).

Runs cuda_roctracer_client (a roctracer client of the CUDA domains that checks what it is
told) on its own, then under `rocprof-mpi --cuda-trace`: the recorder and the client then
share the process's one CUPTI subscription, and both must see every kernel. Then both again
with graph-level tracing (`--cuda-graph-trace graph`).

usage: check_roctracer_client.py LAUNCHER CLIENT REPORT WORK_DIR [KERNELS_PER_STREAM]"""

import collections
import glob
import os
import subprocess
import sys

from gpu_check import DEVICE, PINNED, SKIP, Checks, ready


def report_of(report, out, check):
    """The report lines of the one rank file under `out` ([] if it is not there)."""
    files = glob.glob(os.path.join(out, "*.h5"))
    if not check(len(files) == 1, f"one rank file ({files})"):
        return []
    return subprocess.run([report, files[0]], check=True, capture_output=True,
                          text=True).stdout.splitlines()


def main():
    launcher, client, report, work = sys.argv[1:5]
    kernels = int(sys.argv[5]) if len(sys.argv) > 5 else 20
    if not ready(work):
        return SKIP
    check = Checks()
    alone = subprocess.run([client, str(kernels)], capture_output=True, text=True)
    print(alone.stdout, end="")
    check(alone.returncode == 0, f"the client alone passes its checks ({alone.stderr.strip()})")
    out = os.path.join(work, "trace")
    shared = subprocess.run([launcher, "--cuda-trace", "-d", out, "--", client, str(kernels)],
                            capture_output=True, text=True)
    print(shared.stdout, end="")
    check(shared.returncode == 0,
          f"the client under rocprof-mpi --cuda-trace passes ({shared.stderr.strip()!r})")
    rows = report_of(report, out, check)
    # 2 streams of kernels, and a graph of 3 kernels launched twice.
    recorded = sum(1 for line in rows if line.startswith("activity KERNEL"))
    check(recorded == 2 * kernels + 6, f"the recorder kept the kernels too ({recorded})")
    # The client copies from and to pinned host memory.
    memory = collections.Counter(tuple(line.split()[1:2] + line.split()[3:5])
                                 for line in rows if line.startswith("memory "))
    expected = {("MEMCPY", str(PINNED), str(DEVICE)): 2, ("MEMCPY", str(DEVICE), str(PINNED)): 2,
                ("MEMSET", "0", str(DEVICE)): 2}
    check(memory == expected, f"copies name pinned host memory ({dict(memory)})")

    # Graph-level tracing: one record per graph launch, for the client and the recorder.
    alone = subprocess.run([client, str(kernels), "graph"], capture_output=True, text=True,
                           env=dict(os.environ, ROCPROF_MPI_CUDA_GRAPH_TRACE="graph"))
    print(alone.stdout, end="")
    check(alone.returncode == 0, f"graph-level: the client alone passes ({alone.stderr.strip()})")
    out = os.path.join(work, "graphs")
    shared = subprocess.run([launcher, "--cuda-trace", "--cuda-graph-trace", "graph", "-d", out,
                             "--", client, str(kernels), "graph"], capture_output=True, text=True)
    print(shared.stdout, end="")
    check(shared.returncode == 0,
          f"graph-level: the client under rocprof-mpi passes ({shared.stderr.strip()!r})")
    rows = report_of(report, out, check)
    by_op = collections.Counter(line.split()[1] for line in rows if line.startswith("activity "))
    launches = {line.split()[3] for line in rows
                if line.startswith("api ") and line.split()[2] == "cudaGraphLaunch"}
    graphs = [line.split()[4] for line in rows if line.startswith("activity GRAPH_LAUNCH")]
    check(by_op["KERNEL"] == 2 * kernels and len(graphs) == 2 and set(graphs) <= launches,
          f"graph-level: the recorder has 2 graph launches tied to their calls, "
          f"{2 * kernels} kernels ({dict(by_op)})")
    return check.exit_code()


if __name__ == "__main__":
    sys.exit(main())
