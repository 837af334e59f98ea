"""rocprof-merge's wait states: synthetic jobs with an injected delay give the waiting time,
the rank waited for and its cause exactly, in the summary and its CSV file, whether one
process or several merge; a real traced run's waits fit inside its MPI time."""

import collections
import csv
import os
import re
import subprocess
import tempfile
import unittest

from perfetto_text import decode_trace, parse_text_format, perfetto_events
from traced_runs import traced_jacobi

MERGE = os.environ["ROCPROF_TEST_MERGE"]
SYNTHETIC = os.environ["ROCPROF_TEST_SYNTHETIC"]
LAUNCHER = os.environ["ROCPROF_TEST_LAUNCHER"]
JACOBI = os.environ["ROCPROF_TEST_JACOBI"]

ITERATIONS = 100  # synthetic jobs of 1,000 events per rank
DELAY_NS = 1_000_000


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


class WaitStatesTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="wait_states_test_")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def synthetic(self, name, *extra):
        path = os.path.join(self.dir, name)
        subprocess.run([SYNTHETIC, path, "4", str(ITERATIONS * 10), *extra], check=True)
        return path

    def merge(self, job, *more, processes=1):
        prefix = os.path.join(self.dir, os.path.basename(job) + str(processes))
        command = [MERGE, job, "-o", prefix + ".json", "--summary-csv", prefix, *more]
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        if processes > 1:
            command = ["mpirun", "--oversubscribe", "-np", str(processes), *command]
        result = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout, read_csv(prefix + "_waits.csv")

    @staticmethod
    def rows(waits):
        return sorted((w["pattern"], int(w["rank"]), w["call_path"], w["function"],
                       int(w["awaited_rank"]), w["cause"], int(w["count"]), int(w["total_ns"]))
                      for w in waits)

    def expected(self, cause):
        # Rank 1 computes 1 ms longer every iteration. Rank 2 receives its message in an
        # MPI_Waitall entered 1 us after rank 1's send was due: it waits 1 ms - 1 us. Ranks 0
        # and 3 wait the whole 1 ms in MPI_Allreduce; rank 2, entering 100 ns before rank 1,
        # waits 100 ns there, while rank 1 is between its calls in "exchange".
        n = ITERATIONS
        return sorted([
            ("late sender", 2, "exchange", "MPI_Waitall", 1, cause, n, n * (DELAY_NS - 1000)),
            ("wait at NxN", 0, "exchange", "MPI_Allreduce", 1, cause, n, n * DELAY_NS),
            ("wait at NxN", 2, "exchange", "MPI_Allreduce", 1, "region exchange", n, n * 100),
            ("wait at NxN", 3, "exchange", "MPI_Allreduce", 1, cause, n, n * DELAY_NS),
        ])

    def test_a_late_rank_makes_its_receiver_and_the_allreduce_wait(self):
        job = self.synthetic("late", f"--late-rank=1:{DELAY_NS}")
        summary, waits = self.merge(job)
        self.assertEqual(self.rows(waits), self.expected("region compute"))
        # The measure: the receiver's late-sender time is the delay times the
        # iterations, within 1 %.
        late_sender = sum(int(w["total_ns"]) for w in waits if w["pattern"] == "late sender")
        self.assertLess(abs(late_sender - ITERATIONS * DELAY_NS), 0.01 * ITERATIONS * DELAY_NS)
        lines = summary.splitlines()
        start = lines.index(next(line for line in lines if line.startswith("Wait states:")))
        self.assertEqual(lines[start + 2].split()[2:4], ["100", "99.900"])  # late sender
        self.assertEqual(lines[start + 3].split()[3:5], ["300", "200.010"])  # wait at NxN
        self.assertIn("Wait states by cause", summary)
        cause = next(line for line in lines if "region compute" in line and "wait at NxN" in line)
        self.assertEqual(cause.split()[-2:], ["200", "200.000"])

    def test_a_long_kernel_before_the_send_takes_the_blame(self):
        job = self.synthetic("gpu", f"--late-rank=1:{DELAY_NS}:gpu")
        _, waits = self.merge(job)
        self.assertEqual(self.rows(waits), self.expected("kernel slow_kernel"))

    def test_the_critical_path_runs_through_the_late_ranks_kernel(self):
        job = self.synthetic("gpu", f"--late-rank=1:{DELAY_NS}:gpu")
        summary, _ = self.merge(job)
        path = {row["activity"]: int(row["total_ns"])
                for row in read_csv(os.path.join(self.dir, "gpu1_critical_path.csv"))}
        # From rank 0's end back to its last MPI_Allreduce wait, then all of rank 1: its
        # kernels (25 us + 1 ms each) are 97.6 % of the path.
        self.assertEqual(path["kernel slow_kernel"], ITERATIONS * (25_000 + DELAY_NS))
        self.assertEqual(max(path, key=path.get), "kernel slow_kernel")
        span = ITERATIONS * (50_000 + DELAY_NS) - 5_000  # first record to last
        self.assertLess(abs(sum(path.values()) - span), 100)
        self.assertIn("Critical path: 104.995 ms in 2 stretches over 2 ranks", summary)

    def test_the_late_ranks_region_is_the_imbalanced_one_in_every_iteration(self):
        job = self.synthetic("late", f"--late-rank=1:{DELAY_NS}")
        summary, _ = self.merge(job)
        rows = read_csv(os.path.join(self.dir, "late1_imbalance.csv"))
        compute = [row for row in rows if row["region"] == "compute"]
        # Rank 1's "compute" is 30 us + 1 ms, the others' 30 us: max / mean = 1.03 / 0.28.
        self.assertEqual(compute[0]["first_instance"], "")
        self.assertAlmostEqual(float(compute[0]["imbalance"]), 1.03 / 0.28, places=4)
        per_instance = compute[1:]
        self.assertEqual([int(row["first_instance"]) for row in per_instance],
                         list(range(ITERATIONS)))
        for row in per_instance:
            self.assertAlmostEqual(float(row["imbalance"]), 1.03 / 0.28, places=4)
        line = next(line for line in summary.splitlines() if line.strip().startswith("compute"))
        self.assertEqual(line.split()[1:7], ["4", "100", "28.000", "103.000", "1", "3.68"])

    def test_the_perfetto_timeline_draws_the_waits_and_the_critical_path(self):
        job = self.synthetic("gpu", f"--late-rank=1:{DELAY_NS}:gpu")
        out = os.path.join(self.dir, "gpu.pftrace")
        # On by default, and so even when nothing is printed.
        result = subprocess.run([MERGE, job, "-o", out, "-q"], capture_output=True,
                                text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        text = decode_trace(out)
        names = {}
        for packet in parse_text_format(text).get("packet", []):
            for track in packet.get("track_descriptor", []):
                if "name" in track:
                    names[track["uuid"][0]] = (int(track["parent_uuid"][0]) >> 48) - 1, \
                        track["name"][0]
        analysis = [e for e in perfetto_events(text) if e["category"] == ["analysis"]]
        slices = collections.Counter((names[e["track"]], e["name"]) for e in analysis
                                     if e["type"] == "TYPE_SLICE_BEGIN")
        n = ITERATIONS
        self.assertEqual(slices, {
            ((0, "wait states"), "wait at NxN for rank 1"): n,
            ((2, "wait states"), "wait at NxN for rank 1"): n,
            ((2, "wait states"), "late sender for rank 1"): n,
            ((3, "wait states"), "wait at NxN for rank 1"): n,
            ((0, "critical path"), "critical path"): 1,
            ((1, "critical path"), "critical path"): 1,
        })
        # Each wait's flow ends on an instant on rank 1, named by what it was doing then.
        instants = collections.Counter((names[e["track"]], e["name"]) for e in analysis
                                       if e["type"] == "TYPE_INSTANT")
        self.assertEqual(instants[((1, "waited for by other ranks"), "kernel slow_kernel")], 3 * n)
        self.assertEqual(instants[((1, "waited for by other ranks"), "region exchange")], n)
        started = {f for e in analysis for f in e["flows"]}
        ended = {f for e in analysis for f in e["terminating"]}
        self.assertEqual(started, ended)
        self.assertEqual(len(started), 4 * n + 1)  # the waits, and rank 1 -> rank 0 on the path

    def test_a_parallel_merge_finds_the_same_wait_states(self):
        # Each process analyses its own ranks; with 8 processes for 4 ranks, some have none.
        job = self.synthetic("late", f"--late-rank=1:{DELAY_NS}:gpu")
        _, serial = self.merge(job)
        self.assertEqual(self.rows(serial), self.expected("kernel slow_kernel"))
        for processes in (3, 8):
            _, parallel = self.merge(job, processes=processes)
            self.assertEqual(self.rows(parallel), self.rows(serial), processes)
            for table in ("critical_path", "imbalance"):
                with open(os.path.join(self.dir, f"late1_{table}.csv")) as a, \
                        open(os.path.join(self.dir, f"late{processes}_{table}.csv")) as b:
                    self.assertEqual(a.read(), b.read(), (table, processes))

    def test_a_window_analyses_the_chosen_iterations_only(self):
        job = self.synthetic("late", f"--late-rank=1:{DELAY_NS}:gpu")
        summary, waits = self.merge(job, "--window", "compute#10-#19")
        self.assertIn("Analysis window: compute#10-#19", summary)
        _, parallel = self.merge(job, "--window", "compute#10-#19", processes=3)
        self.assertEqual(self.rows(parallel), self.rows(waits))
        self.assertIn("Critical path in the window compute#10-#19", summary)
        rows = {(w["pattern"], int(w["rank"])): (int(w["count"]), int(w["total_ns"]))
                for w in waits if w["cause"] == "kernel slow_kernel"}
        self.assertEqual(set(rows), {("late sender", 2), ("wait at NxN", 0), ("wait at NxN", 3)})
        # Ten iterations; the last one's waits end just past the window (the late rank's
        # compute #19), where they are cut.
        for key, (count, total) in rows.items():
            self.assertEqual(count, 10, key)
            self.assertGreater(total, 9.99 * (DELAY_NS - 1000), key)
            self.assertLessEqual(total, 10 * DELAY_NS, key)
        path = {r["activity"]: int(r["total_ns"])
                for r in read_csv(os.path.join(self.dir, "late1_critical_path.csv"))}
        self.assertLess(sum(path.values()), 10.5 * (DELAY_NS + 25_000))
        self.assertGreater(path["kernel slow_kernel"], 9 * DELAY_NS)
        # The merged .h5 says which window its analysis covers, and every wait lies in it.
        import h5py
        h5py.h5pl.prepend(os.environ["ROCPROF_TEST_PLUGIN_DIR"].encode())
        windowed = os.path.join(self.dir, "windowed.h5")
        result = subprocess.run([MERGE, job, "-o", windowed, "-q", "--window", "compute#10-#19"],
                                capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        with h5py.File(windowed, "r") as f:
            analysis = f["analysis"]
            self.assertEqual(analysis.attrs["window"], "compute#10-#19")
            begin, end = analysis.attrs["window_begin_ns"], analysis.attrs["window_end_ns"]
            self.assertLess(begin, end)
            instances = analysis["wait_instances"]
            self.assertEqual(len(instances["begin_ns"]), 40 - 1)  # rank 2's 10th NxN is cut out
            self.assertGreaterEqual(min(instances["begin_ns"][:]), begin)
            self.assertLessEqual(max(instances["end_ns"][:]), end)
        # A time window over the whole run finds what no window finds.
        _, whole = self.merge(job)
        _, timed = self.merge(job, "--window", "0s-1000s")
        self.assertEqual(self.rows(timed), self.rows(whole))
        # A region no rank ran so often: said, and the whole run analysed.
        result = subprocess.run([MERGE, job, "-o", os.path.join(self.dir, "w.h5"), "-q",
                                 "--window", "compute#10-#200"],
                                capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("no rank ran region 'compute' 201 times (the most: 100); analysing the "
                      "whole run", result.stderr)
        # A window that is neither form, or one with nothing to analyse: refused up front.
        for bad, said in (("compute#10", None), ("10s", "no '-'"), ("2s-1s", "ends before"),
                          ("1-2", "with a unit"), ("#1-#2", "no region name")):
            out = os.path.join(self.dir, "one.h5" if said is None else "bad.h5")
            args = [MERGE, job, "-o", out, "--window", bad]
            result = subprocess.run(args, capture_output=True, text=True, timeout=300)
            if said is None:  # one instance is a window too
                self.assertEqual(result.returncode, 0, result.stderr)
                continue
            self.assertEqual(result.returncode, 2, bad)
            self.assertIn(said, result.stderr, bad)
            self.assertFalse(os.path.exists(os.path.join(self.dir, "bad.h5")))
        result = subprocess.run([MERGE, job, "-o", os.path.join(self.dir, "bad.h5"), "--window",
                                 "1s-2s", "--no-analysis"], capture_output=True, text=True)
        self.assertEqual(result.returncode, 2)
        self.assertIn("not with --no-analysis", result.stderr)

    def test_past_its_memory_the_analysis_spills_and_finds_the_same(self):
        # 4 ranks of 200,000 events: ~10 MiB of message ends and collective calls, taken in
        # rounds of 1 MiB; the tables, the .pftrace and the .h5 stay those of the merge that
        # holds them all, from one process and from three.
        path = os.path.join(self.dir, "big")
        subprocess.run([SYNTHETIC, path, "4", "200000", f"--late-rank=1:{DELAY_NS}:gpu"],
                       check=True)

        def merged(name, memory=None, processes=1):
            prefix = os.path.join(self.dir, name)
            env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
            command = [MERGE, path, "--summary-csv", prefix, "--timings", "--no-summary"]
            if memory is not None:
                env["ROCPROF_MERGE_ANALYSIS_MEMORY"] = memory
            if processes > 1:
                command = ["mpirun", "--oversubscribe", "-np", str(processes), "-x",
                           "ROCPROF_MERGE_ANALYSIS_MEMORY", *command]
            outputs = {}
            for extension in (".pftrace", ".h5"):
                result = subprocess.run(command + ["-o", prefix + extension], capture_output=True,
                                        text=True, timeout=300, env=env)
                self.assertEqual(result.returncode, 0, result.stderr)
                outputs[extension] = result.stderr
            tables = {}
            for table in ("waits", "critical_path", "imbalance"):
                with open(f"{prefix}_{table}.csv") as f:
                    tables[table] = f.read()
            with open(prefix + ".pftrace", "rb") as f:
                tables["pftrace"] = f.read()
            # The group's contents: the dump's first line names the file.
            tables["h5"] = subprocess.run(["h5dump", "-g", "/analysis", prefix + ".h5"],
                                          capture_output=True, text=True,
                                          check=True).stdout.split("\n", 1)[1]
            return tables, outputs[".pftrace"]

        held, told = merged("held")
        self.assertNotRegex(told, r"finding waits in \d+ rounds")
        steps = r"the analysis's steps on the first process: [0-9.]+ s finding waits in 1 round, " \
            r"[0-9.]+ s blaming the receives of several messages, [0-9.]+ s gathering (\d+) wait " \
            r"edges, [0-9.]+ s walking the critical path, [0-9.]+ s sharing it out(, the " \
            r"doings of [0-9]+ ranks that many waited for copied to every process)?; of the " \
            r"first three, [0-9.]+ s taking the rounds' message ends and collective calls, " \
            r"[0-9.]+ s in [1-9][0-9]* exchanges"
        edges = int(re.search(steps, told).group(1))
        self.assertGreater(edges, 0)
        self.assertEqual(len(read_csv(os.path.join(self.dir, "held_waits.csv"))), 4)
        self.assertIn("wait at NxN", held["h5"])
        for processes in (1, 3):
            spilled, told = merged(f"spilled{processes}", "1", processes)
            self.assertRegex(told, r"in \d+ rounds \([0-9.]+ MiB of them spilled\)")
            self.assertNotRegex(told, r"\(0\.0 MiB of them spilled")
            self.assertIn(f"gathering {edges} wait edges", told)
            for what in held:
                self.assertTrue(spilled[what] == held[what], (what, processes))
        # A budget that is not a number of MiB stops the merge before any work.
        result = subprocess.run([MERGE, path, "-o", os.path.join(self.dir, "bad.pftrace")],
                                capture_output=True, text=True, timeout=60,
                                env=dict(os.environ, ROCPROF_MERGE_ANALYSIS_MEMORY="lots"))
        self.assertEqual(result.returncode, 2)
        self.assertIn("ROCPROF_MERGE_ANALYSIS_MEMORY is 'lots'", result.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "bad.pftrace")))
        self.assertEqual([f for f in os.listdir(self.dir) if "rocprof-merge-analysis" in f], [])

    def test_a_balanced_job_has_no_wait_states(self):
        job = self.synthetic("balanced")
        summary, waits = self.merge(job)
        self.assertEqual(waits, [])
        self.assertNotIn("Wait states", summary)

    def test_with_no_analysis_they_are_left_out_and_said_so(self):
        job = self.synthetic("late", f"--late-rank=1:{DELAY_NS}")
        prefix = os.path.join(self.dir, "without")
        result = subprocess.run([MERGE, job, "-o", prefix + ".pftrace", "--summary-csv", prefix,
                                 "--no-analysis"], capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn("Wait states:", result.stdout)
        self.assertIn("Wait states and the critical path: not analysed (rocprof-merge "
                      "--no-analysis)", result.stdout)
        self.assertNotIn("analysis", decode_trace(prefix + ".pftrace"))
        self.assertIn("MPI_Allreduce", result.stdout)
        self.assertTrue(os.path.exists(prefix + "_mpi.csv"))
        self.assertFalse(os.path.exists(prefix + "_waits.csv"))
        self.assertFalse(os.path.exists(prefix + "_critical_path.csv"))
        self.assertTrue(os.path.exists(prefix + "_imbalance.csv"))  # not a wait-state table

    def test_the_waits_of_a_traced_run_fit_in_its_mpi_time(self):
        summary, waits = self.merge(traced_jacobi(self, self.dir, LAUNCHER, JACOBI))
        self.assertIn("Wait states:", summary)
        mpi = collections.Counter()
        for row in read_csv(os.path.join(self.dir, "trace1_mpi.csv")):
            mpi[int(row["rank"])] += int(row["total_ns"])
        waited = collections.Counter()
        for row in waits:
            waited[int(row["rank"])] += int(row["total_ns"])
            self.assertIn(row["pattern"], ("late sender", "late receiver", "wait at NxN",
                                           "wait at barrier", "late broadcast", "early reduce"))
            self.assertNotEqual(int(row["awaited_rank"]), int(row["rank"]))
        self.assertTrue(waited)
        for rank, total in waited.items():
            self.assertLessEqual(total, mpi[rank], rank)

    def test_the_merged_h5_holds_the_tables_and_each_wait_inside_its_mpi_call(self):
        import h5py
        h5py.h5pl.prepend(os.environ["ROCPROF_TEST_PLUGIN_DIR"].encode())
        job = self.synthetic("gpu", f"--late-rank=1:{DELAY_NS}:gpu")
        prefix = os.path.join(self.dir, "tables")
        # --wait-states, the default, is still taken.
        result = subprocess.run([MERGE, job, "-o", prefix + ".h5", "--summary-csv", prefix,
                                 "--wait-states"], capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        # Stock h5dump lists the group.
        listed = subprocess.run(["h5dump", "-n", prefix + ".h5"], capture_output=True, text=True,
                                check=True).stdout
        for column in ("waits/cause", "wait_instances/pattern", "causes", "critical_path/rank",
                       "critical_path_activities/share", "region_imbalance/imbalance",
                       "region_imbalance_over_time/last_instance"):
            self.assertIn(f"dataset    /analysis/{column}\n", listed)
        def table(group, name):
            # A table is a group of columns, strings as text.
            return [dict(zip(group[name], row)) for row in zip(*(
                group[name][c].asstr()[:] if h5py.check_string_dtype(group[name][c].dtype)
                else group[name][c][:] for c in group[name]))]
        with h5py.File(prefix + ".h5", "r") as f:
            group = f["analysis"]
            self.assertEqual(group.attrs["wait_states_analysed"], 1)
            rows = sorted((w["pattern"], int(w["rank"]), w["call_path"], w["function"],
                           int(w["awaited_rank"]), w["cause"], int(w["count"]),
                           int(w["total_ns"])) for w in table(group, "waits"))
            self.assertEqual(rows, self.expected("kernel slow_kernel"))
            # The instances add up to the totals, pattern by pattern and rank by rank, and
            # each lies inside an MPI call of its rank on the merged tables' clock.
            instances = table(group, "wait_instances")
            patterns = h5py.check_enum_dtype(group["wait_instances/pattern"].dtype)
            names = {value: name for name, value in patterns.items()}
            causes = group["causes"].asstr()[:]
            summed = collections.Counter()
            for w in instances:
                summed[(names[w["pattern"]], int(w["rank"]), causes[w["cause"]])] += \
                    int(w["end_ns"]) - int(w["begin_ns"])
            self.assertEqual(summed, {(p, r, c): t for p, r, _, _, _, c, _, t in rows})
            mpi = f["mpi_calls"]
            calls = collections.defaultdict(list)
            for rank, begin, end in zip(mpi["rank"][:], mpi["begin_ns"][:], mpi["end_ns"][:]):
                calls[int(rank)].append((int(begin), int(end)))
            for w in instances:
                self.assertTrue(any(b <= w["begin_ns"] and w["end_ns"] <= e
                                    for b, e in calls[int(w["rank"])]), w)
            # The critical path: its stretches in time order add up to its length, and its
            # activities are the CSV's.
            stretches = table(group, "critical_path")
            self.assertEqual([int(s["rank"]) for s in stretches], [1, 0])
            self.assertEqual(sum(int(s["end_ns"]) - int(s["begin_ns"]) for s in stretches),
                             group.attrs["critical_path_length_ns"])
            activities = {a["activity"]: int(round(a["total_ns"]))
                          for a in table(group, "critical_path_activities")}
            csv_activities = {a["activity"].replace("(host work no tracer saw)", ""):
                              int(a["total_ns"]) for a in read_csv(prefix + "_critical_path.csv")}
            self.assertEqual(activities, csv_activities)
            self.assertEqual(activities["kernel slow_kernel"], ITERATIONS * (25_000 + DELAY_NS))
            imbalance = {r["region"]: r for r in table(group, "region_imbalance")}
            self.assertAlmostEqual(imbalance["compute"]["imbalance"], 1.03 / 0.28, places=4)
            self.assertEqual(int(imbalance["compute"]["max_rank"]), 1)
            over_time = [r for r in table(group, "region_imbalance_over_time")
                         if r["region"] == "compute"]
            self.assertEqual([int(r["first_instance"]) for r in over_time],
                             list(range(ITERATIONS)))

    def test_with_no_analysis_the_merged_h5_has_the_imbalance_only(self):
        import h5py
        h5py.h5pl.prepend(os.environ["ROCPROF_TEST_PLUGIN_DIR"].encode())
        job = self.synthetic("late", f"--late-rank=1:{DELAY_NS}")
        out = os.path.join(self.dir, "plain.h5")
        result = subprocess.run([MERGE, job, "-o", out, "--no-analysis"], capture_output=True,
                                text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        with h5py.File(out, "r") as f:
            self.assertEqual(list(f.attrs["format_version"]), [1, 3])
            self.assertEqual(f["analysis"].attrs["wait_states_analysed"], 0)
            self.assertEqual(sorted(f["analysis"]),
                             ["region_imbalance", "region_imbalance_over_time"])


if __name__ == "__main__":
    unittest.main()
