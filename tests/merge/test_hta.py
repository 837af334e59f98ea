"""rocprof-merge -o NAME.hta: per-rank Kineto JSON in NAME/ that Holistic Trace Analysis reads:
each file names its rank as HTA finds it, holds every kernel, copy, API and MPI call the merge's
summary counts, and its GPU events add up to the report's GPU busy time; 1, 2 and 3 merge
processes write the same files. HTA itself is run by hta_check.py where HTA_SOURCE names a
HolisticTraceAnalysis checkout (docs/HTA.md)."""

import collections
import csv
import json
import os
import re
import subprocess
import tempfile
import unittest

from merge_digest import output_digest
from hta_check import report_gpu_busy_ms
from traced_runs import run_merge as run

MERGE = os.environ["ROCPROF_TEST_MERGE"]
SYNTHETIC = os.environ["ROCPROF_TEST_SYNTHETIC"]
HTA_CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hta_check.py")
JOB = ["4", "2000", "1", "-2000000", "--gpu-aware-allreduce", "--user-regions", "--counters=20",
       "--late-rank=2:20000:gpu", "--host-waits"]
GPU_CATEGORIES = ("kernel", "gpu_memcpy", "gpu_memset")




def union_ms(intervals):
    total, reach = 0.0, None
    for begin, end in sorted(intervals):
        if reach is None or begin > reach:
            total += end - begin
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total / 1000.0


class HtaTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="rocprof-hta-")
        cls.job = os.path.join(cls.dir, "job")
        run([SYNTHETIC, cls.job] + JOB)
        cls.index = os.path.join(cls.dir, "kineto.hta")
        cls.traces = os.path.join(cls.dir, "kineto")
        run([MERGE, cls.job, "-o", cls.index, "-q"])
        cls.summary = os.path.join(cls.dir, "summary")
        cls.report = os.path.join(cls.dir, "job.html")
        run([MERGE, cls.job, "-o", os.path.join(cls.dir, "job.h5"), "--summary-csv", cls.summary,
             "--report", cls.report, "-q"])
        cls.files = {}
        for rank in range(4):
            with open(os.path.join(cls.traces, f"rank{rank}.json")) as f:
                cls.files[rank] = json.load(f)

    @classmethod
    def tearDownClass(cls):
        subprocess.run(["rm", "-rf", cls.dir])

    def test_each_rank_has_a_file_that_names_it_as_hta_finds_it(self):
        self.assertEqual(sorted(os.listdir(self.traces)), [f"rank{r}.json" for r in range(4)])
        with open(self.index) as f:
            index = json.load(f)
        self.assertEqual(index["world_size"], 4)
        self.assertEqual([t["file"] for t in index["traces"]],
                         [f"kineto/rank{r}.json" for r in range(4)])
        for rank, trace in self.files.items():
            self.assertEqual(trace["distributedInfo"], {"backend": "mpi", "rank": rank,
                                                        "world_size": 4})
            # HTA reads lines until its pattern matches, then takes that rank.
            with open(os.path.join(self.traces, f"rank{rank}.json")) as f:
                first = next(m for m in map(re.compile(r'"rank":\s+(\d+)').search, f) if m)
            self.assertEqual(int(first.group(1)), rank)
        self.assertEqual(self.files[0]["deviceProperties"], [{"id": 0, "name": "simulated"}])

    def test_events_are_the_summarys(self):
        kernels, copies, mpi = (collections.Counter() for _ in range(3))
        with open(self.summary + "_kernels.csv") as f:
            for row in csv.DictReader(f):
                (kernels if row["kind"] == "kernel" else copies)[int(row["rank"])] += int(row["count"])
        with open(self.summary + "_mpi.csv") as f:
            for row in csv.DictReader(f):
                mpi[(int(row["rank"]), row["function"])] += int(row["calls"])
        for rank, trace in self.files.items():
            events = trace["traceEvents"]
            by_cat = collections.Counter(e.get("cat") for e in events if e.get("ph") == "X")
            with self.subTest(rank=rank):
                self.assertEqual(by_cat["kernel"], kernels[rank])
                self.assertEqual(by_cat["gpu_memcpy"], copies[rank])
                found = collections.Counter((rank, e["name"]) for e in events
                                            if e.get("cat") == "cpu_op")
                self.assertEqual(found, {k: v for k, v in mpi.items() if k[0] == rank})
                # Every MPI call carries the communication arguments.
                send = next(e for e in events if e.get("name") == "MPI_Isend")
                self.assertEqual(send["args"]["Out msg size"], 4096)
                self.assertEqual(send["args"]["Collective name"], "MPI_Isend")
                # Each launch flow ends at a kernel or copy on the device that ran it.
                starts = {e["id"]: e for e in events if e.get("cat") == "ac2g" and e["ph"] == "s"}
                ends = [e for e in events if e.get("cat") == "ac2g" and e["ph"] == "f"]
                self.assertEqual(sorted(starts), sorted(e["id"] for e in ends))
                gpu = {(e["pid"], e["tid"], e["ts"]) for e in events if e.get("cat") in GPU_CATEGORIES}
                self.assertTrue(all((e["pid"], e["tid"], e["ts"]) in gpu for e in ends))
        # The late rank's host waits are on its thread, of no stream.
        waits = [e for e in self.files[2]["traceEvents"] if e.get("cat") == "cuda_sync"]
        self.assertTrue(waits)
        self.assertTrue(all(e["args"]["stream"] == -1 for e in waits))

    def test_gpu_events_add_up_to_the_reports_gpu_busy_time(self):
        busy = report_gpu_busy_ms(self.report)
        self.assertEqual(sorted(busy), [0, 1, 2, 3])
        self.assertGreater(busy[2], 0)
        for rank, trace in self.files.items():
            # What HTA counts as GPU time: events on a stream, overlaps once.
            intervals = [(e["ts"], e["ts"] + e["dur"]) for e in trace["traceEvents"]
                         if e.get("ph") == "X" and e.get("args", {}).get("stream", -1) != -1]
            self.assertAlmostEqual(union_ms(intervals), busy[rank], delta=0.01 * busy[rank] + 0.001)

    def test_parallel_merges_write_the_same_files(self):
        serial = output_digest(self.index)
        for procs in (2, 3):
            with self.subTest(processes=procs):
                out = os.path.join(self.dir, f"parallel{procs}.hta")
                run([MERGE, self.job, "-o", out, "-q"], procs)
                self.assertEqual(output_digest(out), serial)
        # Merged again over itself: replaced whole.
        run([MERGE, self.job, "-o", self.index, "-q"])
        self.assertEqual(output_digest(self.index), serial)

    def test_a_directory_of_other_files_is_never_replaced(self):
        out = os.path.join(self.dir, "mine.hta")
        os.makedirs(os.path.join(self.dir, "mine"))
        with open(os.path.join(self.dir, "mine", "notes.txt"), "w") as f:
            f.write("keep me")
        result = run([MERGE, self.job, "-o", out, "-q"], check=False)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("holds other files than per-rank traces (notes.txt)", result.stderr)
        self.assertEqual(os.listdir(os.path.join(self.dir, "mine")), ["notes.txt"])
        self.assertFalse(os.path.exists(out))

    def test_hta_reads_them_where_a_checkout_is_given(self):
        result = subprocess.run(["/usr/bin/python3", HTA_CHECK, "--traces", self.traces,
                                 "--report", self.report], capture_output=True, text=True,
                                timeout=600)
        if result.returncode == 77:
            self.skipTest(result.stdout.strip())
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr[-3000:])


if __name__ == "__main__":
    unittest.main()
