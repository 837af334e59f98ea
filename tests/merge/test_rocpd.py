"""rocprof-merge -o job.db: a rocpd database (rocprofiler-sdk's SQLite format) that stock sqlite3
reads with the schema docs/ROCPD.md documents, whose counts equal the merge's own summary, and
that 1 and 3 merge processes write alike. AMD's own rocpd tools are run on it by
rocpd_tools_check.py (given a rocprofiler-sdk checkout; see docs/ROCPD.md)."""

import csv
import os
import re
import subprocess
import tempfile
import unittest
from collections import Counter

from merge_digest import output_digest
from traced_runs import run_merge as run

MERGE = os.environ["ROCPROF_TEST_MERGE"]
SYNTHETIC = os.environ["ROCPROF_TEST_SYNTHETIC"]
SQLITE3 = os.environ.get("ROCPROF_TEST_SQLITE3", "sqlite3")
DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "ROCPD.md")
TOOLS_CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rocpd_tools_check.py")

# Every kind of record: GPU-aware collectives (copies), user regions with copies inside, a late
# rank whose ranges hold a kernel launch, device counters, skewed clocks.
JOB = ["5", "3000", "2", "-3000000", "--gpu-aware-allreduce", "--user-regions", "--counters=30",
       "--late-rank=3:20000:gpu"]




