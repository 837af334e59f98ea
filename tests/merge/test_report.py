"""rocprof-merge --report: a self-contained HTML file whose numbers add up, drawn by a real
browser (headless Chromium, network off) with every plot rendered and no console error; the
screenshot is kept under the build's test-artifacts/."""

import collections
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import numpy

from traced_runs import run_mpi, traced_jacobi

MERGE = os.environ["ROCPROF_TEST_MERGE"]
SYNTHETIC = os.environ["ROCPROF_TEST_SYNTHETIC"]
LAUNCHER = os.environ["ROCPROF_TEST_LAUNCHER"]
JACOBI = os.environ["ROCPROF_TEST_JACOBI"]
PATTERNS = os.environ["ROCPROF_TEST_PATTERNS"]
ARTIFACTS = os.environ["ROCPROF_TEST_ARTIFACTS"]
CHROMIUM = shutil.which("chromium")
LAMMPS = shutil.which("lmp")  # Debian's lammps
MELT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lammps", "lj_melt.in")


def thermo_table(output):
    """LAMMPS's thermodynamic output: the rows after each "Step" header."""
    rows, inside = [], False
    for line in output.splitlines():
        words = line.split()
        if words[:1] == ["Step"]:
            inside = True
        elif inside and words and re.fullmatch(r"\d+", words[0]):
            rows.append(words)
        else:
            inside = False
    return rows


def lammps_section_minimum(output, section):
    """The least time any rank spent in a section of LAMMPS's own timing breakdown."""
    line = next(l for l in output.splitlines() if l.split()[:2] == [section, "|"])
    return float(line.split("|")[1])


def mpi_union_ms(h5_path):
    """Per rank, the time covered by its MPI call rows in a merged .h5 (nested calls once)."""
    import h5py
    h5py.h5pl.prepend(os.environ["ROCPROF_TEST_PLUGIN_DIR"].encode())
    with h5py.File(h5_path, "r") as f:
        calls = f["mpi_calls"]
        ranks, begins, ends = calls["rank"][:], calls["begin_ns"][:], calls["end_ns"][:]
    covered = {}
    for rank in numpy.unique(ranks):
        mine = ranks == rank
        total, reach = 0, 0
        for begin, end in sorted(zip(begins[mine].tolist(), ends[mine].tolist())):
            begin = max(begin, reach)
            if end > begin:
                total += end - begin
                reach = end
        covered[int(rank)] = total / 1e6
    return covered


Row = collections.namedtuple("Row", "wall compute transfer polling wait gpu mb_sent mb_per_s")


def rank_rows(html):
    """The per-rank table: rank -> Row (times in ms; MB/s None where no transfer time)."""
    rows = {}
    for cells in re.findall(r"<tr>((?:<td>[^<]*</td>){9})</tr>", html):
        values = re.findall(r"<td>([^<]*)</td>", cells)
        if re.fullmatch(r"\d+", values[0]) and all(re.fullmatch(r"[\d.]+", v)
                                                   for v in values[1:8]):
            rate = None if values[8] == "-" else float(values[8])
            rows[int(values[0])] = Row(*(float(v) for v in values[1:8]), rate)
    return rows


def mpi_test_ms(csv_path):
    """Per rank, the total time of its MPI_Test calls, from the summary's PREFIX_mpi.csv."""
    import csv
    totals = collections.defaultdict(float)
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            if row["function"] == "MPI_Test":
                totals[int(row["rank"])] += float(row["total_ns"]) / 1e6
    return totals


