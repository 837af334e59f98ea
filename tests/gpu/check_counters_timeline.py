#!/usr/bin/env python3
"""GPU test of device counters sampled under the launcher (needs an NVIDIA GPU; exit 77 =
skipped): cuda_busy_counters (idle 1.5 s, then one kernel keeping every SM busy for seconds)
under `rocprof-mpi --cuda-trace --device-counters ...`, merged to JSON. On the one timeline:
GPU utilisation above 90 % during the kernel (from a second into it, NVML's window), below
it before; more power and no lower SM clock during it. Then cuda_halo_mpi on 2 ranks with
the counters: the node's GPUs sampled once, by rank 0, and the summary's counter table.

usage: check_counters_timeline.py LAUNCHER MERGE BUSY HALO WORK_DIR"""

import csv
import json
import os
import statistics
import subprocess
import sys

from gpu_check import SKIP, Checks, ready

COUNTERS = "GPU_UTIL,GPU_POWER,GPU_SM_CLOCK,GPU_MEM_USED,CPU_UTIL"


def main():
    launcher, merge, busy, halo, work = sys.argv[1:6]
    if not ready(work, commands=("mpirun",)):
        return SKIP
    check = Checks()
    out = os.path.join(work, "busy")
    run = subprocess.run([launcher, "--cuda-trace", "--device-counters", COUNTERS,
                          "--counter-interval", "50ms", "-d", out, "--", busy],
                         capture_output=True, text=True, timeout=120)
    check(run.returncode == 0, f"traced cuda_busy_counters exits 0 ({run.stderr.strip()[-300:]})")
    if check.failures:
        return check.exit_code()
    trace = os.path.join(work, "busy.json")
    merged = subprocess.run([merge, out, "-o", trace, "-q"], capture_output=True, text=True)
    check(merged.returncode == 0, f"merged ({merged.stderr.strip()[-300:]})")
    if check.failures:
        return check.exit_code()
    with open(trace) as f:
        events = json.load(f)["traceEvents"]
    kernels = [e for e in events if e.get("ph") == "X" and "spin" in e.get("name", "")]
    check(len(kernels) == 1, f"the spin kernel on the timeline ({len(kernels)})")
    if check.failures:
        return check.exit_code()
    begin, end = kernels[0]["ts"], kernels[0]["ts"] + kernels[0]["dur"]
    series = {}
    for e in events:
        if e.get("ph") == "C":
            series.setdefault(e["name"].rsplit(" ", 1)[1], []).append((e["ts"], e["args"]["value"]))
    print(f"kernel {begin:.0f}..{end:.0f} us; counters: "
          + ", ".join(f"{k} {len(v)}" for k, v in sorted(series.items())))
    check(all(name in series for name in COUNTERS.split(",")), "every counter sampled")
    if check.failures:
        return check.exit_code()

    def during(name):  # from a second into the kernel (NVML's window) to its end
        return [v for t, v in series[name] if begin + 1e6 <= t <= end]

    def before(name):  # the idle second before the kernel
        return [v for t, v in series[name] if begin - 1.2e6 <= t <= begin - 0.1e6]

    util_during, util_before = during("GPU_UTIL"), before("GPU_UTIL")
    check(len(util_during) >= 10 and min(util_during) > 90,
          f"GPU_UTIL above 90 % during the kernel ({util_during[:5]}..., {len(util_during)})")
    check(util_before and max(util_before) < min(util_during),
          f"GPU_UTIL lower before it ({util_before[:5]})")
    power_during, power_before = during("GPU_POWER"), before("GPU_POWER")
    check(power_before and statistics.median(power_during) > statistics.median(power_before),
          f"more power during the kernel ({statistics.median(power_during):.0f} W vs "
          f"{statistics.median(power_before) if power_before else 0:.0f} W)")
    clock_during, clock_before = during("GPU_SM_CLOCK"), before("GPU_SM_CLOCK")
    check(clock_before and statistics.median(clock_during) >= statistics.median(clock_before),
          f"SM clock not lower during it ({statistics.median(clock_during):.0f} MHz vs "
          f"{statistics.median(clock_before) if clock_before else 0:.0f} MHz)")

    # Two ranks: rank 0 samples the node's GPUs and the host; rank 1 nothing.
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    mpi_out = os.path.join(work, "halo")
    run = subprocess.run(["mpirun", "--oversubscribe", "-np", "2", launcher, "--mpi-trace",
                          "--cuda-trace", "--device-counters", COUNTERS, "-d", mpi_out, "--",
                          halo, "200"], capture_output=True, text=True, env=env, timeout=300)
    check(run.returncode == 0, f"traced 2-rank halo exits 0 ({run.stderr.strip()[-300:]})")
    if check.failures:
        return check.exit_code()
    prefix = os.path.join(work, "halo")
    merged = subprocess.run([merge, mpi_out, "-o", prefix + ".pftrace", "--summary-csv", prefix],
                            capture_output=True, text=True)
    check(merged.returncode == 0, f"halo merged ({merged.stderr.strip()[-300:]})")
    print("\n".join(line for line in merged.stdout.splitlines()
                    if "GPU" in line or "host" in line or "Device" in line))
    with open(prefix + "_counters.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    gpus = len(subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
               .stdout.splitlines())
    check({r["rank"] for r in rows} == {"0"}, f"sampled by rank 0 only ({rows})")
    check(len({r["device"] for r in rows if r["device"] != "host"}) == gpus,
          f"each of the {gpus} GPUs once")
    check(any(r["counter"] == "GPU_UTIL" and float(r["mpi_ns"]) > 0 for r in rows),
          "GPU idle share of rank 0's MPI time computed")
    return check.exit_code()


if __name__ == "__main__":
    sys.exit(main())
