#!/usr/bin/env python3
"""GPU counters through NVML (rocprofiler v2 device profiling sessions): while one long kernel
keeps every SM busy, GPU utilisation is above 90 %, the board draws more power than idle and
the SM clock is not lower; device memory in use and the temperature are read.

Then the program written from the seed page alone (tests/device/device_profiling_seed.c)
samples the GPU's counters through NVML.

Usage: check_device_counters.py CUDA_BUSY_COUNTERS SEED_PROGRAM   (exit 77 where no NVIDIA GPU
is)"""
import re
import subprocess
import sys

from gpu_check import SKIP, no_gpu_reason


def main():
    reason = no_gpu_reason()
    if reason is not None:
        print(f"SKIPPED: {reason}")
        return SKIP
    run = subprocess.run([sys.argv[1]], capture_output=True, text=True, timeout=120)
    print(run.stdout, end="")
    if run.returncode != 0:
        print(f"FAILED: {sys.argv[1]} exited {run.returncode}: {run.stderr.strip()}")
        return 1
    phases = {}
    for line in run.stdout.splitlines():
        phase, *values = line.split()
        phases[phase] = {k: float(v) for k, v in (value.split("=") for value in values)}
    idle, busy = phases["idle"], phases["busy"]
    checks = [
        ("GPU utilisation above 90 % during the kernel", busy["GPU_UTIL"] > 90),
        ("GPU utilisation idle below busy", idle["GPU_UTIL"] < busy["GPU_UTIL"]),
        ("more power during the kernel", busy["GPU_POWER"] > idle["GPU_POWER"]),
        ("SM clock not lower during the kernel", busy["GPU_SM_CLOCK"] >= idle["GPU_SM_CLOCK"]),
        ("device memory in use read", busy["GPU_MEM_USED"] > 0),
        ("a temperature read", 10 < busy["GPU_TEMPERATURE"] < 120),
    ]
    seed = subprocess.run([sys.argv[2], "GPU_UTIL", "GPU_POWER", "GPU_SM_CLOCK", "GPU_MEM_USED"],
                          capture_output=True, text=True, timeout=60)
    print(seed.stdout, end="")
    polls = [line for line in seed.stdout.splitlines() if line.startswith("poll ")]
    last = {name: float(value) for name, value in
            re.findall(r"(\w+) = ([0-9.]+)", polls[-1])} if polls else {}
    checks.append(("the seed program polls NVML three times and destroys its session",
                   seed.returncode == 0 and len(polls) == 3 and "destroyed" in seed.stdout))
    checks.append(("the seed program reads power and memory in use",
                   last.get("GPU_POWER", 0) > 10 and last.get("GPU_MEM_USED", 0) > 0))
    failed = 0
    for name, ok in checks:
        print(f"{'ok' if ok else 'FAILED'}: {name}")
        failed += not ok
    print(f"{len(checks) - failed} of {len(checks)} checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