def bytes_sent(h5_path):
    """Per rank, the bytes_sent of its MPI rows in a merged .h5."""
    import h5py
    h5py.h5pl.prepend(os.environ["ROCPROF_TEST_PLUGIN_DIR"].encode())
    with h5py.File(h5_path, "r") as f:
        calls = f["mpi_calls"]
        ranks = calls["rank"][:]
        sent = calls["bytes_sent"][:]
    return {int(rank): int(sent[ranks == rank].sum()) for rank in numpy.unique(ranks)}


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="report_test_")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def report(self, job, name):
        path = os.path.join(self.dir, name + ".html")
        result = subprocess.run([MERGE, job, "-o", os.path.join(self.dir, name + ".pftrace"),
                                 "--report", path], capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"report -> {path}", result.stdout)
        with open(path, encoding="utf-8") as f:
            return path, f.read()

    def check_adds_up(self, html, ranks):
        rows = rank_rows(html)
        self.assertEqual(sorted(rows), list(range(ranks)))
        for rank, row in rows.items():
            self.assertGreater(row.wall, 0, rank)
            # Per rank: compute + MPI = wall, within 1 %.
            self.assertLess(abs(row.compute + row.transfer + row.polling + row.wait - row.wall),
                            0.01 * row.wall + 0.002, rank)
            self.assertLessEqual(row.gpu, row.wall + 0.001, rank)
        return rows

    def browse(self, path, screenshot):
        """Chromium, headless, offline: the DOM after the page's script ran, and its console."""
        if CHROMIUM is None:
            self.skipTest("chromium is not installed (scripts/install-deps.sh installs it)")
        base = ["unshare", "-n", CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                f"--user-data-dir={os.path.join(self.dir, 'profile')}"]
        dom = subprocess.run([*base, "--dump-dom", "file://" + path], capture_output=True,
                             text=True, timeout=120)
        self.assertEqual(dom.returncode, 0, dom.stderr[-2000:])
        shot = subprocess.run([*base, "--enable-logging=stderr", "--v=0", "--window-size=1100,2400",
                               f"--screenshot={screenshot}", "file://" + path],
                              capture_output=True, text=True, timeout=120)
        self.assertEqual(shot.returncode, 0, shot.stderr[-2000:])
        self.assertGreater(os.path.getsize(screenshot), 10_000)
        console = [line for line in shot.stderr.splitlines() if ":CONSOLE" in line]
        return dom.stdout, console

    def test_the_report_of_a_job_with_waits_and_kernels(self):
        job = os.path.join(self.dir, "job")
        subprocess.run([SYNTHETIC, job, "4", "1000", "--late-rank=1:1000000:gpu", "--host-waits"],
                       check=True)
        path, html = self.report(job, "job")
        # Self-contained: nothing loaded from anywhere.
        self.assertNotRegex(html, r"(src|href)\s*=")
        self.assertNotIn("@import", html)
        rows = self.check_adds_up(html, 4)
        # Rank 1 is late by 1 ms in each of 100 iterations: the others wait about 100 ms.
        self.assertAlmostEqual(rows[0].wait, 100.0, delta=0.5)
        self.assertAlmostEqual(rows[1].wait, 0.0, delta=0.01)
        # Its GPU ran slow_kernel; the host waits for it (from before the kernel began) are
        # host time.
        self.assertAlmostEqual(rows[1].gpu, 102.5, delta=0.01)
        for plot in ("time-per-rank", "mpi-heatmap", "wait-patterns", "wait-causes",
                     "region-imbalance", "critical-path"):
            self.assertIn(f'id="{plot}"', html)
        self.assertIn("rank 1 in kernel slow_kernel", html)
        self.assertNotIn("op 3", html)  # the host waits are nobody's cause nor path
        os.makedirs(ARTIFACTS, exist_ok=True)
        screenshot = os.path.join(ARTIFACTS, "report.png")
        dom, console = self.browse(path, screenshot)
        plots = html.count('<svg class="plot"')
        self.assertEqual(re.search(r'data-plots="(\d+)"', dom).group(1), str(plots))
        self.assertTrue(any(f"{plots} plots drawn" in line for line in console), console)
        self.assertFalse([line for line in console if "plots drawn" not in line], console)

    def test_the_report_of_a_traced_run(self):
        path, html = self.report(traced_jacobi(self, self.dir, LAUNCHER, JACOBI), "trace")
        rows = self.check_adds_up(html, 4)
        self.assertTrue(any(row.transfer + row.wait > 0 for row in rows.values()))
        dom, console = self.browse(path, os.path.join(ARTIFACTS, "report_jacobi.png"))
        self.assertEqual(re.search(r'data-plots="(\d+)"', dom).group(1),
                         str(html.count('<svg class="plot"')))

    def test_the_report_of_lammps(self):
        if LAMMPS is None:
            self.skipTest("Debian's lammps is not installed (scripts/install-deps.sh installs it)")
        lammps = [LAMMPS, "-in", MELT, "-log", "none"]
        runs = {}
        traced = [LAUNCHER, "--mpi-trace", "-d", "lmp", "--"]
        for name, prefix in (("plain", []), ("traced", traced)):
            run = run_mpi([*prefix, *lammps], self.dir)
            self.assertEqual(run.returncode, 0, run.stdout[-2000:] + run.stderr[-2000:])
            runs[name] = run.stdout
        # Traced, LAMMPS computes exactly what it computes alone.
        self.assertEqual(len(thermo_table(runs["plain"])), 5)
        self.assertEqual(thermo_table(runs["traced"]), thermo_table(runs["plain"]))
        h5 = os.path.join(self.dir, "lmp.h5")
        result = subprocess.run([MERGE, os.path.join(self.dir, "lmp"), "-o", h5, "--report",
                                 os.path.join(self.dir, "lmp.html"), "--summary-csv",
                                 os.path.join(self.dir, "lmp")],
                                capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(self.dir, "lmp.html"), encoding="utf-8") as f:
            html = f.read()
        rows = self.check_adds_up(html, 4)
        # The report's MPI time per rank is the time its MPI rows cover, read back from the
        # merged .h5; its compute time holds LAMMPS's own compute sections (Pair, Neigh,
        # Modify, as LAMMPS timed them).
        covered = mpi_union_ms(h5)
        computed = sum(lammps_section_minimum(runs["traced"], section) * 1e3
                       for section in ("Pair", "Neigh", "Modify"))
        for rank, row in rows.items():
            self.assertLess(abs(row.transfer + row.polling + row.wait - covered[rank]),
                            0.001 * row.wall + 0.01, rank)
            self.assertGreaterEqual(row.compute, computed, rank)
        # Its halo exchange and reductions were matched and analysed.
        with open(os.path.join(self.dir, "lmp_waits.csv")) as f:
            patterns = collections.Counter(line.split(",")[0] for line in f.readlines()[1:])
        self.assertIn("wait at NxN", patterns)
        self.assertIn("MPI_Allreduce", html)
        dom, console = self.browse(os.path.join(self.dir, "lmp.html"),
                                   os.path.join(ARTIFACTS, "report_lammps.png"))
        self.assertEqual(re.search(r'data-plots="(\d+)"', dom).group(1),
                         str(html.count('<svg class="plot"')))
        self.assertFalse([line for line in console if "plots drawn" not in line], console)

    def test_polling_and_bytes_sent_per_rank(self):
        # mpi_patterns p2p: each rank completes a receive in an MPI_Test loop, among sends and
        # receives of known sizes. The report's MPI polling is that loop's time (from the
        # summary's own per-function totals), but for a wait inside it; MB sent is what the
        # rank's rows in the merged .h5 say they sent.
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ROCPROF_MPI_", "LD_PRELOAD"))}
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        traced = subprocess.run(["mpirun", "--oversubscribe", "-np", "4", LAUNCHER, "--mpi-trace",
                                 "-d", "p2p", "--", PATTERNS, "p2p"], cwd=self.dir, env=env,
                                capture_output=True, text=True, timeout=180)
        self.assertEqual(traced.returncode, 0, traced.stderr)
        h5 = os.path.join(self.dir, "p2p.h5")
        html_path = os.path.join(self.dir, "p2p.html")
        result = subprocess.run([MERGE, os.path.join(self.dir, "p2p"), "-o", h5, "--report",
                                 html_path, "--summary-csv", os.path.join(self.dir, "p2p")],
                                capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(html_path, encoding="utf-8") as f:
            html = f.read()
        self.assertIn("MPI polling", html)
        # Traced without --marker-trace: no region at all, and the report says so as such.
        self.assertIn("No region was recorded", html)
        self.assertNotIn("No region was run by more than one rank", html)
        rows = self.check_adds_up(html, 4)
        tests = mpi_test_ms(os.path.join(self.dir, "p2p_mpi.csv"))
        sent = bytes_sent(h5)
        for rank, row in rows.items():
            self.assertGreater(tests[rank], 0, rank)
            self.assertLessEqual(row.polling, tests[rank] + 0.002, rank)
            self.assertGreaterEqual(row.polling, tests[rank] - row.wait - 0.002, rank)
            self.assertGreater(sent[rank], 0, rank)
            self.assertAlmostEqual(row.mb_sent, sent[rank] / 1e6, delta=0.0005, msg=rank)
            if row.transfer > 0:
                self.assertAlmostEqual(row.mb_per_s, sent[rank] / 1e6 / (row.transfer / 1e3),
                                       delta=0.05 + 0.001 * row.mb_per_s, msg=rank)

    def test_a_report_that_cannot_be_written_is_refused_before_any_work(self):
        job = os.path.join(self.dir, "job")
        subprocess.run([SYNTHETIC, job, "2", "100"], check=True)
        result = subprocess.run([MERGE, job, "-o", os.path.join(self.dir, "t.json"), "--report",
                                 "/nonexistent/dir/r.html"], capture_output=True, text=True)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("/nonexistent/dir/r.html", result.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "t.json")))


if __name__ == "__main__":
    unittest.main()
