#!/usr/bin/env python3
"""GPU test of the roctracer API's CUDA domains (needs an NVIDIA GPU; exit 77 = skipped).

Runs cuda_roctracer_client (a roctracer client of the CUDA domains that checks what it is
told) on its own, then under `rocprof-mpi --cuda-trace`: the recorder and the client then
share the process's one CUPTI subscription, and both must see every kernel.

usage: check_roctracer_client.py LAUNCHER CLIENT REPORT WORK_DIR [KERNELS_PER_STREAM]"""

import glob
import os
import shutil
import subprocess
import sys

from gpu_check import SKIP, Checks, no_gpu_reason


def main():
    launcher, client, report, work = sys.argv[1:5]
    kernels = int(sys.argv[5]) if len(sys.argv) > 5 else 20
    if (reason := no_gpu_reason()) is not None:
        print(f"SKIPPED: {reason}")
        return SKIP
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
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
    files = glob.glob(os.path.join(out, "*.h5"))
    if check(len(files) == 1, f"one rank file ({files})"):
        rows = subprocess.run([report, files[0]], check=True, capture_output=True,
                              text=True).stdout.splitlines()
        recorded = sum(1 for line in rows if line.startswith("activity KERNEL"))
        # 2 streams of kernels, and a graph of 3 kernels launched twice.
        check(recorded == 2 * kernels + 6, f"the recorder kept the kernels too ({recorded})")
    return check.exit_code()


if __name__ == "__main__":
    sys.exit(main())
