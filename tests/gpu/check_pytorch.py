#!/usr/bin/env python3
"""GPU test with a real application nobody here wrote: a PyTorch program under
`rocprof-mpi --cuda-trace`, merged to .pftrace; its kernels must be recorded and named.
Exit 77 (skipped, with the reason) without a GPU or PyTorch.

usage: check_pytorch.py LAUNCHER MERGE PROGRAM WORK_DIR"""

import glob
import os
import shutil
import subprocess
import sys

SKIP = 77


def main():
    launcher, merge, program, work = sys.argv[1:5]
    if subprocess.run([sys.executable, "-c", "import torch; assert torch.cuda.is_available()"],
                      capture_output=True).returncode != 0:
        print("SKIPPED: no PyTorch with a CUDA GPU here")
        return SKIP
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    out = os.path.join(work, "trace")
    traced = subprocess.run([launcher, "--cuda-trace", "-d", out, "--", sys.executable, program],
                            capture_output=True, text=True)
    print(traced.stdout.strip())
    if traced.returncode != 0:
        print(f"FAIL traced run: {traced.stderr[-1000:]}")
        return 1
    files = glob.glob(os.path.join(out, "*.h5"))
    merged = subprocess.run([merge, out, "-o", os.path.join(work, "torch.pftrace")],
                            capture_output=True, text=True)
    if merged.returncode != 0 or len(files) != 1:
        print(f"FAIL merge ({len(files)} files): {merged.stderr[-1000:]}")
        return 1
    summary = merged.stdout
    gpu = summary[summary.find("GPU:"):]
    print(gpu[:1500])
    rows = [line for line in gpu.splitlines()[1:] if line.startswith("  ")]
    named = [line for line in rows if "unnamed" not in line and not line.strip().startswith(
        ("memcpy", "copy"))]
    if not named:
        print("FAIL no named kernel in the summary")
        return 1
    print(f"PASSED: {len(named)} named kernels among the top rows; "
          f"{os.path.getsize(os.path.join(work, 'torch.pftrace'))} bytes of .pftrace")
    return 0


if __name__ == "__main__":
    sys.exit(main())
