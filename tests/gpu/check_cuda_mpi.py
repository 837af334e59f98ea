#!/usr/bin/env python3
"""GPU test of CUDA tracing in an MPI job (needs an NVIDIA GPU and mpirun; exit 77 = skipped).

Runs cuda_halo_mpi on 2 ranks plain and under `rocprof-mpi --mpi-trace --cuda-trace`, checks
each rank file (kernels, copies and MPI calls counted; every CUDA call made inside an MPI call
carries that call's external id) and merges the job with rocprof-merge to .pftrace, .otf2 and
.h5.

usage: check_cuda_mpi.py LAUNCHER MERGE HALO REPORT WORK_DIR [ITERATIONS]"""

import collections
import glob
import json
import os
import subprocess
import sys
import time

from gpu_check import SKIP, Checks, compare_durations, ready
MPIRUN = ["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", "2"]


def main():
    launcher, merge, halo, report, work = sys.argv[1:6]
    iterations = int(sys.argv[6]) if len(sys.argv) > 6 else 20
    if not ready(work, commands=("mpirun",)):
        return SKIP
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    check = Checks()

    started = time.monotonic()
    plain = subprocess.run(MPIRUN + [halo, str(iterations)], capture_output=True, text=True,
                           env=env)
    plain_s = time.monotonic() - started
    check(plain.returncode == 0, f"plain run exits 0 ({plain.returncode})")
    out = os.path.join(work, "trace")
    started = time.monotonic()
    events = os.path.join(work, "events")
    traced = subprocess.run(MPIRUN + [launcher, "--mpi-trace", "--cuda-trace", "-d", out, "--",
                                      halo, str(iterations), events],
                            capture_output=True, text=True, env=env)
    traced_s = time.monotonic() - started
    check(traced.returncode == 0, f"traced run exits 0 ({traced.stderr.strip()[-300:]})")
    check(traced.stdout == plain.stdout, "traced output equals the plain output")
    files = sorted(glob.glob(os.path.join(out, "*.h5")))
    check([os.path.basename(f) for f in files] == ["0.h5", "1.h5"], f"two rank files ({files})")
    if check.failures:
        return check.exit_code()
    gpus = len(subprocess.run(["nvidia-smi", "-L"], capture_output=True,
                              text=True).stdout.splitlines())
    inside_total = 0
    for rank, path in enumerate(files):
        lines = subprocess.run([report, path], check=True, capture_output=True,
                               text=True).stdout.splitlines()
        api = [line.split() for line in lines if line.startswith("api ")]
        work_rows = [line.split(maxsplit=8) for line in lines if line.startswith("activity ")]
        mpi = [line.split() for line in lines if line.startswith("mpi ")]
        status = [line.split() for line in lines if line.startswith("status ")][0]
        name = os.path.basename(path)
        ops = collections.Counter(row[1] for row in work_rows)
        # A Sendrecv is two rows (its receive has one of its own) with the same times: one
        # call each. The program's own calls are those not inside another MPI call.
        calls = list({(m[1], m[3], m[4]): m for m in mpi}.values())
        top = [m for m in calls if not any(o is not m and int(o[3]) <= int(m[3]) and
                                           int(m[4]) <= int(o[4]) for o in calls)]
        functions = collections.Counter(row[1] for row in top)
        stencils = [r for r in work_rows if r[1] == "KERNEL" and "stencil" in r[8]]
        check(ops["KERNEL"] == 2 * iterations and len(stencils) == iterations,
              f"{name}: {iterations} stencil and {iterations} gate kernels ({ops['KERNEL']})")
        check(ops["MEMCPY"] >= 2 * iterations, f"{name}: halo copies ({ops['MEMCPY']})")
        kernels = sorted(stencils, key=lambda r: int(r[5]))
        devices = {int(r[3]) for r in kernels}
        queues = {r[2] for r in kernels}
        check(devices == {rank % gpus}, f"{name}: kernels on GPU {rank % gpus} ({devices}), "
                                        f"queues {sorted(queues)}")
        with open(f"{events}.{rank}") as timings:
            timed = [float(line) for line in timings]
        durations = [(int(r[6]) - int(r[5])) / 1000.0 for r in kernels]
        within, compared, worst = compare_durations(durations, timed)
        check(within == compared == len(timed) == iterations,
              f"{name}: kernel durations vs cudaEvent: {within}/{compared} within 5 % or 2 us, "
              f"worst {100 * worst:.2f} %, median kernel "
              f"{sorted(timed)[len(timed) // 2]:.1f} us")
        check(functions["MPI_Sendrecv"] == iterations and functions["MPI_Allreduce"] == iterations,
              f"{name}: {iterations} MPI_Sendrecv and MPI_Allreduce ({dict(functions)})")
        # CUDA calls made inside an MPI call (the reduction's copies) carry its external id.
        inside = 0
        wrong = 0
        for row in api:
            begin, end, external = int(row[5]), int(row[6]), int(row[4])
            around = [m for m in mpi if int(m[3]) <= begin and end <= int(m[4])]
            if not around:
                continue
            innermost = max(around, key=lambda m: int(m[3]))
            inside += 1
            wrong += external != int(innermost[2])
        inside_total += inside
        check(wrong == 0, f"{name}: {inside} CUDA calls inside MPI calls, {wrong} without "
                          "that call's external id")
        # The GPU clock against the host's all through the run: each cudaMemcpy to the host
        # (one per halo exchange and reduction) returns after its copy ended, and its copy
        # starts after the call began. (A copy from pageable host memory may still run after
        # its call returned: CUDA returns once the data is staged.)
        copies = {int(r[4]): r for r in work_rows if r[1] == "MEMCPY"}
        device_to_host = "3"  # CopyDirection::kDeviceToHost
        blocking = [(int(c[5]), int(c[6]), copies[int(c[3])]) for c in api
                    if c[2] == "cudaMemcpy" and c[7] == device_to_host and int(c[3]) in copies]
        outside = [(b, e, int(w[5]), int(w[6])) for b, e, w in blocking
                   if not (b <= int(w[5]) <= int(w[6]) <= e)]
        span_s = (max(e for _, e, _ in blocking) - min(b for b, _, _ in blocking)) / 1e9 \
            if blocking else 0.0
        slack = min((min(int(w[5]) - b, e - int(w[6])) for b, e, w in blocking), default=0)
        check(len(blocking) >= 2 * iterations and not outside,
              f"{name}: {len(blocking)} blocking copies over {span_s:.2f} s each inside its "
              f"call ({len(outside)} outside; least margin {slack} ns)")
        check(status[1] == "1" and status[2] == "0", f"{name}: complete, nothing dropped")
    check(inside_total > 0, f"CUDA calls ran inside MPI calls ({inside_total})")
    for suffix in ("pftrace", "otf2", "json", "h5"):
        merged = subprocess.run([merge, out, "-o", os.path.join(work, f"halo.{suffix}")],
                                capture_output=True, text=True)
        last = (merged.stderr.strip().splitlines() or [""])[-1]
        check(merged.returncode == 0, f"merge to .{suffix}: {last}")
    print(merged.stdout[-1500:])
    # Copies on the merged timeline: named by direction, with the memory they touched
    # (pageable std::vector on the host, cudaMalloc on the device).
    with open(os.path.join(work, "halo.json")) as trace:
        events = json.load(trace)
    events = events["traceEvents"] if isinstance(events, dict) else events
    copies = collections.Counter(
        (e["name"], e["args"].get("src_kind"), e["args"].get("dst_kind")) for e in events
        if e.get("cat") == "gpu" and e["name"] != "SYNCHRONIZATION" and "bytes" in e.get("args", {}))
    # One GPU track per stream per rank: each rank's work ran on the default stream.
    gpu_tracks = collections.defaultdict(set)
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name" and \
                e["args"]["name"].startswith("GPU "):
            gpu_tracks[e["pid"]].add(e["args"]["name"])
    check(len(gpu_tracks) == 2 and all(len(names) == 1 for names in gpu_tracks.values()),
          f"merged .json: one GPU stream track per rank ({dict(gpu_tracks)})")
    # At least the halo's copies (the GPU reduction in MPI_Allreduce adds its own).
    down, up = ("memcpy DtoH", "device", "pageable"), ("memcpy HtoD", "pageable", "device")
    check(set(copies) == {down, up, ("MEMSET", None, "device")} and
          min(copies[down], copies[up]) >= 2 * iterations and copies["MEMSET", None, "device"] == 2,
          f"merged .json: copies by direction and memory kind ({dict(copies)})")
    loops = [float(line.split()[2]) for run in (plain, traced)
             for line in run.stderr.splitlines() if line.startswith("halo loop:")]
    if len(loops) == 2:
        print(f"halo loop (rank 0, MPI_Wtime): plain {loops[0]:.4f} s, traced {loops[1]:.4f} s, "
              f"ratio {loops[1] / loops[0]:.3f}")
    print(f"wall time: plain {plain_s:.3f} s, traced {traced_s:.3f} s "
          f"(ratio {traced_s / plain_s:.2f}, start-up included)")
    return check.exit_code()


if __name__ == "__main__":
    sys.exit(main())