def sql(db, query):
    """Rows of `query` through the sqlite3 shell (read-only), as lists of strings."""
    out = subprocess.run([SQLITE3, "-readonly", "-batch", "-separator", "\t", db, query],
                         capture_output=True, text=True, check=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def documented(section):
    """Name -> list of columns from a `| `name` | a, b, c |` table under `## section`."""
    with open(DOC) as f:
        text = f.read()
    body = text.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    found = {}
    for name, columns in re.findall(r"^\| `(\w+)` \| ([^|]*) \|", body, re.M):
        found[name] = [c.strip() for c in columns.split(",") if c.strip()]
    return found


class RocpdTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="rocprof-rocpd-")
        cls.job = os.path.join(cls.dir, "job")
        run([SYNTHETIC, cls.job] + JOB)
        cls.db = os.path.join(cls.dir, "job.db")
        cls.summary = os.path.join(cls.dir, "summary")
        cls.merged = run([MERGE, cls.job, "-o", cls.db, "--summary-csv", cls.summary])
        cls.h5 = os.path.join(cls.dir, "job.h5")
        run([MERGE, cls.job, "-o", cls.h5, "-q"])

    @classmethod
    def tearDownClass(cls):
        subprocess.run(["rm", "-rf", cls.dir])

    def test_tables_and_views_are_the_documented_ones(self):
        uuid = sql(self.db, "SELECT value FROM rocpd_metadata WHERE tag = 'uuid'")[0][0]
        guid = sql(self.db, "SELECT value FROM rocpd_metadata WHERE tag = 'guid'")[0][0]
        self.assertEqual(uuid, "_" + guid.replace("-", "_"))
        self.assertEqual(sql(self.db, "SELECT value FROM rocpd_metadata "
                                      "WHERE tag = 'schema_version'"), [["3"]])
        tables = {row[0] for row in sql(self.db, "SELECT name FROM sqlite_master "
                                                 "WHERE type = 'table'")}
        views = {row[0] for row in sql(self.db, "SELECT name FROM sqlite_master "
                                                "WHERE type = 'view'")}
        for name, columns in documented("Tables").items():
            with self.subTest(table=name):
                # rocpd's tables carry the database's suffix; the view of the bare name reads it.
                stored = name + uuid if name.startswith("rocpd_") else name
                self.assertIn(stored, tables)
                got = [row[0] for row in sql(self.db, f"SELECT name FROM pragma_table_info('{stored}')")]
                self.assertEqual(got, columns)
                if name.startswith("rocpd_"):
                    self.assertIn(name, views)
        for name, columns in documented("Views").items():
            with self.subTest(view=name):
                self.assertIn(name, views)
                got = [row[0] for row in sql(self.db, f"SELECT name FROM pragma_table_info('{name}')")]
                self.assertEqual(got, columns)
                sql(self.db, f'SELECT COUNT(*) FROM "{name}"')  # it runs
        self.assertEqual(sql(self.db, "PRAGMA integrity_check"), [["ok"]])
        self.assertEqual(sql(self.db, "PRAGMA foreign_key_check"), [])

    def test_counts_equal_the_merge_summary(self):
        mpi, kernels, copies, regions = Counter(), Counter(), Counter(), Counter()
        with open(self.summary + "_mpi.csv") as f:
            for row in csv.DictReader(f):
                mpi[row["function"]] += int(row["calls"])
        with open(self.summary + "_kernels.csv") as f:
            for row in csv.DictReader(f):
                (kernels if row["kind"] == "kernel" else copies)[row["name"]] += int(row["count"])
        with open(self.summary + "_regions.csv") as f:
            for row in csv.DictReader(f):
                regions[row["name"]] += int(row["count"])
        self.assertTrue(mpi and kernels and copies and regions)

        def by_name(query):
            return {name: int(count) for name, count in sql(self.db, query)}

        self.assertEqual(by_name("SELECT name, COUNT(*) FROM regions WHERE category = 'MPI_API' "
                                 "GROUP BY name"), dict(mpi))
        self.assertEqual(by_name("SELECT name, COUNT(*) FROM kernels GROUP BY name"), dict(kernels))
        self.assertEqual(int(sql(self.db, "SELECT COUNT(*) FROM memory_copies")[0][0]),
                         sum(copies.values()))
        self.assertEqual(by_name("SELECT name, COUNT(*) FROM regions WHERE category IN "
                                 "('MARKER_CORE_RANGE_API', 'USER_REGION') GROUP BY name"),
                         dict(regions))

        import h5py
        h5py.h5pl.prepend(os.environ["ROCPROF_TEST_PLUGIN_DIR"].encode())
        with h5py.File(self.h5, "r") as f:
            api_calls = f["api_calls/begin_ns"].shape[0]
            samples = f["counter_samples/timestamp_ns"].shape[0]
        self.assertEqual(int(sql(self.db, "SELECT COUNT(*) FROM regions WHERE category "
                                          "= 'HIP_RUNTIME_API'")[0][0]), api_calls)
        self.assertEqual(int(sql(self.db, "SELECT COUNT(*) FROM samples WHERE category "
                                          "= 'COUNTER_SAMPLE'")[0][0]), samples)
        matched = int(re.search(r"(\d+) messages matched",
                                  self.merged.stdout + self.merged.stderr).group(1))
        self.assertEqual(int(sql(self.db, "SELECT COUNT(*) FROM rocprofmpi_messages")[0][0]),
                         matched)

    def test_every_rank_is_a_process_with_its_threads_and_agents(self):
        ranks = sql(self.db, "SELECT JSON_EXTRACT(extdata, '$.rank'), "
                             "JSON_EXTRACT(extdata, '$.world_size') FROM rocpd_info_process "
                             "ORDER BY id")
        self.assertEqual(ranks, [[str(r), "5"] for r in range(5)])
        # Every region's thread is a thread of its own process.
        self.assertEqual(sql(self.db, "SELECT COUNT(*) FROM rocpd_region r JOIN "
                                      "rocpd_info_thread t ON t.id = r.tid WHERE t.pid != r.pid"),
                         [["0"]])
        self.assertEqual(sql(self.db, "SELECT COUNT(*) FROM rocpd_region WHERE tid NOT IN "
                                      "(SELECT id FROM rocpd_info_thread)"), [["0"]])
        # A copy from the device to the host: source on a GPU agent, destination on the CPU.
        self.assertEqual(sql(self.db, "SELECT DISTINCT src_agent_type, dst_agent_type FROM "
                                      "memory_copies WHERE name = 'CopyDeviceToHost'"),
                         [["GPU", "CPU"]])

    def test_device_work_and_messages_lead_back_to_their_calls(self):
        # Each kernel to the API call that launched it (the same correlation id, one process).
        self.assertEqual(
            sql(self.db, "SELECT COUNT(*) FROM kernels k WHERE NOT EXISTS (SELECT 1 FROM "
                         "regions r WHERE r.pid = k.pid AND r.category = 'HIP_RUNTIME_API' AND "
                         "r.stack_id = k.stack_id AND r.start <= k.start)"), [["0"]])
        self.assertNotEqual(sql(self.db, "SELECT COUNT(*) FROM kernels"), [["0"]])
        # Each message from a send of one rank to the completed receive of another; the copy an
        # MPI_Allreduce stages carries the allreduce's correlation id.
        pairs = sql(self.db, "SELECT s.name, r.name, s.pid != r.pid, s.start <= r.end FROM "
                             "rocprofmpi_messages m JOIN regions s ON s.event_id = m.send_event_id "
                             "JOIN regions r ON r.event_id = m.receive_event_id GROUP BY 1, 2, 3, 4")
        self.assertEqual(pairs, [["MPI_Isend", "MPI_Waitall", "1", "1"]])
        inside = sql(self.db, "SELECT COUNT(*) FROM regions a JOIN regions m ON m.pid = a.pid AND "
                              "m.corr_id = a.corr_id AND m.category = 'MPI_API' AND "
                              "m.name = 'MPI_Allreduce' WHERE a.category = 'HIP_RUNTIME_API' "
                              "AND a.corr_id != 0")
        self.assertNotEqual(inside, [["0"]])

    def test_the_analysis_is_the_summarys(self):
        with open(self.summary + "_waits.csv") as f:
            waits = sorted((r["pattern"], r["rank"], r["call_path"], r["function"],
                            r["awaited_rank"], r["cause"], r["count"], r["total_ns"])
                           for r in csv.DictReader(f))
        self.assertTrue(waits)
        stored = sql(self.db, "SELECT pattern, rank, call_path, function, awaited_rank, cause, "
                              "count, CAST(total_ns AS INTEGER) FROM rocprofmpi_wait_state")
        self.assertEqual(sorted(tuple(row) for row in stored), waits)
        # Each wait: as many as counted, inside an MPI call of its waiting rank.
        self.assertEqual(sql(self.db, "SELECT COUNT(*) FROM rocprofmpi_wait")[0][0],
                         str(sum(int(w[6]) for w in waits)))
        outside = sql(self.db, "SELECT COUNT(*) FROM rocprofmpi_wait w WHERE NOT EXISTS ("
                               "SELECT 1 FROM regions r JOIN rocpd_info_process p ON p.pid = "
                               "r.pid WHERE JSON_EXTRACT(p.extdata, '$.rank') = w.rank AND "
                               "r.category = 'MPI_API' AND r.start <= w.start AND w.end <= r.end)")
        self.assertEqual(outside, [["0"]])
        with open(self.summary + "_critical_path.csv") as f:
            path = {r["activity"]: float(r["total_ns"]) for r in csv.DictReader(f)}
        stored = {name: float(ns) for name, ns in
                  sql(self.db, "SELECT activity, time_ns FROM rocprofmpi_critical_path_activity")}
        self.assertEqual(stored.keys(), path.keys())
        for name, ns in path.items():
            self.assertAlmostEqual(stored[name], ns, delta=1.0)
        length = float(sql(self.db, 'SELECT SUM("end" - start) FROM rocprofmpi_critical_path')[0][0])
        self.assertAlmostEqual(length, sum(path.values()), delta=len(path) + 1.0)

    def test_parallel_merges_write_the_same_database(self):
        serial = output_digest(self.db)
        for procs in (2, 3):
            with self.subTest(processes=procs):
                out = os.path.join(self.dir, f"parallel{procs}.db")
                run([MERGE, self.job, "-o", out, "-q"], procs)
                self.assertEqual(output_digest(out), serial)
                # The processes' parts are gone.
                self.assertEqual([n for n in os.listdir(self.dir) if ".part" in n], [])

    def test_amds_rocpd_tools_read_it_where_a_checkout_is_given(self):
        result = subprocess.run(
            ["/usr/bin/python3", TOOLS_CHECK, "--db", self.db, "--summary-csv", self.summary,
             "--h5", self.h5], capture_output=True, text=True, timeout=300)
        if result.returncode == 77:
            self.skipTest(result.stdout.strip())
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)


if __name__ == "__main__":
    unittest.main()
