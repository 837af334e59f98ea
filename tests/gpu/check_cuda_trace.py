#!/usr/bin/env python3
"""GPU test of the CUDA backend (needs an NVIDIA GPU; exit 77 = skipped, with the reason).

Runs cuda_streams (known kernels, copies and memsets on 2 streams, each kernel also timed with
cudaEvents) plain and under `rocprof-mpi --cuda-trace`, reads the rank file back with
cuda_trace_report and checks: the counts, every kernel tied to its cudaLaunchKernel call,
kernel times on the host clock inside their process's run, kernel durations against the
cudaEvent times of the same kernels, one GPU queue per stream, nothing dropped.

usage: check_cuda_trace.py LAUNCHER CUDA_STREAMS REPORT WORK_DIR [KERNELS_PER_STREAM]"""

import collections
import glob
import os
import subprocess
import sys
import time

from gpu_check import DEVICE, PAGEABLE, SKIP, Checks, compare_durations, ready

BLOCKS, THREADS = 32, 256  # cuda_streams.cu's kBlocks, kThreads


def main():
    launcher, program, report, work = sys.argv[1:5]
    kernels = int(sys.argv[5]) if len(sys.argv) > 5 else 50
    if not ready(work):
        return SKIP
    check = Checks()

    started = time.monotonic()
    plain = subprocess.run([program, str(kernels), os.path.join(work, "plain_events.txt")],
                           capture_output=True, text=True)
    plain_s = time.monotonic() - started
    check(plain.returncode == 0, f"plain run exits 0 ({plain.stderr.strip()})")
    out = os.path.join(work, "trace")
    started = time.monotonic()
    traced = subprocess.run([launcher, "--cuda-trace", "-d", out, "--", program, str(kernels),
                             os.path.join(work, "events.txt")], capture_output=True, text=True)
    traced_s = time.monotonic() - started
    check(traced.returncode == 0, f"traced run exits 0 (stderr: {traced.stderr.strip()!r})")
    check(traced.stdout == plain.stdout, "traced output equals the plain output")
    files = glob.glob(os.path.join(out, "*.h5"))
    check(len(files) == 1, f"one rank file ({files})")
    if check.failures:
        return check.exit_code()
    lines = subprocess.run([report, files[0]], check=True, capture_output=True,
                           text=True).stdout.splitlines()
    api = [line.split() for line in lines if line.startswith("api ")]
    work_rows = [line.split(maxsplit=8) for line in lines if line.startswith("activity ")]
    status = [line.split() for line in lines if line.startswith("status ")][0]
    by_op = collections.Counter(row[1] for row in work_rows)
    print(f"activities by op: {dict(by_op)}; API calls: {len(api)}")
    streams = 2
    untimed = 1 + streams  # the warm-up and each stream's gate
    check(by_op["KERNEL"] == streams * kernels + untimed,
          f"{streams * kernels + untimed} kernels ({untimed} untimed)")
    check(by_op["MEMCPY"] == 2 * streams, f"{2 * streams} copies")
    check(by_op["MEMSET"] == streams, f"{streams} memsets")
    kernels_rows = [row for row in work_rows if row[1] == "KERNEL"]
    # What each kernel asked of the GPU: cuda_streams launches BLOCKS x THREADS.
    resources = [line.split()[1:] for line in lines if line.startswith("kernel ")]
    shapes = {tuple(int(v) for v in r[1:7]) for r in resources}
    check(len(resources) == len(kernels_rows) and shapes == {(BLOCKS, 1, 1, THREADS, 1, 1)}
          and all(int(r[8]) > 0 for r in resources),
          f"every kernel has its grid, block and registers ({len(resources)}, {shapes})")
    check(all("scale" in row[8] for row in kernels_rows), "kernels named (scale)")
    contexts = {int(r[9]) for r in resources}
    check(len(contexts) == 1 and 0 not in contexts,
          f"every kernel ran in the one CUDA context ({contexts})")
    # Memory kinds: cuda_streams copies between pageable host memory and the device, and
    # sets device memory.
    memory = collections.Counter(tuple(line.split()[1:2] + line.split()[3:6])
                                 for line in lines if line.startswith("memory "))
    context = next(iter(contexts), 0)
    expected = {("MEMCPY", str(PAGEABLE), str(DEVICE), str(context)): streams,
                ("MEMCPY", str(DEVICE), str(PAGEABLE), str(context)): streams,
                ("MEMSET", "0", str(DEVICE), str(context)): streams}
    check(memory == expected, f"copies and memsets name the memory they touched ({dict(memory)})")
    queues = {row[2] for row in kernels_rows}
    check(len(queues) == streams, f"one GPU queue per stream ({len(queues)})")
    launches = {int(row[3]): row for row in api if row[2] == "cudaLaunchKernel"}
    check(len(launches) == streams * kernels + untimed,
          f"{streams * kernels + untimed} cudaLaunchKernel calls")
    check(all(int(row[4]) in launches for row in kernels_rows),
          "every kernel has its cudaLaunchKernel (correlation id)")
    # On the host clock: a kernel starts after its launch call began, and ends before the
    # process's last API call ended.
    last_end = max(int(row[6]) for row in api)
    check(all(int(row[5]) >= int(launches[int(row[4])][5]) for row in kernels_rows
              if int(row[4]) in launches), "every kernel starts after its launch call began")
    check(all(int(row[6]) <= last_end for row in kernels_rows),
          "every kernel ends before the last API call returned")
    # Durations against cudaEvents: per stream, kernels in launch order.
    events = collections.defaultdict(list)
    for line in open(os.path.join(work, "events.txt")):
        stream, index, micros = line.split()
        events[int(stream)].append(float(micros))
    per_queue = collections.defaultdict(list)
    for row in sorted(kernels_rows, key=lambda r: int(r[5])):
        per_queue[row[2]].append((int(row[6]) - int(row[5])) / 1000.0)
    # The timed kernels are each stream's last ones (the warm-up and gates come first).
    per_queue = {queue: durations[-kernels:] for queue, durations in per_queue.items()}
    # Streams were created in order: the lower stream id is stream 0.
    ordered = [per_queue[q] for q in sorted(queues, key=lambda q: int(q) & 0xFFFFFFFF)]
    traced_us = [d for durations in ordered for d in durations]
    events_us = [e for stream in range(len(ordered)) for e in events[stream][:len(ordered[stream])]]
    within, total, worst = compare_durations(traced_us, events_us)
    median_event = sorted(events[0])[len(events[0]) // 2]
    print(f"kernel durations vs cudaEvent: {within}/{total} within 5 % or 2 us, worst "
          f"{100 * worst:.2f} %, median kernel {median_event:.1f} us")
    check(within == total and total == streams * kernels, "kernel durations match cudaEvents")
    check(status[1] == "1" and status[2] == "0", f"file complete, nothing dropped ({status})")
    # Other endings keep every GPU record: SIGTERM (the recorder's handler has the writer
    # flush CUPTI first) and cudaDeviceReset (CUPTI's buffers are flushed before a context
    # goes).
    for ending, code in (("sigterm", -15), ("reset", 0)):
        ended = os.path.join(work, ending)
        result = subprocess.run([launcher, "--cuda-trace", "-d", ended, "--", program, "5",
                                 os.path.join(work, ending + ".txt"), ending],
                                capture_output=True, text=True)
        found = glob.glob(os.path.join(ended, "*.h5"))
        rows = subprocess.run([report, found[0]], capture_output=True, text=True).stdout \
            if len(found) == 1 else ""
        kernels_kept = sum(1 for line in rows.splitlines() if line.startswith("activity KERNEL"))
        complete = "status 1 0" in rows
        check(result.returncode == code and kernels_kept == streams * 5 + untimed and complete,
              f"{ending}: exit {result.returncode}, {kernels_kept} of {streams * 5 + untimed} "
              f"kernels, complete {complete}")
    print(f"wall time: plain {plain_s:.3f} s, traced {traced_s:.3f} s "
          f"(ratio {traced_s / plain_s:.2f}, start-up included)")
    return check.exit_code()


if __name__ == "__main__":
    sys.exit(main())
