"""Device counters under the launcher, end to end: a 4-rank job under `rocprof-mpi
--device-counters` on the simulated ROCm SMI (two GPUs), each device sampled by the lowest
rank of the node that uses it, merged into counter tracks (decoded from the .pftrace) and the
summary's per-device table."""

import csv
import os
import re
import stat
import subprocess
import sys
import tempfile
import unittest

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "merge"))
from perfetto_text import decode_trace, parse_text_format  # noqa: E402

LAUNCHER = os.environ["ROCPROF_TEST_LAUNCHER"]
MERGE = os.environ["ROCPROF_TEST_MERGE"]
JACOBI = os.environ["ROCPROF_TEST_JACOBI"]
SIMULATED_SMI = os.environ["ROCPROF_TEST_SIMULATED_SMI"]
COUNTERS = "CPU_UTIL,GPU_UTIL,GPU_POWER"
GPU_NAME = "GPU {} (Simulated AMD Instinct MI250X GCD {})"

# Ranks 0 and 1 use GPU 1, ranks 2 and 3 GPU 0 (as srun --gpu-bind would set it).
WRAPPER = """#!/bin/sh
case "$OMPI_COMM_WORLD_LOCAL_RANK" in
  0|1) ROCR_VISIBLE_DEVICES=1 ;;
  *) ROCR_VISIBLE_DEVICES=0 ;;
esac
export ROCR_VISIBLE_DEVICES
exec "$@"
"""


class CounterSamplingTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.wrapper = os.path.join(self.dir, "bind_gpu.sh")
        with open(self.wrapper, "w") as f:
            f.write(WRAPPER)
        os.chmod(self.wrapper, stat.S_IRWXU)

    def tearDown(self):
        self.tmp.cleanup()

    def run_job(self, name, *options, simulated=True, bound=True, settings=()):
        out = os.path.join(self.dir, name)
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        exported = ["-x", f"ROCPROF_MPI_ROCM_SMI_LIBRARY={SIMULATED_SMI}"] if simulated else []
        for setting in settings:
            exported += ["-x", setting]
        command = ["mpirun", "--oversubscribe", "-np", "4", *exported,
                   *([self.wrapper] if bound else []), LAUNCHER, "--mpi-trace",
                   "--device-counters", COUNTERS, "--counter-interval", "5ms", *options,
                   "-d", out, "--", JACOBI, "512", "1000"]
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("jacobi: 4 ranks", result.stdout)
        return out, result

    @staticmethod
    def sessions(job):
        """rank -> [(device_id, name, backend, counters, interval_ns)] and sample counts."""
        found = {}
        for rank in range(4):
            with h5py.File(os.path.join(job, f"{rank}.h5")) as f:
                strings = [s.decode() for s in f["strings"][:]]
                rows = f["counter_sessions"][:] if "counter_sessions" in f else []
                found[rank] = sorted((int(r["device_id"]), strings[r["name"]],
                                      strings[r["backend"]], strings[r["counters"]],
                                      int(r["interval_ns"])) for r in rows)
        return found

    def test_each_device_is_sampled_once_by_the_lowest_rank_using_it(self):
        job, _ = self.run_job("bound", settings=["SIM_ROCM_SMI_BUSY_0=45"])
        self.assertEqual(self.sessions(job), {
            0: [(-1, "host", "host", "CPU_UTIL", 5_000_000),
                (1, GPU_NAME.format(1, 1), "rocm_smi", "GPU_UTIL,GPU_POWER", 5_000_000)],
            1: [],
            2: [(0, GPU_NAME.format(0, 0), "rocm_smi", "GPU_UTIL,GPU_POWER", 5_000_000)],
            3: []})
        # Samples on the clock of the rank's MPI calls, within its run.
        for rank in (0, 2):
            with h5py.File(os.path.join(job, f"{rank}.h5")) as f:
                samples = f["counter_samples"][:]
                calls = f["mpi_calls"][:]
                self.assertGreater(len(samples), 3 * 4)
                self.assertGreaterEqual(samples["timestamp_ns"].min(), calls["begin_ns"].min())
                self.assertLessEqual(samples["timestamp_ns"].max() - calls["end_ns"].max(),
                                     2_000_000_000)

        # Merged: the counter tracks under the process that sampled them, with its values.
        trace = os.path.join(job + ".pftrace")
        csv_prefix = os.path.join(self.dir, "summary")
        merged = subprocess.run([MERGE, job, "-o", trace, "--summary-csv", csv_prefix],
                                capture_output=True, text=True, timeout=300)
        self.assertEqual(merged.returncode, 0, merged.stderr)
        decoded = decode_trace(trace)
        packets = parse_text_format(decoded)["packet"]
        process = {int(t["uuid"][0]): int(t["process"][0]["pid"][0]) for p in packets
                   for t in p.get("track_descriptor", []) if "process" in t}
        tracks = {int(t["uuid"][0]): (process[int(t["parent_uuid"][0])], t["name"][0])
                  for p in packets for t in p.get("track_descriptor", []) if "counter" in t}
        self.assertEqual(set(tracks.values()), {
            (0, "host CPU_UTIL"), (0, GPU_NAME.format(1, 1) + " GPU_UTIL"),
            (0, GPU_NAME.format(1, 1) + " GPU_POWER"), (2, GPU_NAME.format(0, 0) + " GPU_UTIL"),
            (2, GPU_NAME.format(0, 0) + " GPU_POWER")})
        values = {}
        for packet in packets:
            for event in packet.get("track_event", []):
                if event["type"][0] == "TYPE_COUNTER":
                    values.setdefault(tracks[int(event["track_uuid"][0])], []).append(
                        float(event["double_counter_value"][0]))
        # The simulated GPU 0 is 45 % busy, GPU 1 idle; power follows (100 W + 3 W per %).
        self.assertEqual(set(values[(2, GPU_NAME.format(0, 0) + " GPU_UTIL")]), {45.0})
        self.assertEqual(set(values[(0, GPU_NAME.format(1, 1) + " GPU_UTIL")]), {0.0})
        self.assertEqual(set(values[(2, GPU_NAME.format(0, 0) + " GPU_POWER")]), {235.0})
        self.assertTrue(all(0 <= v <= 100 for v in values[(0, "host CPU_UTIL")]))

        # The summary: min/mean/max per device counter, and the GPU's idle share of the
        # sampling rank's MPI time (55 % for a GPU 45 % busy throughout).
        with open(csv_prefix + "_counters.csv", newline="") as f:
            rows = {(int(r["rank"]), r["device"], r["counter"]): r for r in csv.DictReader(f)}
        self.assertEqual(set(rows), {(0, "host", "CPU_UTIL"),
                                     (0, GPU_NAME.format(1, 1), "GPU_UTIL"),
                                     (0, GPU_NAME.format(1, 1), "GPU_POWER"),
                                     (2, GPU_NAME.format(0, 0), "GPU_UTIL"),
                                     (2, GPU_NAME.format(0, 0), "GPU_POWER")})
        gpu0 = rows[(2, GPU_NAME.format(0, 0), "GPU_UTIL")]
        self.assertEqual((float(gpu0["min"]), float(gpu0["mean"]), float(gpu0["max"])),
                         (45.0, 45.0, 45.0))
        self.assertEqual(int(gpu0["samples"]), len(values[(2, GPU_NAME.format(0, 0) + " GPU_UTIL")]))
        self.assertGreater(float(gpu0["mpi_ns"]), 0)
        self.assertAlmostEqual(float(gpu0["gpu_idle_mpi_ns"]) / float(gpu0["mpi_ns"]), 0.55,
                               places=6)
        gpu1 = rows[(0, GPU_NAME.format(1, 1), "GPU_UTIL")]
        self.assertEqual(float(gpu1["gpu_idle_mpi_ns"]), float(gpu1["mpi_ns"]))
        self.assertIn("GPU idle during MPI", merged.stdout)
        self.assertRegex(merged.stdout, r"GCD 0\)\s+\S+\s+55\.0%")

        # OTF2: a metric per counter, recorded on a metric location per sampled device.
        archive = os.path.join(self.dir, "otf2", "job.otf2")
        os.makedirs(os.path.dirname(archive))
        merged = subprocess.run([MERGE, job, "-o", archive, "-q"], capture_output=True,
                                text=True, timeout=300)
        self.assertEqual(merged.returncode, 0, merged.stderr)
        definitions = subprocess.run(["otf2-print", "-G", archive], capture_output=True,
                                     text=True, check=True).stdout
        locations = dict(re.findall(r'^LOCATION\s+(\d+)\s+Name: "([^"]+)".*Type: METRIC',
                                    definitions, re.M))
        self.assertEqual(sorted(locations.values()), sorted([
            "rank 0 host", "rank 0 " + GPU_NAME.format(1, 1), "rank 2 " + GPU_NAME.format(0, 0)]))
        self.assertRegex(definitions, r'METRIC_MEMBER .*Name: "GPU_POWER".*Unit: "W"')
        events = subprocess.run(["otf2-print", archive], capture_output=True, text=True,
                                check=True).stdout
        metric_values = {}
        for location, counter, value in re.findall(
                r'^METRIC\s+(\d+)\s+\d+\s+Metric: .*\("(\w+)" <\d+>; DOUBLE; ([^)]+)\)',
                events, re.M):
            metric_values.setdefault((locations[location], counter), []).append(float(value))
        self.assertEqual(metric_values[("rank 2 " + GPU_NAME.format(0, 0), "GPU_UTIL")],
                         values[(2, GPU_NAME.format(0, 0) + " GPU_UTIL")])
        self.assertEqual(sum(len(v) for v in metric_values.values()),
                         sum(len(v) for v in values.values()))

    def test_a_rank_left_untraced_leaves_its_devices_to_the_next(self):
        job, _ = self.run_job("ranks", "--mpi-ranks", "1-3")
        found = self.sessions_of_traced(job)
        self.assertEqual(found[1], [(-1, "host"), (1, GPU_NAME.format(1, 1))])
        self.assertEqual(found[2], [(0, GPU_NAME.format(0, 0))])
        self.assertEqual(found[3], [])

    def sessions_of_traced(self, job):
        found = {}
        for rank in (1, 2, 3):
            with h5py.File(os.path.join(job, f"{rank}.h5")) as f:
                strings = [s.decode() for s in f["strings"][:]]
                rows = f["counter_sessions"][:] if "counter_sessions" in f else []
                found[rank] = sorted((int(r["device_id"]), strings[r["name"]]) for r in rows)
        self.assertFalse(os.path.exists(os.path.join(job, "0.h5")))
        return found

    def test_ranks_that_see_every_gpu_leave_them_all_to_the_first(self):
        job, _ = self.run_job("unbound", bound=False)
        found = self.sessions(job)
        self.assertEqual([s[:2] for s in found[0]],
                         [(-1, "host"), (0, GPU_NAME.format(0, 0)), (1, GPU_NAME.format(1, 1))])
        self.assertEqual(found[1] + found[2] + found[3], [])

    def test_without_gpus_the_host_is_sampled_and_the_node_says_why_once(self):
        job, result = self.run_job("nogpu", simulated=False, bound=False)
        self.assertEqual(result.stderr.count("GPU counters are not sampled"), 1, result.stderr)
        found = self.sessions(job)
        self.assertEqual([s[:2] for s in found[0]], [(-1, "host")])

    def test_a_process_without_mpi_samples_from_its_start(self):
        # Only ROC-TX traced: the counters are recorded all the same.
        out = os.path.join(self.dir, "alone")
        result = subprocess.run([LAUNCHER, "--marker-trace", "--device-counters",
                                 "CPU_UTIL,PROCESS_RSS", "--counter-interval", "20ms", "-d", out,
                                 "--", "sleep", "0.5"], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        [name] = os.listdir(out)
        with h5py.File(os.path.join(out, name)) as f:
            strings = [s.decode() for s in f["strings"][:]]
            [session] = f["counter_sessions"][:]
            samples = f["counter_samples"][:]
        self.assertEqual(strings[session["counters"]], "CPU_UTIL,PROCESS_RSS")
        # 0.5 s at 20 ms: about 25 readings of each counter (fewer on a loaded machine).
        per_counter = len(samples) / 2
        self.assertGreaterEqual(per_counter, 10)
        self.assertLessEqual(per_counter, 27)
        rss = [s["value"] for s in samples if strings[s["counter"]] == "PROCESS_RSS"]
        self.assertTrue(all(value > 1 << 20 for value in rss))

    def test_the_launcher_refuses_what_it_cannot_sample(self):
        for options, message in (
                (["--device-counters", "CPU_UTIL,NOPE"], "no device offers a counter named NOPE"),
                (["--device-counters", "CPU_UTIL,,GPU_UTIL"], "a counter name is empty"),
                (["--device-counters", "CPU_UTIL", "--counter-interval", "fast"],
                 "--counter-interval 'fast' is not a duration")):
            result = subprocess.run([LAUNCHER, *options, "--", "true"], capture_output=True,
                                    text=True)
            self.assertEqual(result.returncode, 2, options)
            self.assertIn(message, result.stderr)


if __name__ == "__main__":
    unittest.main()
