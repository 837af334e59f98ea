"""rocprof-merge end to end: a synthetic job with known clock offsets and drift comes out on
one clock; events and summary numbers match the inputs; bad input gives clear errors naming
the file; and real rank files of a traced 4-rank run merge into a timeline that loads."""

import csv
import json
import os
import pty
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from perfetto_text import PROTO, decode_trace, parse_text_format, perfetto_events  # noqa: F401

MERGE = os.environ["ROCPROF_TEST_MERGE"]
SYNTHETIC = os.environ["ROCPROF_TEST_SYNTHETIC"]
LAUNCHER = os.environ["ROCPROF_TEST_LAUNCHER"]
JACOBI = os.environ["ROCPROF_TEST_JACOBI"]
PATTERNS = os.environ["ROCPROF_TEST_PATTERNS"]


def read_json(path):
    with open(path) as f:
        return json.load(f)


def analysis_tables(h5file):
    """The merged .h5's analysis group: each dataset's values and the group's attributes."""
    found = {f"@{name}": value.tolist() if hasattr(value, "tolist") else value
             for name, value in h5file["analysis"].attrs.items()}

    def take(name, item):
        if hasattr(item, "shape"):
            found[name] = item[()].tolist()
    h5file["analysis"].visititems(take)
    return found


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def perfetto_track_pids(text):
    """uuid -> pid of every track descriptor (a process's, or a thread's process)."""
    pids = {}
    for packet in parse_text_format(text).get("packet", []):
        for track in packet.get("track_descriptor", []):
            for kind in ("process", "thread"):
                for descriptor in track.get(kind, []):
                    pids[track["uuid"][0]] = int(descriptor["pid"][0])
            if track["uuid"][0] not in pids and "parent_uuid" in track:
                pids[track["uuid"][0]] = ("parent", track["parent_uuid"][0])
    return {uuid: pids[pid[1]] if isinstance(pid, tuple) else pid for uuid, pid in pids.items()}


class MergeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="merge_test_")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def synthetic(self, name="job", ranks=4, events=2000, skew=None, busy=None):
        path = os.path.join(self.dir, name)
        extra = [str(skew[0]), str(skew[1])] if skew else []
        if busy:  # (rank, ranges): one rank much larger than the others
            extra.append(f"--busy-rank={busy[0]}:{busy[1]}")
        subprocess.run([SYNTHETIC, path, str(ranks), str(events), *extra], check=True)
        return path

    def merge(self, *args):
        return subprocess.run([MERGE, *args], capture_output=True, text=True, timeout=300)

    def script(self, name, text):
        """An executable shell script `name` in the test's directory."""
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + text)
        os.chmod(path, 0o755)
        return path

    def merge_parallel(self, processes, *args, settings=(), **run):
        """rocprof-merge ARGS as an MPI job of `processes` (mpirun as root); `settings`:
        NAME=value each process sees; `run`: more for subprocess.run (preexec_fn)."""
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        exported = [word for setting in settings for word in ("-x", setting)]
        return subprocess.run(["mpirun", "--oversubscribe", "-np", str(processes), *exported,
                               MERGE, *args], env=env, capture_output=True, text=True,
                              timeout=300, **run)

    def test_synthetic_job_lands_on_one_clock(self):
        job = self.synthetic()
        out = os.path.join(self.dir, "job.json")
        result = self.merge(job, "-o", out, "--summary-csv", os.path.join(self.dir, "s"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"4 ranks, ", result.stdout)
        events = read_json(out)["traceEvents"]
        compute = {}
        for event in events:
            if event.get("name") == "compute" and event["ph"] == "X":
                compute.setdefault(event["pid"], []).append(event["ts"])
        self.assertEqual(sorted(compute), [0, 1, 2, 3])
        # Each rank's clock was off by up to 4.5 s and drifting; aligned, the ranges coincide.
        for pid in range(1, 4):
            self.assertEqual(len(compute[pid]), 200)
            for a, b in zip(compute[0], compute[pid]):
                self.assertAlmostEqual(a, b, delta=0.002)
        self.assertAlmostEqual(compute[0][0], 0.0, delta=0.002)
        self.assertAlmostEqual(compute[0][-1], 199 * 50.0, delta=0.002)
        # Every input record is an event: per rank 800 MPI calls, 400 ranges, + metadata.
        per_pid = {}
        for event in events:
            if event["ph"] == "X":
                per_pid[event["pid"]] = per_pid.get(event["pid"], 0) + 1
        self.assertEqual(per_pid, {0: 1200, 1: 1200, 2: 1200, 3: 1200})
        rows = read_csv(os.path.join(self.dir, "s_mpi.csv"))
        allreduce = [r for r in rows if r["function"] == "MPI_Allreduce"]
        self.assertEqual(sorted(int(r["rank"]) for r in allreduce), [0, 1, 2, 3])
        self.assertTrue(all(int(r["calls"]) == 200 and int(r["total_ns"]) == 200 * 3900
                            for r in allreduce))
        regions = read_csv(os.path.join(self.dir, "s_regions.csv"))
        self.assertEqual({(r["rank"], r["name"], r["count"]) for r in regions if r["name"] == "compute"},
                         {(str(p), "compute", "200") for p in range(4)})

    def decode(self, path, raw=False):
        """The trace through protoc: raw (wire format only) or with Perfetto's field names."""
        command = ["protoc", "--decode_raw"] if raw else [
            "protoc", "--decode=rocprof.perfetto.Trace", f"-I{PROTO}",
            os.path.join(PROTO, "perfetto_trace_subset.proto")]
        with open(path, "rb") as data:
            result = subprocess.run(command, stdin=data, capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout

    def test_perfetto_trace_decodes_and_holds_every_event(self):
        job = self.synthetic()
        out = os.path.join(self.dir, "job.pftrace")
        # The records alone (test_wait_states.py decodes the analysis's tracks).
        result = self.merge(job, "-o", out, "-q", "--no-analysis")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("1 {", self.decode(out, raw=True))
        text = self.decode(out)
        self.assertEqual(text.count("type: TYPE_SLICE_BEGIN"), 4 * 1200)
        self.assertEqual(text.count("type: TYPE_SLICE_END"), 4 * 1200)
        for rank in range(4):
            self.assertIn(f'process_name: "rank {rank} (node0)"', text)
        # A packet sequence per rank, each starting with cleared state; names are interned
        # once per sequence and every event's name resolves.
        self.assertEqual(text.count("sequence_flags: 1\n"), 4)
        self.assertEqual(text.count('name: "MPI_Allreduce"'), 4)
        events = perfetto_events(text)
        begins = [e for e in events if e["type"] == "TYPE_SLICE_BEGIN"]
        allreduce = [e for e in begins if e["name"] == "MPI_Allreduce"]
        self.assertEqual(len(allreduce), 4 * 200)
        self.assertTrue(all(e["category"] == ["mpi"] for e in allreduce))
        self.assertTrue(all(e["annotations"]["bytes_sent"] == 8 for e in allreduce))
        self.assertNotIn("peer", allreduce[0]["annotations"])  # a collective has no peer
        isends = [e for e in begins if e["name"] == "MPI_Isend"]
        self.assertEqual(len(isends), 4 * 200)
        self.assertTrue(all(e["annotations"]["tag"] == 7 and e["annotations"]["bytes_sent"] == 4096
                            for e in isends))
        self.assertEqual(sum(1 for e in begins if e["name"] == "compute"), 4 * 200)
        # Every event lands on a described track of its own rank: most name none and take
        # their sequence's default track (a thread of the rank), which saves their uuid.
        pids = perfetto_track_pids(text)
        self.assertTrue(all(e["track"] is not None and pids.get(e["track"]) == int(e["sequence"]) - 1
                            for e in events))
        self.assertEqual(text.count("trace_packet_defaults {"), 4)
        # (one thread per rank here: only the four defaults name a track)
        self.assertEqual(text.count("track_uuid: "), 4)

    def flow_pairs(self, path):
        """(name of the slice a flow starts on, name of the one it ends on) -> count."""
        starts, ends = {}, {}
        for event in perfetto_events(self.decode(path)):
            for flow in event["flows"]:
                starts[flow] = event["name"]
            for flow in event["terminating"]:
                ends[flow] = event["name"]
        self.assertEqual(starts.keys(), ends.keys())  # no flow left dangling
        pairs = {}
        for flow, name in starts.items():
            pairs[(name, ends[flow])] = pairs.get((name, ends[flow]), 0) + 1
        return pairs

    def test_device_counters_are_counter_tracks_of_the_rank_that_sampled_them(self):
        # Ranks 0 and 2 sampled "their" GPU (GPU_UTIL, GPU_POWER) and the host (CPU_UTIL) 50
        # times each; GPU_UTIL's i-th sample is (37 i + rank) % 101 on the rank's own clock.
        job = os.path.join(self.dir, "counters")
        subprocess.run([SYNTHETIC, job, "4", "2000", "--counters=50"], check=True)
        expected = {(rank, f"GPU {rank // 2} (simulated) GPU_UTIL"):
                    [float((37 * i + rank) % 101) for i in range(50)] for rank in (0, 2)}
        out = os.path.join(self.dir, "counters.json")
        self.assertEqual(self.merge(job, "-o", out, "-q").returncode, 0)
        samples = [e for e in read_json(out)["traceEvents"] if e.get("ph") == "C"]
        self.assertEqual(len(samples), 2 * 3 * 50)
        self.assertEqual({(e["pid"], e["name"]) for e in samples},
                         {(r, f"GPU {r // 2} (simulated) {c}") for r in (0, 2)
                          for c in ("GPU_UTIL", "GPU_POWER")} |
                         {(r, "host CPU_UTIL") for r in (0, 2)})
        for (rank, name), values in expected.items():
            series = [e for e in samples if (e["pid"], e["name"]) == (rank, name)]
            self.assertEqual([e["args"]["value"] for e in series], values)
            # On the reference clock, like the rank's MPI calls: 50 samples over the run.
            times = [e["ts"] for e in series]
            self.assertEqual(times, sorted(times))
        perfetto = os.path.join(self.dir, "counters.pftrace")
        self.assertEqual(self.merge(job, "-o", perfetto, "-q").returncode, 0)
        packets = parse_text_format(self.decode(perfetto))["packet"]
        tracks = {}
        for packet in packets:
            for track in packet.get("track_descriptor", []):
                if "counter" in track:
                    tracks[int(track["uuid"][0])] = (int(track["parent_uuid"][0]), track["name"][0])
        self.assertEqual(len(tracks), 6)
        process = {int(t["uuid"][0]): int(t["process"][0]["pid"][0]) for p in packets
                   for t in p.get("track_descriptor", []) if "process" in t}
        values = {}
        for packet in packets:
            for event in packet.get("track_event", []):
                if event["type"][0] == "TYPE_COUNTER":
                    parent, name = tracks[int(event["track_uuid"][0])]
                    values.setdefault((process[parent], name), []).append(
                        float(event["double_counter_value"][0]))
        self.assertEqual(sum(len(v) for v in values.values()), 300)
        for key, series in expected.items():
            self.assertEqual(values[key], series)

    def test_mpi_calls_lead_to_the_gpu_work_issued_inside_them(self):
        job = os.path.join(self.dir, "gpu")
        subprocess.run([SYNTHETIC, job, "4", "2000", "--gpu-aware-allreduce"], check=True)
        out = os.path.join(self.dir, "gpu.pftrace")
        result = self.merge(job, "-o", out, "-q")
        self.assertEqual(result.returncode, 0, result.stderr)
        # Messages, MPI call -> API call made inside it (same external id), API -> device.
        self.assertEqual(self.flow_pairs(out), {("MPI_Isend", "MPI_Waitall"): 800,
                                                ("MPI_Allreduce", "hipMemcpyAsync"): 800,
                                                ("hipMemcpyAsync", "CopyDeviceToHost"): 800})
        # The JSON draws the same arrows: each starts inside an allreduce and ends inside the
        # hipMemcpyAsync made within it.
        json_out = os.path.join(self.dir, "gpu.json")
        self.assertEqual(self.merge(job, "-o", json_out, "-q").returncode, 0)
        events = read_json(json_out)["traceEvents"]
        slices = {}
        for e in events:
            if e["ph"] == "X":
                slices.setdefault((e["pid"], e["tid"]), []).append(e)
        def enclosing(e):  # the innermost slice around the flow event
            around = [s for s in slices[(e["pid"], e["tid"])]
                      if s["ts"] <= e["ts"] <= s["ts"] + s["dur"]]
            return [min(around, key=lambda s: s["dur"])["name"]] if around else []
        inside = [e for e in events if e.get("name") == "issued inside"]
        starts = {e["id"]: e for e in inside if e["ph"] == "s"}
        ends = {e["id"]: e for e in inside if e["ph"] == "f"}
        self.assertEqual(len(starts), 800)
        self.assertEqual(starts.keys(), ends.keys())
        self.assertTrue(all(enclosing(e) == ["MPI_Allreduce"] for e in starts.values()))
        self.assertTrue(all(enclosing(e) == ["hipMemcpyAsync"] for e in ends.values()))
        # A user region leads to the API calls made inside it (they carry its external id).
        regions = os.path.join(self.dir, "regions")
        subprocess.run([SYNTHETIC, regions, "4", "2000", "--user-regions"], check=True)
        out = os.path.join(self.dir, "regions.pftrace")
        result = self.merge(regions, "-o", out, "--summary-csv", os.path.join(self.dir, "r"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.flow_pairs(out), {("MPI_Isend", "MPI_Waitall"): 800,
                                                ("compute", "hipMemcpyAsync"): 800,
                                                ("hipMemcpyAsync", "CopyDeviceToHost"): 800})
        self.assertEqual({(r["rank"], r["count"]) for r in read_csv(os.path.join(self.dir, "r_regions.csv"))
                          if r["name"] == "compute"}, {(str(p), "200") for p in range(4)})
        json_out = os.path.join(self.dir, "regions.json")
        self.assertEqual(self.merge(regions, "-o", json_out, "-q").returncode, 0)
        events = read_json(json_out)["traceEvents"]
        inside = [e for e in events if e.get("name") == "issued inside"]
        self.assertEqual(sum(1 for e in inside if e["ph"] == "s"), 800)
        self.assertEqual({e["id"] for e in inside if e["ph"] == "s"},
                         {e["id"] for e in inside if e["ph"] == "f"})
        plain = os.path.join(self.dir, "plain.pftrace")  # no API calls: message flows only
        self.assertEqual(self.merge(self.synthetic(), "-o", plain, "-q").returncode, 0)
        self.assertEqual(self.flow_pairs(plain), {("MPI_Isend", "MPI_Waitall"): 800})

    def test_merged_hdf5_has_every_row_with_its_rank_on_one_clock(self):
        import h5py
        import hdf5plugin  # noqa: F401
        import numpy
        h5py.h5pl.prepend(os.environ["ROCPROF_TEST_PLUGIN_DIR"].encode())
        job = self.synthetic()
        out = os.path.join(self.dir, "job.h5")
        result = self.merge(job, "-o", out, "-q")
        self.assertEqual(result.returncode, 0, result.stderr)
        with h5py.File(out, "r") as f:
            self.assertEqual(f.attrs["format"], "rocprof-mpi merged trace")
            self.assertEqual(f.attrs["job_id"], "synthetic")
            strings = f["strings"].asstr()[:]
            mpi = f["mpi_calls"]
            self.assertEqual(mpi["rank"].shape[0], 4 * 1200)  # with Waitall's per-request rows
            self.assertEqual(sorted(set(mpi["rank"][:].tolist())), [0, 1, 2, 3])
            functions = strings[mpi["function"][:]]
            self.assertEqual(int((functions == "MPI_Allreduce").sum()), 4 * 200)
            ranges = f["ranges"]
            names = strings[ranges["name"][:]]
            begins = ranges["begin_ns"][:]
            ranks = ranges["rank"][:]
            compute = [numpy.sort(begins[(ranks == r) & (names == "compute")]) for r in range(4)]
            for r in range(1, 4):  # clocks were seconds apart; aligned, identical
                self.assertTrue(numpy.all(numpy.abs(compute[r].astype(numpy.int64) -
                                                    compute[0].astype(numpy.int64)) <= 2))
            self.assertEqual(list(f["communicators"]["comm_rank"][:]), [0, 1, 2, 3])

    def test_messages_are_matched_and_causality_violations_corrected(self):
        clean = self.synthetic("clean")
        result = self.merge(clean, "-o", os.path.join(self.dir, "c.pftrace"), "--no-summary")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("800 messages matched; receives before their send: 0 after clock "
                      "alignment, 0 after correction", result.stdout)
        # Each matched message is one flow: an arrow from its send to the call completing it.
        text = self.decode(os.path.join(self.dir, "c.pftrace"))
        starts = re.findall(r"\bflow_ids: (\d+)", text)
        ends = re.findall(r"\bterminating_flow_ids: (\d+)", text)
        self.assertEqual(len(starts), 800)
        self.assertEqual(sorted(starts), sorted(ends))
        self.assertEqual(len(set(starts)), 800)
        # Rank 2's clock measurement is 15 us off: its sends to rank 3 now begin 6.1 us after
        # rank 3's receives completed, in all 200 iterations.
        skewed = self.synthetic("skewed", skew=(2, 15000))
        off = self.merge(skewed, "-o", os.path.join(self.dir, "s.json"), "--no-summary",
                         "--no-causality-correction")
        self.assertIn("200 after clock alignment, 200 (correction off)", off.stdout)
        fixed = self.merge(skewed, "-o", os.path.join(self.dir, "s.json"), "--no-summary")
        self.assertEqual(fixed.returncode, 0, fixed.stderr)
        self.assertIn("200 after clock alignment, 0 after correction (largest shift 6.100 us)",
                      fixed.stdout)
        # The least shift: rank 3 moves forward by exactly the violation; its local durations
        # stay as they were.
        events = read_json(os.path.join(self.dir, "s.json"))["traceEvents"]
        allreduce = [e for e in events if e.get("name") == "MPI_Allreduce" and e["pid"] == 3]
        # The JSON has the same flows, as string ids, each from one rank to another.
        flows = [e for e in events if e.get("name") == "message" and e.get("cat") == "flow"]
        starts = {e["id"]: e["pid"] for e in flows if e["ph"] == "s"}
        ends = {e["id"]: e["pid"] for e in flows if e["ph"] == "f" and e["bp"] == "e"}
        self.assertEqual(len(flows), 1600)
        self.assertEqual(len(starts), 800)
        self.assertEqual(starts.keys(), ends.keys())
        self.assertTrue(all(starts[i] != ends[i] for i in starts))
        self.assertTrue(all(abs(e["dur"] - 3.9) < 0.001 for e in allreduce))

    def test_otf2_archive_reads_back_with_otf2_print(self):
        job = self.synthetic()
        anchor = os.path.join(self.dir, "app.otf2")
        result = self.merge(job, "-o", anchor, "-q")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(os.path.isdir(os.path.join(self.dir, "app")))
        events = subprocess.run(["otf2-print", anchor], capture_output=True, text=True)
        self.assertEqual(events.returncode, 0, events.stderr)
        self.assertNotIn("warning", (events.stdout + events.stderr).lower())
        lines = events.stdout.splitlines()
        # Every MPI call and range is a region entered and left on its thread's location.
        self.assertEqual(sum(1 for l in lines if l.startswith("ENTER")), 4 * 1200)
        self.assertEqual(sum(1 for l in lines if l.startswith("LEAVE")), 4 * 1200)
        self.assertEqual(sum(1 for l in lines if l.startswith("ENTER") and '"MPI_Allreduce"' in l), 4 * 200)
        # MPI records: each rank sends to the next and receives from the previous, 200 times,
        # and joins 200 allreduces. A rank's locations are numbered from rank << 32.
        def records(kind):
            return [l.split() for l in lines if l.split()[:1] == [kind]]
        for kind in ("MPI_ISEND", "MPI_IRECV_REQUEST", "MPI_ISEND_COMPLETE", "MPI_IRECV",
                     "MPI_COLLECTIVE_BEGIN", "MPI_COLLECTIVE_END"):
            self.assertEqual(len(records(kind)), 4 * 200, kind)
        for fields in records("MPI_ISEND"):
            self.assertEqual(fields[3:5], ["Receiver:", str(((int(fields[1]) >> 32) + 1) % 4)])
        for fields in records("MPI_IRECV"):
            self.assertEqual(fields[3:5], ["Sender:", str(((int(fields[1]) >> 32) + 3) % 4)])
        self.assertTrue(all('Communicator: "MPI_COMM_WORLD"' in l for l in lines
                            if l.startswith(("MPI_ISEND ", "MPI_IRECV ", "MPI_COLLECTIVE_END"))))
        self.assertTrue(all("Operation: ALLREDUCE" in l and "Root: NONE" in l for l in lines
                            if l.startswith("MPI_COLLECTIVE_END")))
        started = sorted((f[1], f[-1]) for f in records("MPI_ISEND"))
        completed = sorted((f[1], f[-1]) for f in records("MPI_ISEND_COMPLETE"))
        self.assertEqual(started, completed)  # every send request completes, on its location
        definitions = subprocess.run(["otf2-print", "-G", anchor], capture_output=True, text=True)
        self.assertEqual(definitions.returncode, 0, definitions.stderr)
        groups = [l for l in definitions.stdout.splitlines() if l.startswith("LOCATION_GROUP")]
        self.assertEqual(len(groups), 4)
        self.assertIn("Ticks per Seconds: 1000000000", definitions.stdout)
        comms = [l for l in definitions.stdout.splitlines() if l.startswith("COMM ")]
        self.assertEqual(len(comms), 1)
        self.assertIn('"MPI_COMM_WORLD"', comms[0])
        # Writing again replaces the archive.
        self.assertEqual(self.merge(job, "-o", anchor, "-q").returncode, 0)

    def test_parallel_merge_writes_what_the_serial_merge_writes(self):
        # 7 ranks over 3 merge processes (uneven blocks), with a clock error to correct.
        job = self.synthetic("seven", ranks=7, events=100000, skew=(3, 15000))
        serial = os.path.join(self.dir, "serial.pftrace")
        parallel = os.path.join(self.dir, "parallel.pftrace")
        self.assertEqual(self.merge(job, "-o", serial, "-q").returncode, 0)
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        result = subprocess.run(["mpirun", "--oversubscribe", "-np", "3", MERGE, job, "-o",
                                 parallel, "--no-summary"], env=env, capture_output=True,
                                text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("(3 merge processes)", result.stdout)
        self.assertIn("after correction", result.stdout)
        self.assertEqual(result.stdout.count("rocprof-merge: 7 ranks"), 1)  # one process talks
        with open(serial, "rb") as a, open(parallel, "rb") as b:
            self.assertEqual(a.read(), b.read())  # same events, same order, same bytes
        # The merged HDF5: every process encodes its ranks' chunks, the first writes them; the
        # tables hold what the serial merge's hold, row for row.
        import h5py
        import hdf5plugin  # noqa: F401
        import numpy
        h5py.h5pl.prepend(os.environ["ROCPROF_TEST_PLUGIN_DIR"].encode())
        serial_h5 = os.path.join(self.dir, "serial.h5")
        parallel_h5 = os.path.join(self.dir, "parallel.h5")
        self.assertEqual(self.merge(job, "-o", serial_h5, "-q").returncode, 0)
        result = subprocess.run(["mpirun", "--oversubscribe", "-np", "3", MERGE, job, "-o",
                                 parallel_h5, "-q"], env=env, capture_output=True, text=True,
                                timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        with h5py.File(serial_h5, "r") as a, h5py.File(parallel_h5, "r") as b:
            self.assertEqual(sorted(a.keys()), sorted(b.keys()))
            self.assertEqual(a["strings"].asstr()[:].tolist(), b["strings"].asstr()[:].tolist())
            compared = 0
            for table in a:
                if isinstance(a[table], h5py.Group) and table != "analysis":
                    for column in a[table]:
                        self.assertTrue(numpy.array_equal(a[table][column][:], b[table][column][:]),
                                        f"{table}/{column}")
                        compared += a[table][column].shape[0]
            self.assertGreater(a["ranges"]["rank"].shape[0], 65536)  # several chunks, shared ones
            self.assertGreater(compared, 0)
            # The analysis, found by each process for its ranks, is the serial one.
            self.assertIn("waits/count", analysis_tables(a))
            self.assertEqual(analysis_tables(a), analysis_tables(b))
        # JSON parts joined in order, and the summary added up from every process's ranks.
        serial_json = self.merge(job, "-o", os.path.join(self.dir, "serial.json"),
                                 "--summary-csv", os.path.join(self.dir, "serial"))
        self.assertEqual(serial_json.returncode, 0, serial_json.stderr)
        result = subprocess.run(["mpirun", "--oversubscribe", "-np", "3", MERGE, job, "-o",
                                 os.path.join(self.dir, "parallel.json"), "--summary-csv",
                                 os.path.join(self.dir, "parallel")], env=env,
                                capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        for a, b in (("serial.json", "parallel.json"), ("serial_mpi.csv", "parallel_mpi.csv"),
                     ("serial_regions.csv", "parallel_regions.csv")):
            with open(os.path.join(self.dir, a), "rb") as x, open(os.path.join(self.dir, b), "rb") as y:
                self.assertEqual(x.read(), y.read(), b)
        table = serial_json.stdout[serial_json.stdout.index("MPI: time"):].split("rocprof-merge:")[0]
        self.assertIn(table, result.stdout)  # the printed summary too
        # More processes than ranks: the idle ones still take part, and the trace is whole.
        two = self.synthetic("two", ranks=2, events=1000)
        result = subprocess.run(["mpirun", "--oversubscribe", "-np", "3", MERGE, two, "-o",
                                 os.path.join(self.dir, "two.json"), "-q"], env=env,
                                capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.merge(two, "-o", os.path.join(self.dir, "two_serial.json"),
                                    "-q").returncode, 0)
        self.assertEqual(read_json(os.path.join(self.dir, "two.json")),
                         read_json(os.path.join(self.dir, "two_serial.json")))
        # Ranks of very different sizes: the blocks are cut by cost, not by count (the first
        # process writes the big rank and few others); every output is still the serial one.
        uneven = self.synthetic("uneven", ranks=6, events=2000, busy=(1, 100000))
        for extension in (".json", ".otf2", ".pftrace"):
            outputs = [os.path.join(self.dir, f"uneven_{kind}{extension}")
                       for kind in ("serial", "parallel")]
            self.assertEqual(self.merge(uneven, "-o", outputs[0], "-q").returncode, 0)
            result = self.merge_parallel(3, uneven, "-o", outputs[1], "-q")
            self.assertEqual(result.returncode, 0, result.stderr)
            if extension == ".otf2":
                printed = [subprocess.run(["otf2-print", o], capture_output=True, text=True,
                                          check=True).stdout.replace(o, "ARCHIVE")
                           for o in outputs]
                self.assertEqual(printed[0].replace("uneven_serial", "uneven_parallel"),
                                 printed[1])
            else:
                with open(outputs[0], "rb") as a, open(outputs[1], "rb") as b:
                    self.assertTrue(a.read() == b.read(), extension)
        # Names that do not follow the ranks: a process then checks (and reads the messages
        # of) other ranks than those it writes; the trace is still the serial one.
        for a, b in (("0", "6"), ("2", "5")):
            os.replace(os.path.join(job, f"{a}.h5"), os.path.join(job, "swap"))
            os.replace(os.path.join(job, f"{b}.h5"), os.path.join(job, f"{a}.h5"))
            os.replace(os.path.join(job, "swap"), os.path.join(job, f"{b}.h5"))
        swapped = os.path.join(self.dir, "swapped.pftrace")
        result = subprocess.run(["mpirun", "--oversubscribe", "-np", "3", MERGE, job, "-o",
                                 swapped, "-q"], env=env, capture_output=True, text=True,
                                timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(serial, "rb") as a, open(swapped, "rb") as b:
            self.assertEqual(a.read(), b.read())
        # Nothing left but the parallel .h5's directory of linked parts (the default).
        self.assertEqual([n for n in os.listdir(self.dir) if ".part" in n or ".messages" in n],
                         ["parallel.h5.parts"])

    def test_a_small_job_is_merged_by_as_many_processes_as_it_needs(self):
        # The test suite runs every merge with ROCPROF_MERGE_PROCESSES=all, so that parallel
        # merges of small jobs stay parallel; by default (auto) a job of a few records is
        # merged by the first process alone, the others helping check the files only.
        job = self.synthetic("small", ranks=7, events=20000, skew=(3, 15000))
        outputs = {}
        for extension in (".pftrace", ".h5", ".json"):
            outputs[extension] = os.path.join(self.dir, "serial" + extension)
            self.assertEqual(self.merge(job, "-o", outputs[extension], "-q").returncode, 0)
        for setting, merging in (("auto", 1), ("2", 2), ("all", 3)):
            for extension, serial in outputs.items():
                output = os.path.join(self.dir, f"{setting}{extension}")
                result = self.merge_parallel(
                    3, job, "-o", output, "--no-summary", "--timings",
                    "--summary-csv", os.path.join(self.dir, f"{setting}{extension}"),
                    settings=(f"ROCPROF_MERGE_PROCESSES={setting}",))
                self.assertEqual(result.returncode, 0, result.stderr)
                said = f"{merging} of the 3 processes merge this job"
                if merging < 3:
                    self.assertEqual(result.stdout.count(said), 1, result.stdout)
                else:
                    self.assertNotIn("processes merge this job", result.stdout)
                self.assertEqual("merge processes)" in result.stdout, merging > 1)
                if merging > 1:
                    self.assertIn(f"({merging} merge processes)", result.stdout)
                # --timings lists MPI's start, and the phases of the merging processes alone.
                self.assertIn("s starting MPI", result.stderr)
                writing = [line for line in result.stderr.splitlines() if "s writing" in line]
                self.assertEqual(len(writing), 1, result.stderr)
                self.assertEqual(writing[0].count("each process:"), 1 if merging > 1 else 0)
                if extension == ".h5":
                    self.assertEqual(subprocess.run(["h5dump", "-H", output],
                                                    capture_output=True).returncode, 0)
                    continue
                with open(serial, "rb") as a, open(output, "rb") as b:
                    self.assertTrue(a.read() == b.read(), f"{setting}{extension}")
        # The summary's tables, from every setting and output, are one.
        for table in ("mpi", "regions", "waits"):
            texts = set()
            for setting in ("auto", "2", "all"):
                for extension in outputs:
                    with open(os.path.join(self.dir, f"{setting}{extension}_{table}.csv"),
                              "rb") as csv:
                        texts.add(csv.read())
            self.assertEqual(len(texts), 1, table)
        # The merged .h5's tables: the serial merge's, row for row, whoever merged them.
        import h5py
        import hdf5plugin  # noqa: F401
        import numpy
        h5py.h5pl.prepend(os.environ["ROCPROF_TEST_PLUGIN_DIR"].encode())
        with h5py.File(outputs[".h5"], "r") as a:
            for setting in ("auto", "2", "all"):
                with h5py.File(os.path.join(self.dir, f"{setting}.h5"), "r") as b:
                    self.assertEqual(analysis_tables(a), analysis_tables(b))
                    for table in a:
                        if isinstance(a[table], h5py.Group) and table != "analysis":
                            for column in a[table]:
                                self.assertTrue(numpy.array_equal(a[table][column][:],
                                                                  b[table][column][:]),
                                                f"{setting}: {table}/{column}")
        # Nothing left but the parallel .h5 outputs' directories of linked parts.
        self.assertEqual(sorted(n for n in os.listdir(self.dir) if ".part" in n or ".messages" in n),
                         ["2.h5.parts", "all.h5.parts"])
        # A setting that is neither refuses the merge before any work, on every process.
        result = self.merge_parallel(2, job, "-o", os.path.join(self.dir, "no.json"),
                                     settings=("ROCPROF_MERGE_PROCESSES=0",))
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stderr.count("ROCPROF_MERGE_PROCESSES is '0'"), 1, result.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "no.json")))

    def test_more_ranks_than_open_files_allowed(self):
        # Clusters often allow 1024 open files or fewer; a job has many more ranks. Serially
        # and in parallel, every output merges within a limit of 128 open files per process,
        # 400 ranks (the parallel .h5 merge once held every counted rank's file open at once).
        job = self.synthetic("many", ranks=400, events=200)

        def limited():
            resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))

        for extension in (".h5", ".pftrace", ".otf2", ".json"):
            serial = os.path.join(self.dir, "many_serial" + extension)
            parallel = os.path.join(self.dir, "many_parallel" + extension)
            with self.subTest(output=extension):
                result = subprocess.run([MERGE, job, "-o", serial, "-q"], capture_output=True,
                                        text=True, timeout=300, preexec_fn=limited)
                self.assertEqual(result.returncode, 0, result.stderr)
                result = self.merge_parallel(2, job, "-o", parallel, "-q", preexec_fn=limited)
                self.assertEqual(result.returncode, 0, result.stderr)
                if extension in (".pftrace", ".json"):
                    with open(serial, "rb") as a, open(parallel, "rb") as b:
                        self.assertTrue(a.read() == b.read(), "not the serial output")

    def test_a_parallel_merge_checks_while_mpi_starts_and_mpi_has_the_last_word(self):
        # Each process checks its share of the files while MPI starts, placed by the
        # launcher's variables; MPI's own ranks decide. Launcher variables that place every
        # process one further (a wrapper rewrites them) make every early share the wrong one:
        # each is dropped, the check is done again, and the trace is still the serial one.
        job = self.synthetic("five", ranks=5, events=20000, skew=(2, 9000))
        serial = os.path.join(self.dir, "serial.pftrace")
        self.assertEqual(self.merge(job, "-o", serial, "-q").returncode, 0)
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        shifted = 'OMPI_COMM_WORLD_RANK=$(( (OMPI_COMM_WORLD_RANK + 1) % 3 )) exec "$0" "$@"'
        for name, wrapper in (("early", []), ("shifted", ["sh", "-c", shifted])):
            out = os.path.join(self.dir, f"{name}.pftrace")
            result = subprocess.run(["mpirun", "--oversubscribe", "-np", "3", *wrapper, MERGE,
                                     job, "-o", out, "-q", "--timings"], env=env,
                                    capture_output=True, text=True, timeout=300)
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(serial, "rb") as a, open(out, "rb") as b:
                self.assertEqual(a.read(), b.read(), name)
            # --timings: every process's seconds per phase, starting MPI included.
            # The analysis's steps (one line after the phases) are the first process's.
            lines = [l for l in result.stderr.splitlines()
                     if " s " in l and "steps on the first process" not in l]
            self.assertTrue(lines[0].endswith(")") and "starting MPI (each process:" in lines[0],
                            result.stderr)
            self.assertTrue(any("checking rank files (each process:" in l for l in lines))
            # The parts: the wait for the others' (an uneven share) apart from the copy.
            phases = [l.split(" s ", 1)[1].split(" (")[0] for l in lines]
            waiting = phases.index("waiting for the other processes' parts")
            self.assertEqual(phases[waiting + 1], "joining the parts", phases)
            for line in lines:
                if line.endswith("(first process only)"):  # the first process's own work
                    continue
                self.assertEqual(len(line[line.index("process:"):].split()), 4, line)
            self.assertTrue(lines[-1].endswith("s moving the output into place "
                                               "(first process only)"), lines[-1])
            # The matching is shared: the first process handed sends to the others' ranks.
            matching = [l for l in result.stderr.splitlines() if "the matching's steps" in l]
            self.assertEqual(len(matching), 1, result.stderr)
            self.assertRegex(matching[0], r"in [1-9][0-9]* exchanges with the other processes "
                                          r"\([1-9][0-9]* sends handed to them\)")
            # The analysis's too: how long its exchanges with the others took.
            analysis = [l for l in result.stderr.splitlines() if "the analysis's steps" in l]
            self.assertEqual(len(analysis), 1, result.stderr)
            self.assertRegex(analysis[0], r"[0-9.]+ s in [1-9][0-9]* exchanges$")
        self.assertEqual([n for n in os.listdir(self.dir) if ".part" in n or ".messages" in n], [])

    def test_timings_list_the_analysis_the_report_and_the_final_move(self):
        # --timings used to stop before the first process's own work (analysis, summary,
        # report, the analysis tracks, moving the output into place): the listed phases of a
        # 20 s merge added up to 6 s.
        import time
        job = self.synthetic("job", ranks=4, events=20000)
        out = os.path.join(self.dir, "out.pftrace")
        report = os.path.join(self.dir, "out.html")
        began = time.monotonic()
        result = self.merge(job, "-o", out, "--wait-states", "--report", report, "--timings",
                            "--no-summary")
        wall = time.monotonic() - began
        self.assertEqual(result.returncode, 0, result.stderr)
        steps = [l for l in result.stderr.splitlines() if "the analysis's steps" in l]
        self.assertEqual(len(steps), 1, result.stderr)
        self.assertIn("gathering", steps[0])
        # The matching's steps: one line, with the endpoints it walked (4 ranks x 2 per
        # message; no other process to exchange with).
        matching = [l for l in result.stderr.splitlines() if "the matching's steps" in l]
        self.assertEqual(len(matching), 1, result.stderr)
        self.assertRegex(matching[0], r"s walking [1-9][0-9]* message endpoints in [1-9][0-9]* "
                                      r"rounds, [0-9.]+ s in 0 exchanges with the other "
                                      r"processes \(0 sends handed to them\)")
        lines = [l.split(" s ", 1) for l in result.stderr.splitlines()
                 if " s " in l and "steps on the first process" not in l]
        phases = [name for _, name in lines]
        for name in ("checking rank files", "analysing wait states and the critical path",
                     "writing the HTML report", "adding the analysis to the timeline",
                     "moving the output into place"):
            self.assertIn(name, phases, result.stderr)
        self.assertEqual(phases[-1], "moving the output into place")
        seconds = sum(float(value.rsplit(" ", 1)[-1]) for value, _ in lines)
        self.assertLessEqual(seconds, wall)

    def test_help_says_how_to_merge_in_parallel_and_names_the_settings(self):
        result = self.merge("--help")
        self.assertEqual(result.returncode, 0, result.stderr)
        for text in ("srun -n K -c 4", "--bind-to none", "ROCPROF_MERGE_DIRECT_IO=auto|on|off",
                     "ROCPROF_MERGE_SEND_THREAD=auto|off", "ROCPROF_MERGE_CHECK_HELPERS=auto|N",
                     "ROCPROF_MERGE_ENCODE_HELPERS=auto|N",
                     "ROCPROF_MERGE_ONE_NODE_MPI=auto|off", "ROCPROF_MERGE_PROCESSES=auto|all|N",
                     "docs/ROCPROF_MERGE.md"):
            self.assertIn(text, result.stdout)

    def test_check_helpers_change_nothing_but_the_time(self):
        # 64 ranks: enough files for check helpers (rocprof-merge itself, run again). Without
        # them, with three, serially and on 2 merge processes: the same trace, byte for byte.
        job = self.synthetic("helped", ranks=64, events=600)
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        traces = {}
        for setting in ("0", "3"):
            out = os.path.join(self.dir, f"helped_{setting}.pftrace")
            result = subprocess.run([MERGE, job, "-o", out, "-q"],
                                    env=dict(env, ROCPROF_MERGE_CHECK_HELPERS=setting),
                                    capture_output=True, text=True, timeout=300)
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(out, "rb") as f:
                traces[setting] = f.read()
            out = os.path.join(self.dir, f"helped_{setting}_2.pftrace")
            result = subprocess.run(["mpirun", "--oversubscribe", "-np", "2", "-x",
                                     "ROCPROF_MERGE_CHECK_HELPERS", MERGE, job, "-o", out, "-q"],
                                    env=dict(env, ROCPROF_MERGE_CHECK_HELPERS=setting),
                                    capture_output=True, text=True, timeout=300)
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(out, "rb") as f:
                self.assertEqual(f.read(), traces[setting])
        self.assertGreater(len(traces["0"]), 0)
        self.assertEqual(traces["0"], traces["3"])
        # No helper outlives its merge. A helper left behind is reparented to a reaper, which
        # is an ancestor of this test (init, or a subreaper above it); helpers of other tests
        # running beside this one have their own, live, parents elsewhere in the tree.
        def parent_of(pid):
            with open(f"/proc/{pid}/stat") as f:
                return int(f.read().rsplit(")", 1)[1].split()[1])

        ancestors = {os.getpid()}
        pid = os.getpid()
        while pid > 1:
            pid = parent_of(pid)
            ancestors.add(pid)
        helpers = subprocess.run(["pgrep", "-f", "internal-rank-file-check-helper"],
                                 capture_output=True, text=True)
        orphans = []
        for helper in helpers.stdout.split():
            try:
                if parent_of(helper) in ancestors:
                    orphans.append(helper)
            except OSError:
                continue  # gone meanwhile
        self.assertEqual(orphans, [])
        out = os.path.join(self.dir, "helped_bad.pftrace")
        for command in ([MERGE, job, "-o", out],
                        ["mpirun", "--oversubscribe", "-np", "2", "-x",
                         "ROCPROF_MERGE_CHECK_HELPERS", MERGE, job, "-o", out]):
            bad = subprocess.run(command, env=dict(env, ROCPROF_MERGE_CHECK_HELPERS="many"),
                                 capture_output=True, text=True, timeout=300)
            self.assertEqual(bad.returncode, 2, bad.stderr)
            self.assertEqual(bad.stderr.count("ROCPROF_MERGE_CHECK_HELPERS is 'many'"), 1,
                             bad.stderr)
            self.assertFalse(os.path.exists(out))

    def test_encode_helpers_change_nothing_but_the_time(self):
        # Small ranks, whose tables the helpers make ready (and whose ranges they count for a
        # parallel .h5), beside one large rank, counted before the tables: with no helper and
        # with two, serially and on 2 and 3 merge processes (the large rank then shares a
        # block with small ones), the same tables and the same trace; for .h5 also the same
        # summary (the helpers make the small ranks' rows ready, and the summary is gathered
        # from them: each range, MPI call and activity must be seen exactly once).
        import h5py
        import hdf5plugin  # noqa: F401
        import numpy
        h5py.h5pl.prepend(os.environ["ROCPROF_TEST_PLUGIN_DIR"].encode())
        job = self.synthetic("mixed", ranks=6, events=2000, busy=(4, 20000))
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        reference = {}
        for processes, helpers in ((1, "0"), (1, "2"), (2, "0"), (2, "2"), (3, "2")):
            for extension in (".h5", ".pftrace"):
                out = os.path.join(self.dir, f"mixed_{processes}_{helpers}{extension}")
                prefix = os.path.join(self.dir, f"mixed_{processes}_{helpers}")
                command = [MERGE, job, "-o", out, "-q", "--summary-csv", prefix]
                if processes > 1:
                    command = ["mpirun", "--oversubscribe", "-np", str(processes), "-x",
                               "ROCPROF_MERGE_ENCODE_HELPERS", *command]
                result = subprocess.run(command, env=dict(env, ROCPROF_MERGE_ENCODE_HELPERS=helpers),
                                        capture_output=True, text=True, timeout=300)
                self.assertEqual(result.returncode, 0, result.stderr)
                if extension == ".pftrace":
                    with open(out, "rb") as f:
                        got = f.read()
                else:
                    got = {}

                    def take(name, item):
                        # Every column, the analysis group's too (its strings as text).
                        if isinstance(item, h5py.Dataset):
                            got[name] = (item.asstr()[:].tolist()
                                         if h5py.check_string_dtype(item.dtype)
                                         else item[:].tobytes())
                    with h5py.File(out, "r") as f:
                        f.visititems(take)
                    self.assertIn("analysis/region_imbalance/imbalance", got)
                    # The large rank's ranges are there, after the small ranks' before it.
                    self.assertEqual(numpy.count_nonzero(
                        numpy.frombuffer(got["ranges/rank"], numpy.int32) == 4), 20000 + 400)
                    for table in ("mpi", "regions", "kernels"):
                        with open(f"{prefix}_{table}.csv") as f:
                            got[f"summary {table}"] = f.read()
                    self.assertIn("4,", got["summary regions"])
                reference.setdefault(extension, got)
                self.assertEqual(got, reference[extension], out)
        out = os.path.join(self.dir, "mixed_bad.h5")
        bad = subprocess.run([MERGE, job, "-o", out], capture_output=True, text=True,
                             env=dict(env, ROCPROF_MERGE_ENCODE_HELPERS="-1"), timeout=300)
        self.assertEqual(bad.returncode, 2, bad.stderr)
        self.assertEqual(bad.stderr.count("ROCPROF_MERGE_ENCODE_HELPERS is '-1'"), 1, bad.stderr)
        self.assertFalse(os.path.exists(out))

    def test_open_mpis_network_layer_is_left_out_on_one_node_unless_told_otherwise(self):
        # Every parallel test here runs on one node, so with the network-only layer left out
        # (OMPI_MCA_pml gains cm); "off" leaves Open MPI's choice: the same trace; a misspelt
        # value stops every process before any work, said once.
        job = self.synthetic("onenode", ranks=4, events=20000)
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        traces = {}
        for setting in ("auto", "off", "bad"):
            out = os.path.join(self.dir, f"onenode_{setting}.pftrace")
            result = subprocess.run(["mpirun", "--oversubscribe", "-np", "2", "-x",
                                     "ROCPROF_MERGE_ONE_NODE_MPI", MERGE, job, "-o", out, "-q"],
                                    env=dict(env, ROCPROF_MERGE_ONE_NODE_MPI=setting),
                                    capture_output=True, text=True, timeout=300)
            if setting == "bad":
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertEqual(result.stderr.count("ROCPROF_MERGE_ONE_NODE_MPI is 'bad'"), 1,
                                 result.stderr)
                self.assertFalse(os.path.exists(out))
                continue
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(out, "rb") as f:
                traces[setting] = f.read()
        self.assertEqual(traces["auto"], traces["off"])

    def test_the_sending_thread_can_be_turned_off(self):
        # ROCPROF_MERGE_SEND_THREAD=off keeps MPI on the main thread (non-blocking sends in
        # flight instead): the merged tables are the same; a misspelt value stops every
        # process before any work, said once.
        import h5py
        import hdf5plugin  # noqa: F401
        h5py.h5pl.prepend(os.environ["ROCPROF_TEST_PLUGIN_DIR"].encode())
        job = self.synthetic("sends", ranks=5, events=30000)
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        outputs = {}
        for setting in ("auto", "off"):
            out = os.path.join(self.dir, f"sends_{setting}.h5")
            result = subprocess.run(["mpirun", "--oversubscribe", "-np", "3", MERGE, job, "-o",
                                     out, "-q"], env=dict(env, ROCPROF_MERGE_SEND_THREAD=setting),
                                    capture_output=True, text=True, timeout=300)
            self.assertEqual(result.returncode, 0, result.stderr)
            with h5py.File(out, "r") as f:
                outputs[setting] = {f"{t}/{c}": f[t][c][:].tobytes()
                                    for t in f if isinstance(f[t], h5py.Group) and t != "analysis"
                                    for c in f[t]}
                outputs[setting]["analysis"] = analysis_tables(f)
        self.assertGreater(len(outputs["off"]["mpi_calls/begin_ns"]), 0)
        self.assertEqual(outputs["auto"], outputs["off"])
        out = os.path.join(self.dir, "sends_bad.h5")
        bad = subprocess.run(["mpirun", "--oversubscribe", "-np", "2", MERGE, job, "-o", out],
                             env=dict(env, ROCPROF_MERGE_SEND_THREAD="of"),
                             capture_output=True, text=True, timeout=300)
        self.assertEqual(bad.returncode, 2, bad.stderr)
        self.assertEqual(bad.stderr.count("ROCPROF_MERGE_SEND_THREAD is 'of'"), 1, bad.stderr)
        self.assertFalse(os.path.exists(out))

    def test_bad_input_names_the_file(self):
        job = self.synthetic()
        out = os.path.join(self.dir, "x.json")
        os.remove(os.path.join(job, "2.h5"))
        missing = self.merge(job, "-o", out)
        self.assertEqual(missing.returncode, 1)
        self.assertIn("(rank 2)", missing.stderr)
        self.assertFalse(os.path.exists(out))
        allowed = self.merge(job, "-o", out, "--allow-missing", "-q")
        self.assertEqual(allowed.returncode, 0, allowed.stderr)
        self.assertIn("1 of the job's 4 ranks has no file (rank ", allowed.stderr)
        with open(os.path.join(job, "7.h5"), "wb") as f:
            f.write(b"not a rank file")
        bad = self.merge(job, "-o", out, "--allow-missing")
        self.assertEqual(bad.returncode, 1)
        self.assertIn(os.path.join(job, "7.h5"), bad.stderr)
        skipped = self.merge(job, "-o", out, "--allow-missing", "--skip-bad", "-q")
        self.assertEqual(skipped.returncode, 0, skipped.stderr)
        self.assertIn("skipped " + os.path.join(job, "7.h5"), skipped.stderr)
        # Two runs in one place: the same rank twice (mixed jobs: merge_input_test).
        other = self.synthetic("other")
        duplicate = self.merge(job, os.path.join(other, "1.h5"), "-o", out, "--allow-missing",
                               "--skip-bad")
        self.assertEqual(duplicate.returncode, 1)
        self.assertIn(f"{os.path.join(other, '1.h5')}: rank 1 is also in", duplicate.stderr)

    def test_rank_files_of_format_1_merge_to_the_same_timeline(self):
        # Files written before format 2 (a group of column datasets per table) still merge: to
        # the bytes the same rows give in format 2, alone or mixed with format-2 files. They
        # are made here with h5py from format-2 files, with stock filters (shuffle, deflate),
        # which format 1 allowed.
        import h5py
        import numpy
        h5py.h5pl.prepend(os.environ["ROCPROF_TEST_PLUGIN_DIR"].encode())
        job = self.synthetic(ranks=4, events=3000)
        def rewrite_as_column_groups(path):
            with h5py.File(path, "r+") as f:
                for table in [name for name in f if f[name].dtype.names]:
                    rows = f[table][:]
                    del f[table]
                    group = f.create_group(table)
                    for column in rows.dtype.names:
                        group.create_dataset(column, data=rows[column], chunks=(16384,),
                                             maxshape=(None,), shuffle=True, compression="gzip")
                # 1.1: its reader takes a table missing from it as empty (format 2 leaves out
                # tables that never had a row; 1.2 would need all of them).
                f.attrs["format_version"] = numpy.array([1, 1], dtype=numpy.uint32)
                f.attrs["chunk_rows"] = numpy.uint32(16384)
        old, mixed = os.path.join(self.dir, "old"), os.path.join(self.dir, "mixed")
        shutil.copytree(job, old)
        shutil.copytree(job, mixed)
        for name in os.listdir(old):
            rewrite_as_column_groups(os.path.join(old, name))
        for name in ("0.h5", "3.h5"):
            rewrite_as_column_groups(os.path.join(mixed, name))
        with h5py.File(os.path.join(old, "1.h5"), "r") as f:
            self.assertIsInstance(f["mpi_calls"], h5py.Group)
            self.assertGreater(f["mpi_calls"]["begin_ns"].shape[0], 100)
        traces = {}
        for name, directory in (("new", job), ("old", old), ("mixed", mixed)):
            out = os.path.join(self.dir, f"{name}.pftrace")
            result = self.merge(directory, "-o", out, "--no-summary")
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(out, "rb") as f:
                traces[name] = f.read()
        self.assertGreater(len(traces["new"]), 10000)
        self.assertEqual(traces["old"], traces["new"])
        self.assertEqual(traces["mixed"], traces["new"])

    def test_a_damaged_message_chunk_names_its_file_and_leaves_nothing(self):
        # Rank 1's MPI calls are read for message matching on a helper thread while the next
        # files are checked (a serial merge): damage in them must still stop the merge with the
        # file and table named, and leave neither output nor message spill behind.
        import h5py
        job = self.synthetic(events=3000)
        damaged = os.path.join(job, "1.h5")
        with h5py.File(damaged, "r") as f:
            chunk = f["mpi_calls"].id.get_chunk_info(0)
        self.assertGreater(chunk.size, 16)
        with open(damaged, "r+b") as f:
            f.seek(chunk.byte_offset + 8)
            f.write(b"\x5a" * (chunk.size - 8))
        out = os.path.join(self.dir, "damaged.pftrace")
        result = self.merge(job, "-o", out, "--no-summary")
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn(damaged, result.stderr)
        self.assertIn("table mpi_calls", result.stderr)
        self.assertEqual([f for f in os.listdir(self.dir) if f.startswith("damaged")], [])
        # In parallel each process reads, on a helper as it checks them, the messages of the
        # files it checks; here the second process's (ranks 2 and 3). It says it, once, and no
        # process waits for the others forever or leaves a file.
        os.replace(damaged, os.path.join(job, "3.h5.tmp"))
        os.replace(os.path.join(job, "3.h5"), damaged)
        os.replace(os.path.join(job, "3.h5.tmp"), os.path.join(job, "3.h5"))
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        parallel = subprocess.run(["mpirun", "--oversubscribe", "-np", "2", MERGE, job, "-o",
                                   out, "--no-summary"],
                                  env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(parallel.returncode, 1, parallel.stdout)
        self.assertEqual(parallel.stderr.count("table mpi_calls"), 1, parallel.stderr)
        self.assertIn(os.path.join(job, "3.h5"), parallel.stderr)
        self.assertEqual([f for f in os.listdir(self.dir) if f.startswith("damaged")], [])

    def test_a_chunk_damaged_where_only_the_export_reads_fails_cleanly_in_parallel_too(self):
        # Markers are read only when the timeline is written (message matching reads MPI
        # calls alone): damage there is found mid-write. Serially the merge removes its output;
        # in a parallel .h5 merge the process that finds it removes what it wrote and aborts
        # the job, and the others, stopped by mpirun, remove theirs.
        import h5py
        job = self.synthetic(events=3000)
        damaged = os.path.join(job, "1.h5")  # in the first process's block: it writes the .h5
        with h5py.File(damaged, "r") as f:
            chunk = f["markers"].id.get_chunk_info(0)
        with open(damaged, "r+b") as f:
            f.seek(chunk.byte_offset + 8)
            f.write(b"\x5a" * (chunk.size - 8))
        serial = self.merge(job, "-o", os.path.join(self.dir, "midway.pftrace"), "--no-summary")
        self.assertEqual(serial.returncode, 1, serial.stdout)
        self.assertIn(f"{damaged}: cannot read rows", serial.stderr)
        self.assertIn("table markers", serial.stderr)
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        parallel = subprocess.run(["mpirun", "--oversubscribe", "-np", "2", MERGE, job, "-o",
                                   os.path.join(self.dir, "midway.h5"), "-q"],
                                  env=env, capture_output=True, text=True, timeout=300)
        self.assertNotEqual(parallel.returncode, 0)
        self.assertIn("table markers", parallel.stderr)
        self.assertEqual([f for f in os.listdir(self.dir) if f.startswith("midway")], [])
        # Linked parts (--h5-parts): the output, the parts' directory and every part go too.
        parallel = subprocess.run(["mpirun", "--oversubscribe", "-np", "2", MERGE, job, "-o",
                                   os.path.join(self.dir, "midway.h5"), "-q", "--h5-parts"],
                                  env=env, capture_output=True, text=True, timeout=300)
        self.assertNotEqual(parallel.returncode, 0)
        self.assertIn("table markers", parallel.stderr)
        self.assertEqual([f for f in os.listdir(self.dir) if "midway" in f], [])

    def test_parallel_merges_share_the_checks_and_agree_on_bad_input(self):
        # Each merge process checks its share of the rank files and the others take its word:
        # they reach the verdict a serial merge does, and the first says it once.
        job = self.synthetic(ranks=5, events=400)
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        def parallel(*args):
            return subprocess.run(["mpirun", "--oversubscribe", "-np", "3", MERGE, job, *args],
                                  env=env, capture_output=True, text=True, timeout=300)
        # A file only the last process checks (ranks 3 and 4 are its share) is damaged.
        with open(os.path.join(job, "4.h5"), "r+b") as f:
            f.write(b"not an HDF5 file")
        out = os.path.join(self.dir, "shared.json")
        refused = parallel("-o", out)
        self.assertEqual(refused.returncode, 1)
        self.assertEqual(refused.stderr.count(os.path.join(job, "4.h5")), 1, refused.stderr)
        self.assertIn("--skip-bad", refused.stderr)
        self.assertFalse(os.path.exists(out))
        # Skipped, the other four merge as they do serially (the JSON is the same bytes).
        skipped = parallel("-o", out, "--skip-bad", "--allow-missing", "--no-summary")
        self.assertEqual(skipped.returncode, 0, skipped.stderr)
        self.assertEqual(skipped.stderr.count("skipped " + os.path.join(job, "4.h5")), 1)
        self.assertIn("4 ranks,", skipped.stdout)
        serial_out = os.path.join(self.dir, "serial.json")
        serial = self.merge(job, "-o", serial_out, "--skip-bad", "--allow-missing", "-q")
        self.assertEqual(serial.returncode, 0, serial.stderr)
        with open(out, "rb") as a, open(serial_out, "rb") as b:
            self.assertEqual(a.read(), b.read())
        # --skip-bad alone: the rank whose file it left out needs no --allow-missing too.
        alone = self.merge(job, "-o", serial_out, "--skip-bad")
        self.assertEqual(alone.returncode, 0, alone.stderr)
        self.assertIn("1 of the job's 5 ranks has no file (rank 4): the files left out as "
                      "unreadable", alone.stderr)
        # Processes that see different input files (one node's view stale, say) stop together
        # and say so, rather than mix up their findings or wait for each other forever.
        other = os.path.join(self.dir, "other_view")
        shutil.copytree(job, other)
        os.remove(os.path.join(other, "1.h5"))
        script = f'exec "$0" "$([ "$OMPI_COMM_WORLD_RANK" = 1 ] && echo {other} || echo {job})" "$@"'
        split = subprocess.run(["mpirun", "--oversubscribe", "-np", "3", "sh", "-c", script,
                                MERGE, "-o", os.path.join(self.dir, "split.json"), "--skip-bad",
                                "--allow-missing"],
                               env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(split.returncode, 1, split.stdout)
        self.assertIn("the merge processes see different input files", split.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "split.json")))

    def test_the_summary_is_the_same_whichever_output_gathers_it(self):
        # Every exporter adds up the summary from the rows it reads as it writes them, each in
        # its own way (a .h5 merge reads the tables itself). Every figure must come out the
        # same, serially and with the ranks split between processes, device copies included.
        job = os.path.join(self.dir, "gpu_job")
        subprocess.run([SYNTHETIC, job, "4", "3000", "--gpu-aware-allreduce"], check=True)
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        tables = {}
        for output in ("s.h5", "s.pftrace", "s.json", "s.otf2", "p.pftrace", "p.h5"):
            prefix = os.path.join(self.dir, "sum_" + output.replace(".", "_"))
            command = [MERGE, job, "-o", os.path.join(self.dir, output), "--summary-csv", prefix]
            if output.startswith("p."):
                command = ["mpirun", "--oversubscribe", "-np", "2", *command]
            result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("MPI: time per function", result.stdout)
            tables[output] = []
            for kind in ("mpi", "regions"):
                with open(f"{prefix}_{kind}.csv") as f:
                    tables[output].append(f.read())
            gpu = result.stdout[result.stdout.index("GPU: top kernels"):]
            tables[output].append(gpu[:gpu.index("Regions")])
        self.assertGreater(len(tables["s.h5"][0].splitlines()), 4)
        self.assertGreater(len(tables["s.h5"][1].splitlines()), 4)
        self.assertIn("copy (kind 0)", tables["s.h5"][2])
        for output, table in tables.items():
            self.assertEqual(table, tables["s.h5"], output)

    def test_direct_io_writes_the_same_trace(self):
        # Past 64 MiB a .pftrace goes out with direct I/O where the file system takes it; "on"
        # uses it from the first block. The trace must be the same bytes either way, and a
        # misspelt setting is refused before any work.
        job = self.synthetic(ranks=4, events=100000)
        traces = {}
        for mode in ("on", "off"):
            out = os.path.join(self.dir, f"direct_{mode}.pftrace")
            result = subprocess.run([MERGE, job, "-o", out, "-q"], capture_output=True, text=True,
                                    timeout=300, env=dict(os.environ, ROCPROF_MERGE_DIRECT_IO=mode))
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(out, "rb") as f:
                traces[mode] = f.read()
        self.assertGreater(len(traces["on"]), 8 << 20)
        self.assertEqual(traces["on"], traces["off"])
        bad = subprocess.run([MERGE, job, "-o", os.path.join(self.dir, "direct_bad.pftrace")],
                             capture_output=True, text=True, timeout=300,
                             env=dict(os.environ, ROCPROF_MERGE_DIRECT_IO="yes"))
        self.assertEqual(bad.returncode, 2)  # like any other unusable option
        self.assertIn("ROCPROF_MERGE_DIRECT_IO is 'yes'", bad.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "direct_bad.pftrace")))

    def test_output_problems_fail_before_any_work(self):
        job = self.synthetic()
        nowhere = self.merge(job, "-o", os.path.join(self.dir, "no", "such", "dir", "t.json"))
        self.assertEqual(nowhere.returncode, 2)
        self.assertIn("does not exist", nowhere.stderr)
        unknown = self.merge(job, "-o", os.path.join(self.dir, "t.xyz"))
        self.assertEqual(unknown.returncode, 2)
        self.assertIn(".pftrace", unknown.stderr)
        # An archive job.otf2 would own the directory job/, which holds the rank files.
        before = sorted(os.listdir(job))
        clash = self.merge(job, "-o", job + ".otf2")
        self.assertEqual(clash.returncode, 2)
        self.assertIn("choose another name", clash.stderr)
        self.assertEqual(sorted(os.listdir(job)), before)
        # Its other two names: the directory is taken by a file, NAME.def by a directory.
        open(os.path.join(self.dir, "taken"), "w").close()
        os.mkdir(os.path.join(self.dir, "odd.def"))
        for anchor, message in (("taken.otf2", "a file has that name"), ("odd.otf2", "is not a file")):
            refused = self.merge(job, "-o", os.path.join(self.dir, anchor))
            self.assertEqual(refused.returncode, 2, refused.stderr)
            self.assertIn(message, refused.stderr)
        self.assertTrue(os.path.isfile(os.path.join(self.dir, "taken")))
        usage = self.merge(job)  # no -o
        self.assertNotEqual(usage.returncode, 0)
        self.assertIn("--output is required", usage.stderr)
        # A rank file named as the output (or the summary's CSV), by any of its names: merging
        # would have truncated it before reading it. Refused, the file untouched.
        rank_file = os.path.join(job, "1.h5")
        with open(rank_file, "rb") as f:
            original = f.read()
        os.symlink(rank_file, os.path.join(self.dir, "link.h5"))
        shutil.copy(rank_file, os.path.join(self.dir, "sum_mpi.csv"))
        for args in (["-o", rank_file], ["-o", os.path.join(job, "..", "job", "1.h5")],
                     ["-o", os.path.join(self.dir, "link.h5")],
                     ["-o", os.path.join(self.dir, "t.pftrace"), "--summary-csv",
                      os.path.join(self.dir, "sum")]):
            inputs = [job] if "--summary-csv" not in args else [
                job, os.path.join(self.dir, "sum_mpi.csv")]
            refused = self.merge(*inputs, *args)
            self.assertEqual(refused.returncode, 2, refused.stderr)
            self.assertIn("it is one of the rank files to merge", refused.stderr)
            with open(rank_file, "rb") as f:
                self.assertTrue(f.read() == original, f"{args}: the rank file changed")
        self.assertFalse(os.path.exists(os.path.join(self.dir, "t.pftrace")))
        # The summary's CSV files are outputs too: a missing directory is told at once.
        no_csv = self.merge(job, "-o", os.path.join(self.dir, "t.pftrace"), "--summary-csv",
                            os.path.join(self.dir, "missing", "sum"))
        self.assertEqual(no_csv.returncode, 2, no_csv.stderr)
        self.assertIn("does not exist", no_csv.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "t.pftrace")))
        # A directory by the output's name: refused before any work, and left where it was.
        for name in ("dir.pftrace", "dir.h5", "dir.json", "dir.otf2"):
            os.mkdir(os.path.join(self.dir, name))
            refused = self.merge(job, "-o", os.path.join(self.dir, name))
            self.assertEqual(refused.returncode, 2, refused.stderr)
            self.assertIn("a directory has that name", refused.stderr)
            self.assertTrue(os.path.isdir(os.path.join(self.dir, name)))

    def test_a_failed_write_leaves_no_partial_output(self):
        job = self.synthetic(ranks=4, events=50000)
        whole = os.path.join(self.dir, "whole.pftrace")
        self.assertEqual(self.merge(job, "-o", whole, "-q").returncode, 0)
        size = os.path.getsize(whole)
        os.remove(whole)
        # The file-size limit stops the output halfway (the message spill, smaller, still
        # fits); SIGXFSZ ignored turns the limit into write errors (EFBIG).
        limit = size // 2

        def limited():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        for name in ("cut.pftrace", "cut.json"):
            output = os.path.join(self.dir, name)
            result = subprocess.run([MERGE, job, "-o", output, "-q"], capture_output=True,
                                    text=True, timeout=300, preexec_fn=limited)
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertIn(f"writing {output} failed", result.stderr)
            self.assertEqual(sorted(f for f in os.listdir(self.dir) if f.startswith("cut")), [],
                             "a partial output or spill file was left behind")
        # A failure before writing starts (no rank files) leaves an existing file alone.
        precious = os.path.join(self.dir, "precious.pftrace")
        with open(precious, "w") as f:
            f.write("keep me")
        empty = os.path.join(self.dir, "empty")
        os.mkdir(empty)
        result = self.merge(empty, "-o", precious, "-q")
        self.assertEqual(result.returncode, 1, result.stderr)
        with open(precious) as f:
            self.assertEqual(f.read(), "keep me")

    def on_small_file_system(self, size, command, env=None):
        """Runs `command` in a mount namespace of its own where self.dir/small is a tmpfs of
        `size` bytes: a file system that fills up, without filling the machine's. What the
        command left there is copied to a fresh directory, returned with the result. Skips
        the test where the mount cannot be made (not root)."""
        small = os.path.join(self.dir, "small")
        os.makedirs(small, exist_ok=True)
        left = tempfile.mkdtemp(dir=self.dir, prefix="left_")
        script = ('mount -t tmpfs -o size="$1" tmpfs "$2" || exit 77; small="$2"; left="$3"; '
                  'shift 3; "$@"; code=$?; cp -a "$small"/. "$left"/; exit $code')
        try:
            result = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh",
                                     "-c", script, "sh", str(size), small, left, *command],
                                    capture_output=True, text=True, timeout=300, env=env)
        except FileNotFoundError:
            self.skipTest("no unshare here")
        if result.returncode == 77 or result.stderr.startswith("unshare:"):
            self.skipTest(f"cannot mount a small tmpfs here: {result.stderr.strip()}")
        return result, left

    def test_a_file_size_limit_is_reported_like_a_full_disk(self):
        # `ulimit -f` sends SIGXFSZ, which would end the merge with no word and its staged
        # output left behind.
        job = self.synthetic(ranks=4, events=2000, busy=(0, 200000))
        for extension in (".pftrace", ".h5", ".json"):
            with self.subTest(output=extension):
                output = os.path.join(self.dir, "limited", "out" + extension)
                os.makedirs(os.path.dirname(output), exist_ok=True)
                result = subprocess.run(["sh", "-c", 'ulimit -f 64 && exec "$@"', "sh", MERGE,
                                         job, "-o", output, "-q"],
                                        capture_output=True, text=True, timeout=300)
                self.assertEqual(result.returncode, 1, result.stderr)
                lines = result.stderr.splitlines()
                self.assertEqual(len(lines), 1, result.stderr)
                self.assertIn("File too large", lines[0])
                self.assertEqual(os.listdir(os.path.dirname(output)), [])

    def test_json_too_large_for_a_browser_is_warned_of_before_it_is_written(self):
        job = self.synthetic(ranks=4, events=2000, busy=(0, 2_100_000))
        output = os.path.join(self.dir, "limited", "big.json")
        os.makedirs(os.path.dirname(output))
        # Writing fails at once (a 64 KiB file size limit): the warning came before.
        result = subprocess.run(["sh", "-c", 'ulimit -f 64 && exec "$@"', "sh", MERGE, job,
                                 "-o", output, "--no-summary"],
                                capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 1, result.stderr)
        lines = result.stderr.splitlines()
        self.assertRegex(lines[0], r"big\.json will hold 4\.2 M events or more")  # 2 per range
        self.assertIn("a .pftrace of the job opens in Perfetto's UI", lines[0])
        self.assertIn("File too large", result.stderr)
        # A small job's JSON, and other outputs of the large job, are not warned of.
        small = self.merge(self.synthetic("small", ranks=2, events=200), "-o",
                           os.path.join(self.dir, "small.json"), "--no-summary")
        self.assertNotIn("will hold", small.stderr)
        other = self.merge(job, "-o", os.path.join(self.dir, "big.h5"), "--no-summary")
        self.assertNotIn("will hold", other.stderr)

    def test_a_full_file_system_gives_one_clear_error_or_the_whole_output(self):
        # Whatever the output and wherever the file system fills up, a merge either writes
        # exactly what it writes with room to spare, or fails with one line naming the output
        # and the cause and leaves nothing there: never a broken file with exit 0 (libotf2 and
        # HDF5 report some failures only when the file is closed, or not at all), never a
        # crash, never libotf2's own lines. One rank with many ranges makes the outputs larger
        # than the message spill, so that each fills up while it is written.
        job = self.synthetic(ranks=4, events=2000, busy=(0, 200000))
        import h5py
        import hdf5plugin  # noqa: F401 (the zstd filter)
        h5py.h5pl.prepend(os.environ["ROCPROF_TEST_PLUGIN_DIR"].encode())

        def size_of(path):
            if os.path.isfile(path):
                return os.path.getsize(path)
            return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path)
                       for f in files)

        def otf2_text(anchor):
            printed = subprocess.run(["otf2-print", anchor], capture_output=True, text=True)
            self.assertEqual(printed.returncode, 0, printed.stderr)
            self.assertNotIn("ERROR", printed.stderr)
            return printed.stdout.replace(os.path.dirname(anchor), "DIR")

        def h5_tables(path):
            with h5py.File(path, "r") as f:
                tables = {}
                f.visititems(lambda name, item: tables.__setitem__(name, item[()]) if
                             isinstance(item, h5py.Dataset) else None)
                return tables

        for extension in (".pftrace", ".h5", ".otf2", ".json"):
            reference = os.path.join(self.dir, "reference" + extension)
            self.assertEqual(self.merge(job, "-o", reference, "-q").returncode, 0)
            stem = os.path.splitext(reference)[0]
            full = size_of(reference) + (size_of(stem) + size_of(stem + ".def")
                                         if extension == ".otf2" else 0)
            output = os.path.join(self.dir, "small", "out" + extension)
            outcomes = set()
            for fraction in (0.3, 0.6, 0.8, 0.9, 0.95, 0.99, 1.5):
                size = max(int(full * fraction) // 4096 * 4096, 16384)
                with self.subTest(output=extension, fraction=fraction):
                    result, left = self.on_small_file_system(size, [MERGE, job, "-o", output,
                                                                    "-q"])
                    outcomes.add(result.returncode)
                    if result.returncode != 0:
                        self.assertEqual(result.returncode, 1, result.stderr)
                        lines = result.stderr.splitlines()
                        self.assertEqual(len(lines), 1, result.stderr)
                        self.assertTrue(lines[0].startswith("rocprof-merge: "), lines[0])
                        self.assertIn(os.path.join(self.dir, "small", "out"), lines[0])
                        self.assertIn("No space left on device", lines[0])
                        self.assertEqual(os.listdir(left), [], "left behind on failure")
                        continue
                    self.assertEqual(result.stderr, "")
                    kept = os.path.join(left, "out" + extension)
                    if extension == ".h5":
                        expected, got = h5_tables(reference), h5_tables(kept)
                        self.assertEqual(sorted(expected), sorted(got))
                        for name in expected:
                            self.assertTrue((expected[name] == got[name]).all(), name)
                    elif extension == ".otf2":
                        self.assertEqual(otf2_text(kept), otf2_text(reference))
                    else:
                        with open(kept, "rb") as a, open(reference, "rb") as b:
                            self.assertTrue(a.read() == b.read(), "not the same output")
            self.assertEqual(outcomes, {0, 1}, f"{extension}: no failure, or no success")
            # In parallel: the same one cause from the process that met it, nothing left; for
            # .pftrace also with room for the parts but not for their copy into the output.
            fractions = (0.6, 0.9) if extension == ".pftrace" else (0.6,)
            for fraction in fractions:
                with self.subTest(output=extension, processes=2, fraction=fraction):
                    result, left = self.on_small_file_system(
                        max(int(full * fraction) // 4096 * 4096, 16384),
                        ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", "2", MERGE,
                         job, "-o", output, "-q"],
                        env=dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
                                 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1"))
                    self.assertNotEqual(result.returncode, 0, result.stderr)
                    ours = [line for line in result.stderr.splitlines()
                            if line.startswith("rocprof-merge: ")]
                    self.assertTrue(ours, result.stderr)
                    self.assertTrue(all("No space left on device" in line for line in ours),
                                    result.stderr)
                    self.assertNotIn("[OTF2]", result.stderr)
                    # No merge process may crash. Open MPI 4.1's mpirun itself now and then
                    # dies in its PMIx server's finalize after a rank failed (seen once in
                    # CI; its backtrace is mpirun's own frames): not ours, so not counted.
                    crash = result.stderr[result.stderr.find("Segmentation"):]
                    self.assertTrue("Segmentation" not in result.stderr or
                                    ("orte_finalize" in crash and "mpirun(" in crash),
                                    result.stderr)
                    self.assertEqual(os.listdir(left), [], "left behind on failure")

    def test_unmatched_messages_name_the_cause_the_checks_found(self):
        # A rank whose recorder dropped records (its last MPI calls gone): the unmatched
        # messages are put down to that, not to a missing or cut-short file.
        import h5py
        import hdf5plugin  # noqa: F401
        import numpy
        h5py.h5pl.prepend(os.environ["ROCPROF_TEST_PLUGIN_DIR"].encode())
        job = self.synthetic(ranks=4, events=400)
        with h5py.File(os.path.join(job, "1.h5"), "r+") as f:
            calls = f["mpi_calls"]
            calls.resize((calls.shape[0] - 40,))
            f.attrs["records_dropped"] = numpy.uint64(40)
        result = self.merge(job, "-o", os.path.join(self.dir, "dropped.json"), "--no-summary")
        self.assertEqual(result.returncode, 0, result.stderr)
        line = [l for l in result.stderr.splitlines() if "left unmatched" in l]
        self.assertEqual(len(line), 1, result.stderr)
        self.assertIn("(records the recorder dropped)", line[0])
        self.assertNotIn("missing", line[0])

    def test_outputs_that_would_replace_each_other_or_other_files_are_refused(self):
        job = self.synthetic(ranks=2, events=200)
        trace = os.path.join(self.dir, "x.pftrace")
        same = self.merge(job, "-o", trace, "--report", trace)
        self.assertEqual(same.returncode, 2, same.stderr)
        self.assertIn("name the same file", same.stderr)
        self.assertFalse(os.path.exists(trace))
        # --h5-parts would replace OUT.h5.parts/ whole: never one holding other files.
        out = os.path.join(self.dir, "out.h5")
        os.makedirs(out + ".parts")
        with open(os.path.join(out + ".parts", "notes.txt"), "w") as f:
            f.write("mine")
        refused = self.merge_parallel(2, job, "-o", out, "--h5-parts", "--no-summary")
        self.assertEqual(refused.returncode, 2, refused.stderr)
        self.assertIn("holds other files than a merge's parts (notes.txt)", refused.stderr)
        self.assertEqual(os.listdir(out + ".parts"), ["notes.txt"])
        os.remove(os.path.join(out + ".parts", "notes.txt"))
        with open(os.path.join(out + ".parts", "7.h5"), "w") as f:
            f.write("an earlier merge's part")
        replaced = self.merge_parallel(2, job, "-o", out, "--h5-parts", "--no-summary")
        self.assertEqual(replaced.returncode, 0, replaced.stderr)
        self.assertEqual(sorted(os.listdir(out + ".parts")), ["0.h5", "1.h5"])

    def test_h5_parts_are_linked_into_the_serial_tables(self):
        # --h5-parts (the default in parallel): each of 3 merge processes writes its block of 7
        # ranks as a file of its own in OUT.h5.parts/, and OUT.h5 links them (virtual datasets): read through the
        # output, every table is the serial merge's, row for row, with the same strings and
        # attributes. Moved with its directory, the output still reads (the links are
        # relative); a serial merge ignores the option. Nothing staged is left.
        import h5py
        import hdf5plugin  # noqa: F401
        import numpy
        h5py.h5pl.prepend(os.environ["ROCPROF_TEST_PLUGIN_DIR"].encode())
        job = self.synthetic("seven", ranks=7, events=100000, skew=(3, 15000))
        serial = os.path.join(self.dir, "serial.h5")
        self.assertEqual(self.merge(job, "-o", serial, "-q", "--h5-parts").returncode, 0)
        self.assertFalse(os.path.exists(serial + ".parts"))
        out_dir = os.path.join(self.dir, "linked")
        os.makedirs(out_dir)
        linked = os.path.join(out_dir, "out.h5")
        result = self.merge_parallel(3, job, "-o", linked, "--h5-parts", "--no-summary")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(sorted(os.listdir(out_dir)), ["out.h5", "out.h5.parts"])
        self.assertEqual(sorted(os.listdir(linked + ".parts")), ["0.h5", "1.h5", "2.h5"])
        moved = os.path.join(self.dir, "moved")
        shutil.move(out_dir, moved)
        with h5py.File(serial, "r") as a, h5py.File(os.path.join(moved, "out.h5"), "r") as b:
            self.assertEqual(sorted(a.keys()), sorted(b.keys()))
            self.assertEqual(a["strings"].asstr()[:].tolist(), b["strings"].asstr()[:].tolist())
            self.assertEqual(sorted(a.attrs.keys()), sorted(b.attrs.keys()))
            for name in a.attrs:
                self.assertTrue(numpy.array_equal(a.attrs[name], b.attrs[name]), name)
            self.assertEqual(analysis_tables(a), analysis_tables(b))  # the first process's
            compared = 0
            for table in a:
                if isinstance(a[table], h5py.Group) and table != "analysis":
                    for column in a[table]:
                        # Rows come from the parts (an empty table is an empty dataset).
                        self.assertEqual(b[table][column].is_virtual,
                                         a[table][column].shape[0] > 0, f"{table}/{column}")
                        self.assertTrue(numpy.array_equal(a[table][column][:], b[table][column][:]),
                                        f"{table}/{column}")
                        compared += a[table][column].shape[0]
            self.assertGreater(a["ranges"]["rank"].shape[0], 65536)  # several chunks
            self.assertGreater(compared, 0)
        # A stock tool follows the links too.
        dump = subprocess.run(["h5dump", "-d", "/mpi_calls/rank", "-s", "0", "-c", "3",
                               os.path.join(moved, "out.h5")], capture_output=True, text=True,
                              env=dict(os.environ,
                                       HDF5_PLUGIN_PATH=os.environ["ROCPROF_TEST_PLUGIN_DIR"]))
        self.assertEqual(dump.returncode, 0, dump.stderr)
        self.assertIn("(0): 0, 0, 0", dump.stdout)
        # Linked parts are a parallel .h5's default; --no-h5-parts writes one file, whose
        # tables are the serial merge's too.
        default_dir = os.path.join(self.dir, "default")
        os.makedirs(default_dir)
        result = self.merge_parallel(3, job, "-o", os.path.join(default_dir, "out.h5"),
                                     "--no-summary")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(sorted(os.listdir(default_dir)), ["out.h5", "out.h5.parts"])
        whole_dir = os.path.join(self.dir, "whole")
        os.makedirs(whole_dir)
        whole = os.path.join(whole_dir, "out.h5")
        result = self.merge_parallel(3, job, "-o", whole, "--no-h5-parts", "--no-summary")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(os.listdir(whole_dir), ["out.h5"])
        with h5py.File(serial, "r") as a, h5py.File(whole, "r") as b:
            for table in a:
                if isinstance(a[table], h5py.Group) and table != "analysis":
                    for column in a[table]:
                        self.assertFalse(b[table][column].is_virtual, f"{table}/{column}")
                        self.assertTrue(numpy.array_equal(a[table][column][:], b[table][column][:]),
                                        f"{table}/{column}")

    def test_two_nodes_with_scratch_of_their_own_merge_as_one(self):
        # Two "nodes" of two merge processes each. The rank files and the output are in a
        # directory every process sees (a cluster's shared file system); --scratch names a
        # directory that each node has of its own: the same path, bound in each process's
        # mount namespace to its node's directory. Each process writes its part there and
        # copies it into the output itself; the output is the serial merge's, byte for byte,
        # and no part is left on either node.
        job = self.synthetic("two_nodes", ranks=6, events=20000, skew=(2, 15000))
        scratch = os.path.join(self.dir, "scratch")
        node_dirs = {node: os.path.join(self.dir, "node-" + node) for node in "ab"}
        for path in (scratch, *node_dirs.values()):
            os.makedirs(path)
        # Processes 0 and 1 on node a, 2 and 3 on node b. NODE_B_TMPFS: node b's scratch is a
        # small tmpfs of its own instead.
        wrapper = self.script(
            "two_nodes.sh",
            'if [ "$OMPI_COMM_WORLD_RANK" -lt 2 ]; then node=a; else node=b; fi\n'
            'if [ "$node" = b ] && [ -n "$NODE_B_TMPFS" ]; then\n'
            '  how="mount -t tmpfs -o size=$NODE_B_TMPFS tmpfs $SCRATCH"\n'
            'else\n'
            '  how="mount --bind $NODES/node-$node $SCRATCH"\n'
            'fi\n'
            'exec unshare --mount --propagation private sh -c \'$0 || exit 77; exec "$@"\' '
            '"$how" "$@"\n')
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   NODES=self.dir, SCRATCH=scratch, NODE_B_TMPFS="")

        def two_nodes(out, *args):
            result = subprocess.run(
                ["mpirun", "--oversubscribe", "-np", "4", "-x", "NODES", "-x", "SCRATCH", "-x",
                 "NODE_B_TMPFS", wrapper, MERGE, job, "-o", out, "--scratch", scratch, *args],
                env=env, capture_output=True, text=True, timeout=300)
            if "mount:" in result.stderr or "unshare:" in result.stderr:
                self.skipTest(f"cannot mount here: {result.stderr.strip()}")
            return result

        for extension in (".pftrace", ".json"):
            with self.subTest(output=extension):
                serial = os.path.join(self.dir, "serial" + extension)
                self.assertEqual(self.merge(job, "-o", serial, "-q").returncode, 0)
                out = os.path.join(self.dir, "two_nodes" + extension)
                result = two_nodes(out, "--no-summary")
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertIn("(4 merge processes)", result.stdout)
                with open(serial, "rb") as a, open(out, "rb") as b:
                    self.assertEqual(a.read(), b.read())
                for path in (scratch, *node_dirs.values()):
                    self.assertEqual(os.listdir(path), [], path)
                self.assertEqual([name for name in os.listdir(self.dir) if ".part" in name], [])
        # A .h5 of linked parts: each node's processes write theirs beside the output.
        import h5py
        import hdf5plugin  # noqa: F401
        import numpy
        h5py.h5pl.prepend(os.environ["ROCPROF_TEST_PLUGIN_DIR"].encode())
        serial = os.path.join(self.dir, "serial.h5")
        self.assertEqual(self.merge(job, "-o", serial, "-q").returncode, 0)
        out = os.path.join(self.dir, "two_nodes.h5")
        result = two_nodes(out, "--no-summary", "--h5-parts")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(sorted(os.listdir(out + ".parts")), ["0.h5", "1.h5", "2.h5", "3.h5"])
        with h5py.File(serial, "r") as a, h5py.File(out, "r") as b:
            for table in a:
                if isinstance(a[table], h5py.Group) and table != "analysis":
                    for column in a[table]:
                        self.assertTrue(numpy.array_equal(a[table][column][:], b[table][column][:]),
                                        f"{table}/{column}")
            self.assertEqual(analysis_tables(a), analysis_tables(b))
        # Node b's scratch too small for its parts: each of its processes says that writing
        # its part there failed, and why; nothing is left anywhere (each process removes
        # what it wrote).
        env["NODE_B_TMPFS"] = "16k"
        out = os.path.join(self.dir, "full.pftrace")
        result = two_nodes(out, "-q")
        self.assertEqual(result.returncode, 1, result.stderr)
        ours = [line for line in result.stderr.splitlines() if line.startswith("rocprof-merge: ")]
        self.assertEqual(len(ours), 2, result.stderr)
        for process, line in zip((2, 3), sorted(ours)):
            self.assertRegex(line, "^rocprof-merge: writing " +
                             re.escape(os.path.join(scratch, ".full.pftrace")) +
                             rf"\S*\.part{process}\.\d+ failed: No space left on device$")
        self.assertFalse(os.path.exists(out))
        for path in (scratch, *node_dirs.values()):
            self.assertEqual(os.listdir(path), [], path)
        # A scratch directory on node a only: refused before any work, by node b.
        env["NODE_B_TMPFS"] = ""
        os.makedirs(os.path.join(node_dirs["a"], "only-on-a"))
        missing = os.path.join(scratch, "only-on-a")
        result = subprocess.run(
            ["mpirun", "--oversubscribe", "-np", "4", "-x", "NODES", "-x", "SCRATCH", "-x",
             "NODE_B_TMPFS", wrapper, MERGE, job, "-o", out, "--scratch", missing, "-q"],
            env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn(f"cannot use --scratch {missing}: no such directory", result.stderr)
        self.assertFalse(os.path.exists(out))
        # A read-only scratch directory (a read-only mount: root writes anywhere else): refused
        # before any work too.
        readonly = subprocess.run(
            ["unshare", "--mount", "--propagation", "private", "sh", "-c",
             'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || exit 77; shift; '
             'exec "$@"', "sh", scratch, MERGE, job, "-o", out, "--scratch", scratch, "-q"],
            capture_output=True, text=True, timeout=120)
        if readonly.returncode == 77:
            self.skipTest(f"cannot mount read-only here: {readonly.stderr.strip()}")
        self.assertEqual(readonly.returncode, 2, readonly.stderr)
        self.assertEqual(readonly.stderr.strip(), f"rocprof-merge: cannot use --scratch {scratch}: "
                         "the directory is not writable")
        self.assertFalse(os.path.exists(out))

    def test_a_parallel_merge_into_a_directory_of_one_node_says_so(self):
        # srun over several nodes with -o /tmp/t.pftrace: each node has a /tmp of its own, and
        # the first process cannot read what the others write beside the output. Simulated
        # here by a tmpfs over the output's directory that only the second merge process
        # sees (a mount namespace of its own). One line says which file is missing and that
        # the directory must be shared; nothing is left in the first process's directory.
        job = self.synthetic("nodes", ranks=4, events=2000)
        local = os.path.join(self.dir, "local")
        os.makedirs(local)
        wrapper = self.script(
            "own_directory.sh",
            'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then\n'
            '  exec unshare --mount --propagation private sh -c '
            '\'mount -t tmpfs tmpfs "$1" || exit 77; shift; exec "$@"\' sh "$LOCAL" "$@"\n'
            'fi\n'
            'exec "$@"\n')
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   LOCAL=local)
        for extension in (".pftrace", ".h5"):
            with self.subTest(output=extension):
                result = subprocess.run(
                    ["mpirun", "--oversubscribe", "-np", "2", "-x", "LOCAL", wrapper, MERGE, job,
                     "-o", os.path.join(local, "out" + extension), "-q"],
                    env=env, capture_output=True, text=True, timeout=300)
                if "mount:" in result.stderr or "unshare:" in result.stderr:
                    self.skipTest(f"cannot mount a tmpfs here: {result.stderr.strip()}")
                self.assertNotEqual(result.returncode, 0, result.stderr)
                ours = [line for line in result.stderr.splitlines()
                        if line.startswith("rocprof-merge: ")]
                self.assertEqual(len(ours), 1, result.stderr)
                self.assertIn(os.path.join(local, "out" + extension + ".messages.1"), ours[0])
                self.assertIn("merge process 1 wrote it, but the first process does not see it",
                              ours[0])
                self.assertIn("must be shared by every merge process", ours[0])
                self.assertEqual(os.listdir(local), [])
        # The output's directory exists for the first process only: refused before any work by
        # the process that does not see it (it used to stop alone, silently, and leave the
        # others waiting for it for ever).
        os.makedirs(os.path.join(local, "sub"))
        result = subprocess.run(
            ["mpirun", "--oversubscribe", "-np", "2", "-x", "LOCAL", wrapper, MERGE, job, "-o",
             os.path.join(local, "sub", "out.pftrace"), "-q"],
            env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, 2, result.stderr)
        ours = [line for line in result.stderr.splitlines() if line.startswith("rocprof-merge: ")]
        self.assertEqual(ours, [f"rocprof-merge: cannot write {local}/sub/out.pftrace: directory "
                                f"{local}/sub does not exist (as merge process 1 sees it)"])
        self.assertEqual(os.listdir(os.path.join(local, "sub")), [])

    def test_an_interrupted_merge_removes_its_files(self):
        # SIGTERM (scancel) while the messages are spilled, then while the output is written:
        # the merge ends by the signal and leaves neither the spill nor a partial output.
        # The spill and the staged output are named at random (OUT.messages.0.*, .OUT.*.tmp).
        job = self.synthetic(ranks=8, events=1000000)
        output = os.path.join(self.dir, "stopped.pftrace")

        def ours():
            return [f for f in os.listdir(self.dir) if f.startswith(("stopped", ".stopped"))]

        def seen(phase):
            for name in ours():
                path = os.path.join(self.dir, name)
                try:
                    if phase == "spill" and name.startswith("stopped.pftrace.messages.0."):
                        return True
                    if phase == "output" and name.startswith(".stopped.pftrace.") and \
                            os.path.getsize(path) > 0:
                        return True
                    if phase == "archive" and os.path.isdir(path) and len(os.listdir(path)) >= 2:
                        return True
                except FileNotFoundError:  # removed or moved meanwhile
                    pass
            return False

        for phase in ("spill", "output"):
            merge = subprocess.Popen([MERGE, job, "-o", output, "-q"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
            while not seen(phase) and merge.poll() is None:
                time.sleep(0.002)
            self.assertIsNone(merge.poll(), f"the merge ended before its {phase} was seen")
            merge.send_signal(signal.SIGTERM)
            merge.wait(timeout=60)
            merge.stderr.close()
            self.assertEqual(merge.returncode, -signal.SIGTERM)
            self.assertEqual(ours(), [], f"left behind after a SIGTERM at its {phase}")
        # An OTF2 archive, stopped once its directory holds event files: the handler empties
        # and removes the directory too.
        archive = os.path.join(self.dir, "stopped.otf2")
        merge = subprocess.Popen([MERGE, job, "-o", archive, "-q"], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE)
        while merge.poll() is None and not seen("archive"):
            time.sleep(0.002)
        self.assertIsNone(merge.poll(), "the merge ended before its archive had event files")
        merge.send_signal(signal.SIGTERM)
        merge.wait(timeout=60)
        merge.stderr.close()
        self.assertEqual(merge.returncode, -signal.SIGTERM)
        self.assertEqual(ours(), [])

    def test_an_output_removed_during_the_merge_is_a_failure(self):
        # The output's directory removed (a cleanup job, a user's rm -r) while the merge
        # writes: the writes go on into a file nobody can open, so the merge must not say
        # "-> out.pftrace" and exit 0; it names the output and exits 1.
        job = self.synthetic(ranks=8, events=1000000)
        for extension in (".pftrace", ".h5"):
            with self.subTest(output=extension):
                directory = os.path.join(self.dir, "doomed")
                os.makedirs(directory, exist_ok=True)
                output = os.path.join(directory, "out" + extension)
                merge = subprocess.Popen([MERGE, job, "-o", output, "--no-summary"],
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         text=True)
                # Written under a staging name beside it (.out.EXT.*.tmp) until whole.
                def writing():
                    for name in os.listdir(directory):
                        try:
                            if name.startswith(".out") and \
                                    os.path.getsize(os.path.join(directory, name)) > 0:
                                return True
                        except FileNotFoundError:  # moved into place meanwhile
                            pass
                    return False
                while not writing() and merge.poll() is None:
                    time.sleep(0.002)
                self.assertIsNone(merge.poll(), "the merge ended before its output was seen")
                shutil.rmtree(directory)
                out, err = merge.communicate(timeout=300)
                self.assertEqual(merge.returncode, 1, err)
                ours = [line for line in err.splitlines() if line.startswith("rocprof-merge: ")]
                self.assertEqual(len(ours), 1, err)
                # Mostly the check at the end; HDF5 may still be creating the file when the
                # directory goes, and then says so itself.
                self.assertTrue(f"{output} was written but is no longer there" in ours[0] or
                                f"cannot create {output}" in ours[0], ours[0])
                self.assertNotIn("->", out)

    def on_terminal(self, *args):
        """rocprof-merge with stderr on a pseudo-terminal; returns (exit code, what it drew)."""
        leader, follower = pty.openpty()
        with subprocess.Popen([MERGE, *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=follower) as process:
            os.close(follower)
            drawn = b""
            while True:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # EIO: the merge closed the terminal's last writer
                    break
                if not chunk:
                    break
                drawn += chunk
            code = process.wait(timeout=300)
        os.close(leader)
        return code, drawn.decode()

    def test_progress_bar_only_on_a_terminal_and_not_when_quiet(self):
        job = self.synthetic(ranks=6, events=200)
        for output in ("t.pftrace", "t.h5", "t.otf2", "t.json"):
            path = os.path.join(self.dir, output)
            code, drawn = self.on_terminal(job, "-o", path, "--no-summary")
            self.assertEqual(code, 0, drawn)
            self.assertIn("rocprof-merge: reading MPI messages [", drawn)
            self.assertIn("] 6/6 ", drawn)
            self.assertIn(f"rocprof-merge: writing {path} [", drawn)
            steps = 84 if output.endswith(".h5") else 6  # .h5: 14 passes over the ranks
            self.assertIn(f"[{'#' * 30}] {steps}/{steps} ", drawn)
            self.assertTrue(drawn.endswith("\r\x1b[K"), repr(drawn[-40:]))  # the line is erased
            code, drawn = self.on_terminal(job, "-o", path, "--quiet")
            self.assertEqual((code, drawn), (0, ""))
        piped = self.merge(job, "-o", os.path.join(self.dir, "p.pftrace"))
        self.assertEqual(piped.returncode, 0, piped.stderr)
        self.assertNotIn("\r", piped.stderr + piped.stdout)

    def test_sendrecv_messages_are_matched_both_ways(self):
        # A traced run where every message goes through MPI_Sendrecv (pairs of ranks, on two
        # threads with a tag each): its receive half is recorded, so each message is matched,
        # drawn and written to OTF2 like any other.
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ROCPROF_MPI_", "LD_PRELOAD"))}
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        traced = subprocess.run(["mpirun", "--oversubscribe", "-np", "4", LAUNCHER, "--mpi-trace",
                                 "-d", "pairs", "--", PATTERNS, "threads"],
                                cwd=self.dir, env=env, capture_output=True, text=True, timeout=180)
        self.assertEqual(traced.returncode, 0, traced.stderr)
        job = os.path.join(self.dir, "pairs")
        out = os.path.join(self.dir, "pairs.pftrace")
        result = self.merge(job, "-o", out, "--no-summary", "--no-analysis")  # messages only
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("8 messages matched", result.stdout)
        self.assertEqual(self.flow_pairs(out), {("MPI_Sendrecv", "MPI_Sendrecv"): 8})
        anchor = os.path.join(self.dir, "pairs_timeline.otf2")  # pairs/ holds the input
        self.assertEqual(self.merge(job, "-o", anchor, "-q").returncode, 0)
        printed = subprocess.run(["otf2-print", anchor], capture_output=True, text=True)
        self.assertEqual(printed.returncode, 0, printed.stderr)
        self.assertNotIn("warning", (printed.stdout + printed.stderr).lower())
        kinds = [l.split()[0] for l in printed.stdout.splitlines() if l.startswith("MPI_")]
        self.assertEqual(kinds.count("MPI_SEND"), 8)
        self.assertEqual(kinds.count("MPI_RECV"), 8)

    def traced_patterns(self, scenario):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ROCPROF_MPI_", "LD_PRELOAD"))}
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        traced = subprocess.run(["mpirun", "--oversubscribe", "-np", "4", LAUNCHER, "--mpi-trace",
                                 "-d", scenario, "--", PATTERNS, scenario],
                                cwd=self.dir, env=env, capture_output=True, text=True, timeout=180)
        self.assertEqual(traced.returncode, 0, traced.stderr)
        return os.path.join(self.dir, scenario)

    def test_otf2_of_a_job_with_a_rank_missing(self):
        # The communicators name a rank no file holds (missing, skipped as damaged, or left
        # out with --mpi-ranks): it stands as an empty location, serially and in parallel.
        job = self.traced_patterns("p2p")
        os.remove(os.path.join(job, "2.h5"))
        with open(os.path.join(job, "1.h5"), "r+b") as f:
            f.write(b"not an HDF5 file")
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        for processes in (1, 2):
            with self.subTest(processes=processes):
                anchor = os.path.join(self.dir, f"missing{processes}.otf2")
                command = [MERGE, job, "-o", anchor, "--allow-missing", "--skip-bad", "-q"]
                if processes > 1:
                    command = ["mpirun", "--oversubscribe", "-np", str(processes)] + command
                archive = subprocess.run(command, env=env, capture_output=True, text=True,
                                         timeout=300)
                self.assertEqual(archive.returncode, 0, archive.stderr)
                printed = subprocess.run(["otf2-print", "-G", anchor], capture_output=True,
                                         text=True)
                self.assertEqual(printed.returncode, 0, printed.stderr)
                self.assertNotIn("warning", printed.stderr.lower())
                self.assertIn('"rank 1 (no trace)"', printed.stdout)
                self.assertIn('"rank 2 (no trace)"', printed.stdout)
                events = subprocess.run(["otf2-print", anchor], capture_output=True, text=True)
                self.assertEqual(events.returncode, 0, events.stderr)
                self.assertIn('Region: "MPI_Send"', events.stdout)

    def otf2_records(self, job):
        anchor = os.path.join(self.dir, os.path.basename(job) + "_timeline.otf2")
        result = self.merge(job, "-o", anchor, "--no-summary")
        self.assertEqual(result.returncode, 0, result.stderr)
        printed = subprocess.run(["otf2-print", anchor], capture_output=True, text=True)
        self.assertEqual(printed.returncode, 0, printed.stderr)
        self.assertNotIn("warning", (printed.stdout + printed.stderr).lower())
        kinds = [l.split()[0] for l in printed.stdout.splitlines()
                 if l.startswith(("MPI_", "NON_BLOCKING"))]
        return result.stdout, {kind: kinds.count(kind) for kind in set(kinds)}

    def test_persistent_requests_and_non_blocking_collectives(self):
        # mpi_patterns p2p, per rank: a Send and a Recv (ring), Irecv+Isend (across), 3 rounds
        # of persistent Recv_init/Send_init started with MPI_Startall, an MPI_Sendrecv along the
        # line 0-1-2-3, and Irecv+Isend (ring) completed by MPI_Test/MPI_Wait.
        job = self.traced_patterns("p2p")
        summary, records = self.otf2_records(job)
        self.assertIn("27 messages matched", summary)  # 4 + 4 + 3 * 4 + 3 + 4
        # In parallel (3 processes for 4 ranks), each process writes its ranks' event files
        # with its own region numbering (rank 3 meets MPI_Recv before MPI_Send, rank 0 the
        # other way round), mapped in its local definitions: otf2-print shows the same trace.
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        parallel = os.path.join(self.dir, "p2p_parallel.otf2")
        result = subprocess.run(["mpirun", "--oversubscribe", "-np", "3", MERGE, job, "-o",
                                 parallel, "-q"], env=env, capture_output=True, text=True,
                                timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        serial_text = subprocess.run(["otf2-print", os.path.join(self.dir, "p2p_timeline.otf2")],
                                     capture_output=True, text=True).stdout
        parallel_text = subprocess.run(["otf2-print", parallel], capture_output=True,
                                       text=True).stdout
        self.assertGreater(len(serial_text.splitlines()), 200)
        self.assertEqual(serial_text, parallel_text)
        self.assertEqual(records["MPI_SEND"], 4 + 3)
        self.assertEqual(records["MPI_RECV"], 4 + 3)
        for kind in ("MPI_ISEND", "MPI_ISEND_COMPLETE", "MPI_IRECV_REQUEST", "MPI_IRECV"):
            self.assertEqual(records[kind], 4 * (1 + 3 + 1), kind)
        # mpi_patterns collectives: one MPI_Ibcast (completed by MPI_Wait) per rank among the
        # blocking ones.
        _, records = self.otf2_records(self.traced_patterns("collectives"))
        self.assertEqual(records["NON_BLOCKING_COLLECTIVE_REQUEST"], 4)
        self.assertEqual(records["NON_BLOCKING_COLLECTIVE_COMPLETE"], 4)
        self.assertEqual(records["MPI_COLLECTIVE_BEGIN"], records["MPI_COLLECTIVE_END"])
        self.assertGreater(records["MPI_COLLECTIVE_END"], 4)

    def test_a_merge_bound_to_one_cpu_says_how_to_give_it_more(self):
        # Its helper threads need CPUs of their own: bound to one core (taskset here, mpirun's
        # default binding for two processes, srun without -c), the merge says how to fix it.
        if (os.cpu_count() or 1) < 2 or shutil.which("taskset") is None:
            self.skipTest("needs two CPUs and taskset")
        job = self.synthetic(ranks=2, events=200)
        out = os.path.join(self.dir, "bound.h5")
        advice = "may run on 1 CPU only"
        bound = subprocess.run(["taskset", "-c", "0", MERGE, job, "-o", out, "--no-summary"],
                               capture_output=True, text=True, timeout=120)
        self.assertEqual(bound.returncode, 0, bound.stderr)
        self.assertIn(advice, bound.stderr)
        self.assertIn("srun -c 4", bound.stderr)
        quiet = subprocess.run(["taskset", "-c", "0", MERGE, job, "-o", out, "-q"],
                               capture_output=True, text=True, timeout=120)
        self.assertEqual((quiet.returncode, quiet.stderr), (0, ""))
        free = self.merge(job, "-o", out, "--no-summary")
        self.assertEqual(free.returncode, 0, free.stderr)
        self.assertNotIn(advice, free.stderr)

    def test_messages_pair_with_receives_in_posting_order(self):
        # mpi_patterns reorder: two messages per stream (4 bytes, then 400) whose receives are
        # completed second-posted first (MPI_Wait, then MPI_Waitany). MPI fills the receives
        # in posting order, so each flow must end on the call that completed a receive of as
        # many bytes as its send sent; pairing by completion order would cross them.
        job = self.traced_patterns("reorder")
        out = os.path.join(self.dir, "reorder.pftrace")
        result = self.merge(job, "-o", out, "--no-summary")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("8 messages matched", result.stdout)  # (clock sync may see a violation)
        starts, ends = {}, {}
        for event in perfetto_events(self.decode(out)):
            for flow in event["flows"]:
                starts[flow] = event
            for flow in event["terminating"]:
                ends[flow] = event
        sends = [flow for flow, event in starts.items() if event["name"] == "MPI_Send"]
        self.assertEqual(len(sends), 8)
        completions = {}
        for flow in sends:
            sent = starts[flow]["annotations"]["bytes_sent"]
            received = ends[flow]["annotations"]["bytes_received"]
            self.assertEqual(sent, received, f"a {sent}-byte send drawn to a {received}-byte receive")
            completions[ends[flow]["name"]] = completions.get(ends[flow]["name"], 0) + 1
        self.assertEqual(completions, {"MPI_Wait": 4, "MPI_Waitany": 4})

    def test_a_run_that_traced_some_ranks_merges_without_options(self):
        # rocprof-mpi --mpi-ranks 0,2 writes two files of a 4-rank job and says to merge them
        # with rocprof-merge DIR: that works as said, serially and in parallel, and says which
        # ranks were not traced. A traced rank whose file is gone is still missing.
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ROCPROF_MPI_", "LD_PRELOAD"))}
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        traced = subprocess.run(["mpirun", "--oversubscribe", "-np", "4", LAUNCHER, "--mpi-trace",
                                 "--marker-trace", "--mpi-ranks", "0,2", "-d", "some", "--",
                                 JACOBI, "128", "10"],
                                cwd=self.dir, env=env, capture_output=True, text=True, timeout=180)
        self.assertEqual(traced.returncode, 0, traced.stderr)
        directory = os.path.join(self.dir, "some")
        self.assertEqual(sorted(os.listdir(directory)), ["0.h5", "2.h5"])
        serial = self.merge(directory, "-o", os.path.join(self.dir, "some.pftrace"), "--no-summary")
        self.assertEqual(serial.returncode, 0, serial.stderr)
        self.assertIn("2 of the job's 4 ranks not traced (ranks 1,3: the run traced 0,2)",
                      serial.stderr)
        self.assertIn("2 ranks", serial.stdout)
        parallel = self.merge_parallel(2, directory, "-o", os.path.join(self.dir, "some2.pftrace"),
                                       "-q")
        self.assertEqual(parallel.returncode, 0, parallel.stderr)
        self.assertNotIn("not traced", parallel.stderr)  # a note: not with --quiet
        with open(os.path.join(self.dir, "some.pftrace"), "rb") as a, \
                open(os.path.join(self.dir, "some2.pftrace"), "rb") as b:
            self.assertTrue(a.read() == b.read())
        os.remove(os.path.join(directory, "2.h5"))
        gone = self.merge(directory, "-o", os.path.join(self.dir, "gone.pftrace"), "-q")
        self.assertEqual(gone.returncode, 1, gone.stderr)
        self.assertIn("1 of the job's 4 ranks has no file (rank 2)", gone.stderr)

    def test_a_merged_trace_written_beside_the_rank_files_is_left_out(self):
        # rocprof-merge DIR -o DIR/merged.h5, then DIR merged again: the merged trace is left
        # out with a line saying so, serially and in parallel, and the timeline is the same.
        job = self.synthetic("beside", ranks=4, events=2000)
        first = os.path.join(self.dir, "first.pftrace")
        self.assertEqual(self.merge(job, "-o", first, "-q").returncode, 0)
        self.assertEqual(self.merge(job, "-o", os.path.join(job, "merged.h5"), "-q").returncode, 0)
        again = os.path.join(self.dir, "again.pftrace")
        result = self.merge(job, "-o", again, "--no-summary")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"left out {os.path.join(job, 'merged.h5')}: a merged trace", result.stderr)
        parallel = os.path.join(self.dir, "parallel.pftrace")
        result = self.merge_parallel(2, job, "-o", parallel, "-q")
        self.assertEqual(result.returncode, 0, result.stderr)
        for path in (again, parallel):
            with open(first, "rb") as a, open(path, "rb") as b:
                self.assertTrue(a.read() == b.read(), path)

    def test_real_rank_files_of_a_traced_run(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ROCPROF_MPI_", "LD_PRELOAD"))}
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        traced = subprocess.run(["mpirun", "--oversubscribe", "-np", "4", LAUNCHER, "--mpi-trace",
                                 "--marker-trace", "-d", "trace", "--", JACOBI, "128", "40"],
                                cwd=self.dir, env=env, capture_output=True, text=True, timeout=180)
        self.assertEqual(traced.returncode, 0, traced.stderr)
        out = os.path.join(self.dir, "trace.json")
        result = result_json = self.merge(os.path.join(self.dir, "trace"), "-o", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("MPI_Waitall", result.stdout)
        self.assertIn("halo exchange", result.stdout)
        events = read_json(out)["traceEvents"]
        mpi = [e for e in events if e.get("cat") == "mpi"]
        self.assertEqual({e["pid"] for e in mpi}, {0, 1, 2, 3})
        waitalls = [e for e in mpi if e["name"] == "MPI_Waitall"]
        self.assertEqual(len(waitalls), 4 * 40)
        names = {e["args"]["name"] for e in events if e.get("name") == "process_name"}
        self.assertEqual(len(names), 4)
        perfetto = os.path.join(self.dir, "trace.pftrace")
        result = self.merge(os.path.join(self.dir, "trace"), "-o", perfetto, "-q")
        self.assertEqual(result.returncode, 0, result.stderr)
        names = [e["name"] for e in perfetto_events(self.decode(perfetto))
                 if e["type"] == "TYPE_SLICE_BEGIN"]
        self.assertEqual(names.count("MPI_Waitall"), 4 * 40)
        self.assertIn("halo exchange", names)
        # OTF2: one send, one posted receive and both completions per matched message; the
        # halo receives from MPI_PROC_NULL at the edges leave no records.
        matched = int(re.search(r"(\d+) messages matched", result_json.stdout).group(1))
        self.assertEqual(matched, 6 * 40)  # 3 neighbour pairs, both ways, 40 iterations
        anchor = os.path.join(self.dir, "timeline.otf2")
        self.assertEqual(self.merge(os.path.join(self.dir, "trace"), "-o", anchor, "-q").returncode, 0)
        printed = subprocess.run(["otf2-print", anchor], capture_output=True, text=True)
        self.assertEqual(printed.returncode, 0, printed.stderr)
        self.assertNotIn("warning", (printed.stdout + printed.stderr).lower())
        kinds = [l.split()[0] for l in printed.stdout.splitlines() if l.startswith("MPI_")]
        for kind in ("MPI_ISEND", "MPI_IRECV_REQUEST", "MPI_ISEND_COMPLETE", "MPI_IRECV"):
            self.assertEqual(kinds.count(kind), matched, kind)
        self.assertGreater(kinds.count("MPI_COLLECTIVE_END"), 0)
        self.assertEqual(kinds.count("MPI_COLLECTIVE_BEGIN"), kinds.count("MPI_COLLECTIVE_END"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
