"""A 2-rank HIP + MPI program on the simulated HIP runtime under `rocprof-mpi --mpi-trace
--hip-trace --kernel-trace`, merged: its kernels and copies on GPU queue tracks, flows from
each MPI call to the HIP calls made inside it and from each HIP call to the device work it
issued, and the kernel summary."""

import csv
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "merge"))
from perfetto_text import decode_trace, parse_text_format, perfetto_events  # noqa: E402

LAUNCHER = os.environ["ROCPROF_TEST_LAUNCHER"]
MERGE = os.environ["ROCPROF_TEST_MERGE"]
PROGRAM = os.environ["ROCPROF_TEST_HIP_MPI"]
SIMULATED_HIP_DIR = os.environ["ROCPROF_TEST_SIMULATED_HIP_DIR"]
ITERATIONS = 20


class HipMpiJob(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.job = os.path.join(cls.tmp.name, "job")
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        cls.run_result = subprocess.run(
            ["mpirun", "--oversubscribe", "-np", "2", "-x", f"LD_LIBRARY_PATH={SIMULATED_HIP_DIR}",
             LAUNCHER, "--mpi-trace", "--hip-trace", "--kernel-trace", "-d", cls.job, "--",
             PROGRAM, str(ITERATIONS)], env=env, capture_output=True, text=True, timeout=300)
        cls.prefix = os.path.join(cls.tmp.name, "summary")
        cls.trace = os.path.join(cls.tmp.name, "job.pftrace")
        cls.merged = subprocess.run([MERGE, cls.job, "-o", cls.trace, "--summary-csv", cls.prefix],
                                    capture_output=True, text=True, timeout=300)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_program_ran_as_without_tracing(self):
        self.assertEqual(self.run_result.returncode, 0, self.run_result.stderr)
        self.assertIn(f"hip_mpi_halo: 2 ranks, {ITERATIONS} iterations, sum 3.0",
                      self.run_result.stdout)
        self.assertEqual(self.merged.returncode, 0, self.merged.stderr)

    def events(self):
        decoded = decode_trace(self.trace)
        return decoded, perfetto_events(decoded)

    def test_kernels_and_copies_are_on_gpu_queue_tracks(self):
        decoded, events = self.events()
        tracks = {}
        for packet in parse_text_format(decoded)["packet"]:
            for track in packet.get("track_descriptor", []):
                tracks[track["uuid"][0]] = track.get("name", [""])[0]
        kernels = [e for e in events if e["name"] == "stencil(float*, int)"]
        self.assertEqual(len(kernels), 2 * ITERATIONS)
        self.assertTrue(all(tracks[e["track"]].startswith("GPU 0") for e in kernels),
                        {tracks[e["track"]] for e in kernels})
        copies = [e for e in events if e["name"] == "CopyHostToDevice"]
        # Per rank: the first copy, one per iteration, two in each reduction.
        self.assertGreaterEqual(len(copies), 2 * (1 + ITERATIONS))

    def test_flows_lead_from_mpi_calls_to_hip_calls_to_device_work(self):
        _, events = self.events()
        starts, ends = {}, {}
        for event in events:
            for flow in event["flows"]:
                starts[flow] = event["name"]
            for flow in event["terminating"]:
                ends[flow] = event["name"]
        pairs = {}
        for flow, name in starts.items():
            if flow in ends:
                pairs[(name, ends[flow])] = pairs.get((name, ends[flow]), 0) + 1
        self.assertEqual(pairs.get(("hipLaunchKernel", "stencil(float*, int)")), 2 * ITERATIONS)
        self.assertEqual(pairs.get(("hipMemcpy", "CopyDeviceToHost"), 0) >= 2 * ITERATIONS, True)
        # The reduction's staging copies and kernel ran inside MPI_Allreduce.
        self.assertGreaterEqual(pairs.get(("MPI_Allreduce", "hipMemcpy"), 0), 3)
        self.assertGreaterEqual(pairs.get(("MPI_Allreduce", "hipLaunchKernel"), 0), 1)
        self.assertGreaterEqual(
            pairs.get(("hipLaunchKernel", "reduce_sum(double*, double const*, int)"), 0), 1)
        self.assertEqual(pairs.get(("MPI_Sendrecv", "MPI_Sendrecv"), 0), 2 * ITERATIONS)

    def test_the_summary_counts_the_kernels(self):
        with open(self.prefix + "_kernels.csv", newline="") as f:
            rows = [r for r in csv.DictReader(f) if r["kind"] == "kernel"]
        stencil = {int(r["rank"]): int(r["count"]) for r in rows
                   if r["name"] == "stencil(float*, int)"}
        self.assertEqual(stencil, {0: ITERATIONS, 1: ITERATIONS})
        self.assertIn("stencil(float*, int)", self.merged.stdout)


if __name__ == "__main__":
    unittest.main()
