"""The rocprofiler-systems user API under rocprof-mpi: the seed's example program prints its
custom-region lines through its own callback and its regions land in the rank file, counted
as the program's arithmetic says; tracing starts off in a program that can start it."""

import csv
import glob
import json
import os
import re
import struct
import subprocess
import tempfile
import unittest

LAUNCHER = os.environ["ROCPROF_TEST_LAUNCHER"]
MERGE = os.environ["ROCPROF_TEST_MERGE"]
EXAMPLE = os.environ["ROCPROF_TEST_USER_EXAMPLE"]
CONTROL = os.environ["ROCPROF_TEST_USER_CONTROL"]
ANNOTATIONS = os.environ["ROCPROF_TEST_USER_ANNOTATIONS"]
PLUGIN_DIR = os.environ["ROCPROF_TEST_PLUGIN_DIR"]
PROTO = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                     "merge", "export", "proto")


class UserApiTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="user_api_test_")
        self.dir = self.tmp.name
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("ROCPROF_MPI_", "ROCPROFSYS_", "LD_PRELOAD"))}

    def tearDown(self):
        self.tmp.cleanup()

    def traced(self, *command, env=None):
        result = subprocess.run([LAUNCHER, "--marker-trace", "-d", "out", "--", *command],
                                cwd=self.dir, env=env or self.env, capture_output=True, text=True,
                                timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        files = glob.glob(os.path.join(self.dir, "out", "*.h5"))
        self.assertEqual(len(files), 1)
        return result.stdout, files[0]

    def markers(self, path):
        import h5py
        h5py.h5pl.prepend(PLUGIN_DIR.encode())
        with h5py.File(path, "r") as f:
            strings = f["strings"].asstr()[:]
            m = f["markers"]
            return [(int(op), strings[int(message)]) for op, message in zip(m["op"][:], m["message"][:])]

    def test_without_a_profiler_the_example_runs_unchanged(self):
        result = subprocess.run([EXAMPLE, "10", "3", "100"], env=self.env, capture_output=True,
                                text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn("Pushing custom region", result.stdout)  # nothing bound: no callback
        # fib(10) = 55, 100 iterations, on 3 threads and the main thread.
        self.assertIn(f"fibonacci(10) x 3 = {55 * 100 * 4}", result.stdout)

    def test_the_example_under_rocprof_mpi(self):
        threads, iterations = 3, 200
        stdout, path = self.traced(EXAMPLE, "10", str(threads), str(iterations))
        pushed = re.findall(r"^Pushing custom region :: (.*)$", stdout, re.M)
        run = f"run(10) x {iterations}"
        self.assertEqual(sorted(pushed), sorted([EXAMPLE, "initialization", "thread_creation",
                                                 "thread_wait"] + [run] * (threads + 1)))
        self.assertIn(f"fibonacci(10) x {threads} = {55 * iterations * (threads + 1)}", stdout)
        # Each region a begin (op 5) and an end (op 6) in the rank file.
        markers = self.markers(path)
        self.assertEqual(sum(1 for op, name in markers if op == 5 and name == run), threads + 1)
        self.assertEqual(sum(1 for op, _ in markers if op == 5), sum(1 for op, _ in markers if op == 6))
        # The merge's region summary: counts per name as the program's arithmetic says.
        prefix = os.path.join(self.dir, "summary")
        merged = subprocess.run([MERGE, path, "-o", os.path.join(self.dir, "t.json"),
                                 "--summary-csv", prefix], capture_output=True, text=True,
                                timeout=120)
        self.assertEqual(merged.returncode, 0, merged.stderr)
        with open(prefix + "_regions.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        counts = {}
        for row in rows:
            counts[row["name"]] = counts.get(row["name"], 0) + int(row["count"])
        self.assertEqual(counts, {EXAMPLE: 1, "initialization": 1, "thread_creation": 1,
                                  "thread_wait": 1, run: threads + 1})
        # Per thread: one run on each worker and one on the main thread, which also has the
        # other regions.
        per_thread = {}
        for row in rows:
            per_thread.setdefault(row["thread"], {})[row["name"]] = int(row["count"])
        self.assertEqual(len(per_thread), threads + 1)
        self.assertEqual(sorted(regions[run] for regions in per_thread.values()),
                         [1] * (threads + 1))
        self.assertEqual(sum(1 for regions in per_thread.values() if "thread_wait" in regions), 1)
        self.assertIn("Regions and ROC-TX ranges per rank and thread", merged.stdout)

    def test_tracing_starts_off_where_the_program_can_start_it(self):
        stdout, path = self.traced(CONTROL)
        self.assertIn("start 0 stop 0 thread stop 0 thread start 0", stdout)
        names = [name for _, name in self.markers(path)]
        self.assertEqual(names.count("while on"), 1)
        self.assertNotIn("thread off", names)  # this thread had tracing off
        self.assertIn("other thread", names)   # ... and another thread did not
        self.assertIn("thread on again", names)
        self.assertNotIn("before start", names)
        self.assertNotIn("after stop", names)
        self.assertIn("region while off", names)  # regions are always recorded
        # ROCPROFSYS_INIT_ENABLED: on from the start.
        os.rename(os.path.join(self.dir, "out"), os.path.join(self.dir, "first"))
        _, path = self.traced(CONTROL, env=dict(self.env, ROCPROFSYS_INIT_ENABLED="1"))
        names = [name for _, name in self.markers(path)]
        self.assertIn("before start", names)
        self.assertIn("while on", names)
        self.assertNotIn("after stop", names)

    def test_regions_and_roctx_ranges_that_nest_keep_both(self):
        # Both count their ids from 1: paired by id alone, the inner one closed the outer.
        stdout, path = self.traced(CONTROL, "nested")
        self.assertIn("nested done", stdout)
        prefix = os.path.join(self.dir, "summary")
        output = os.path.join(self.dir, "t.json")
        merged = subprocess.run([MERGE, path, "-o", output, "--summary-csv", prefix],
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(merged.returncode, 0, merged.stderr)
        with open(output) as f:
            events = json.load(f)
        events = events["traceEvents"] if isinstance(events, dict) else events
        slices = [e["name"] for e in events if e.get("ph") == "X"]
        for name in ("outer region", "inner range", "outer range", "inner region"):
            self.assertEqual(slices.count(name), 5, (name, sorted(set(slices))))
        counted = {}
        with open(prefix + "_regions.csv", newline="") as f:
            for row in csv.DictReader(f):
                counted[row["name"]] = counted.get(row["name"], 0) + int(row["count"])
        for name in ("outer region", "inner range", "outer range", "inner region"):
            self.assertEqual(counted.get(name), 5, counted)

    def test_names_and_values_that_break_strict_readers_come_out_valid(self):
        stdout, path = self.traced(ANNOTATIONS, "hostile")
        self.assertIn("hostile 0", stdout)
        outputs = {ext: os.path.join(self.dir, "t" + ext)
                   for ext in (".json", ".pftrace", ".h5", ".db", ".hta")}
        summaries = []
        for ext, output in outputs.items():
            merged = subprocess.run([MERGE, path, "-o", output], capture_output=True,
                                    timeout=120)
            self.assertEqual(merged.returncode, 0, merged.stderr)
            summaries.append(merged.stdout)
        # JSON: strict UTF-8, no NaN or Infinity literals (they are not JSON).
        with open(outputs[".json"], "rb") as f:
            text = f.read().decode("utf-8")

        def refuse(literal):
            raise ValueError(f"{literal} is not JSON")
        events = json.loads(text, parse_constant=refuse)
        events = events["traceEvents"] if isinstance(events, dict) else events
        odd = [e for e in events if e.get("name") == "odd values" and e.get("ph") == "X"]
        self.assertEqual(len(odd), 1)
        self.assertEqual(odd[0]["args"], {"nan": "NaN", "plus": "Infinity", "minus": "-Infinity"})
        names = {e.get("name") for e in events}
        self.assertIn("bad\ufffd\ufffdname", names)
        # Perfetto: the name as valid UTF-8, the raw bytes nowhere.
        with open(outputs[".pftrace"], "rb") as f:
            trace = f.read()
        self.assertIn("bad\ufffd\ufffdname".encode(), trace)
        self.assertNotIn(b"bad\xff\xfename", trace)
        # The merged .h5: every string decodes.
        import h5py
        h5py.h5pl.prepend(PLUGIN_DIR.encode())
        with h5py.File(outputs[".h5"], "r") as f:
            strings = []
            f.visititems(lambda name, item: strings.extend(item.asstr()[:]) if
                         isinstance(item, h5py.Dataset) and h5py.check_string_dtype(item.dtype)
                         else None)
            self.assertIn("bad\ufffd\ufffdname", strings)
        # The rocpd database: every text decodes (Python's sqlite3 refuses what does not).
        import sqlite3
        with sqlite3.connect(outputs[".db"]) as db:
            names = {row[0] for row in db.execute("SELECT string FROM rocpd_string")}
            values = {row[0] for row in db.execute("SELECT value FROM rocpd_arg")}
        self.assertIn("bad\ufffd\ufffdname", names)
        self.assertLessEqual({"nan", "inf", "-inf"}, values)  # the odd values, as text
        # The per-rank Kineto JSON: strict UTF-8 and JSON as above.
        for trace_file in glob.glob(os.path.join(self.dir, "t", "rank*.json")):
            with open(trace_file, "rb") as f:
                kineto = json.loads(f.read().decode("utf-8"), parse_constant=refuse)
            self.assertIn("bad\ufffd\ufffdname", {e.get("name") for e in kineto["traceEvents"]})
        # The printed summary: the escape sequence shown, not sent to the terminal.
        for printed in summaries:
            self.assertNotIn(b"\x1b", printed)
            self.assertIn(b"\\x1b[31mred", printed)

    def test_annotations_of_every_type_are_recorded_with_their_values(self):
        stdout, path = self.traced(ANNOTATIONS)
        # ROCPROFSYS_USER_ERROR_BAD_VALUE (2) for both, and nothing recorded for them.
        self.assertIn("pop without push 2, no name 2", stdout)
        match = re.search(r"result (\d+) pointer (\d+)", stdout)
        self.assertEqual(match.group(1), "0")
        import h5py
        h5py.h5pl.prepend(PLUGIN_DIR.encode())
        with h5py.File(path, "r") as f:
            self.assertEqual(list(f.attrs["format_version"]), [2, 7])
            strings = f["strings"].asstr()[:]
            a = f["annotations"]
            rows = list(zip(strings[a["name"][:]], a["type"][:].tolist(), a["value"][:].tolist(),
                            strings[a["text"][:]], a["marker_id"][:].tolist()))
            markers = f["markers"]
            ids = {strings[m]: int(i) for m, i, op in zip(markers["message"][:], markers["id"][:],
                                                          markers["op"][:]) if op in (0, 5)}
        def signed(bits):
            return bits - (1 << 64) if bits >= 1 << 63 else bits
        def real(bits):
            return struct.unpack("<d", struct.pack("<Q", bits))[0]
        decoded = {}
        for name, kind, value, text, marker in rows:
            decoded[name] = (kind, {1: text, 3: signed(value), 7: signed(value), 10: signed(value),
                                    5: real(value), 9: real(value)}.get(kind, value), marker)
        region, checkpoint = ids["annotated"], ids["checkpoint"]
        self.assertEqual(decoded, {
            "text": (1, "hello", region), "size": (2, 42, region),
            "i64": (3, -5000000000, region), "u64": (4, 18000000000000000000, region),
            "f64": (5, 2.5, region), "pointer": (6, int(match.group(2)), region),
            "i32": (7, -7, region), "u32": (8, 4000000000, region), "f32": (9, 0.25, region),
            "i16": (10, -300, region), "u16": (11, 65000, region),
            "residual": (5, 0.125, region),  # at the region's end
            "step": (8, 4000000000, checkpoint)})
        # On the Perfetto timeline they are the region's (and the mark's) debug annotations.
        out = os.path.join(self.dir, "annotated.pftrace")
        merged = subprocess.run([MERGE, path, "-o", out, "-q"], capture_output=True, text=True)
        self.assertEqual(merged.returncode, 0, merged.stderr)
        with open(out, "rb") as data:
            text = subprocess.run(["protoc", "--decode=rocprof.perfetto.Trace", f"-I{PROTO}",
                                   os.path.join(PROTO, "perfetto_trace_subset.proto")],
                                  stdin=data, capture_output=True, text=True, check=True).stdout
        for value in ('string_value: "hello"', "int_value: -7", "int_value: -5000000000",
                      "uint_value: 18000000000000000000", "double_value: 2.5",
                      "double_value: 0.25", "double_value: 0.125", "uint_value: 65000"):
            self.assertIn(value, text)
        for name in ("text", "i16", "residual", "step"):
            self.assertIn(f'name: "{name}"', text)  # interned annotation names
        # In JSON, the args of the region and of the mark.
        import json
        out = os.path.join(self.dir, "annotated.json")
        merged = subprocess.run([MERGE, path, "-o", out, "-q"], capture_output=True, text=True)
        self.assertEqual(merged.returncode, 0, merged.stderr)
        with open(out) as f:
            events = json.load(f)["traceEvents"]
        region = next(e for e in events if e.get("name") == "annotated" and e["ph"] == "X")
        self.assertEqual(region["args"]["text"], "hello")
        self.assertEqual(region["args"]["i64"], -5000000000)
        self.assertEqual(region["args"]["u64"], 18000000000000000000)
        self.assertEqual(region["args"]["f32"], 0.25)
        self.assertEqual(region["args"]["residual"], 0.125)
        mark = next(e for e in events if e.get("name") == "checkpoint")
        self.assertEqual(mark["args"], {"step": 4000000000})


if __name__ == "__main__":
    unittest.main(verbosity=2)
