"""real_app_pairs.py (the real-application benchmark) on a short LAMMPS run: it measures,
counts what the traced runs recorded, and refuses what it cannot run."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "real_app_pairs.py")
BUILD = os.environ.get("ROCPROF_TEST_BUILD", "")


def bench(*args):
    return subprocess.run([sys.executable, SCRIPT, BUILD, *args], capture_output=True, text=True,
                          timeout=300)


@unittest.skipIf(shutil.which("lmp") is None, "LAMMPS (Debian package lammps) is not installed")
class RealAppPairsTest(unittest.TestCase):
    def test_pairs_of_lammps_runs_are_timed_and_their_records_counted(self):
        result = bench("--apps", "lammps", "--pairs", "2", "--ranks", "2", "--lammps-steps", "100")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        row = next(line.split() for line in result.stdout.splitlines()
                   if line.split()[:1] == ["lammps"])
        _app, language, plain, traced, ratio, _range, cpu_ratio, records, dropped = row
        self.assertEqual(language, "C++")
        self.assertGreater(float(plain), 0.0)
        self.assertAlmostEqual(float(ratio), float(traced) / float(plain), delta=0.5)
        self.assertGreater(float(cpu_ratio), 0.0)
        # Two ranks' MPI calls over 100 steps: halo exchanges every step at least.
        self.assertGreater(int(records), 2 * 100)
        self.assertEqual(int(dropped), 0)

    def test_an_unknown_application_is_refused_by_name(self):
        result = bench("--apps", "lammps,hpl")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("unknown application 'hpl'", result.stderr)

    def test_a_build_without_the_launcher_is_refused(self):
        with tempfile.TemporaryDirectory() as empty:
            result = subprocess.run([sys.executable, SCRIPT, empty, "--apps", "lammps"],
                                    capture_output=True, text=True, timeout=60)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("rocprof-mpi is missing", result.stderr)

    def test_an_application_not_installed_is_named_with_its_package(self):
        result = subprocess.run([sys.executable, SCRIPT, BUILD, "--apps", "lammps"],
                                capture_output=True, text=True, timeout=60,
                                env=dict(os.environ, PATH="/nonexistent"))
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("lmp is not installed (Debian package lammps", result.stderr)

    def test_a_failing_run_stops_the_benchmark_with_its_output(self):
        result = bench("--apps", "lammps", "--pairs", "1", "--ranks", "2", "--lammps-steps", "-5")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("failed", result.stderr)
        self.assertIn("ERROR", result.stderr)  # LAMMPS's own words on the bad run length


if __name__ == "__main__":
    unittest.main()
