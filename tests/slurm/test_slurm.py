"""rocprof-mpi under a real local Slurm (slurmctld and slurmd started by the test): srun with
4 ranks, each job script of jobscripts/ submitted with sbatch (GPU options dropped: no GPU
here), and mpirun inside an allocation, where every process sees SLURM_PROCID=0."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import h5py
import hdf5plugin  # noqa: F401

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from local_slurm import LocalSlurm  # noqa: E402

LAUNCHER = os.environ["ROCPROF_TEST_LAUNCHER"]
MPI_APP = os.environ["ROCPROF_TEST_MPI_APP"]
JACOBI = os.environ["ROCPROF_TEST_JACOBI"]
PLUGIN_DIR = os.environ["ROCPROF_TEST_PLUGIN_DIR"]
JOBSCRIPTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "jobscripts")
h5py.h5pl.prepend(PLUGIN_DIR.encode())


class SlurmTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if shutil.which("slurmctld") is None:
            raise unittest.SkipTest("Slurm is not installed (scripts/install-deps.sh installs it)")
        cls.slurm = LocalSlurm()
        cls.slurm.__enter__()
        cls.slurm.env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        for name in [k for k in cls.slurm.env if k.startswith("ROCPROF_MPI_")]:
            del cls.slurm.env[name]

    @classmethod
    def tearDownClass(cls):
        cls.slurm.__exit__(None, None, None)

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="slurm_test_")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def check_rank_files(self, directory, ranks, job_id=None):
        self.assertEqual(sorted(os.listdir(directory)), sorted(f"{r}.h5" for r in ranks))
        for rank in ranks:
            with h5py.File(os.path.join(directory, f"{rank}.h5"), "r") as f:
                self.assertEqual(int(f.attrs["rank"]), rank)
                self.assertEqual(int(f.attrs["complete"]), 1)
                self.assertGreater(f["mpi_calls"]["begin_ns"].shape[0], 10)
                if job_id is not None:
                    self.assertEqual(f.attrs["job_id"], job_id)

    def sbatch(self, script, *options, env=None):
        environment = dict(self.slurm.env, ROCPROF_MPI=LAUNCHER, APP=JACOBI)
        environment.update(env or {})
        result = subprocess.run(["sbatch", "--wait", "--chdir", self.dir, *options, script],
                                env=environment, capture_output=True, text=True, timeout=300)
        match = re.search(r"Submitted batch job (\d+)", result.stdout)
        self.assertIsNotNone(match, result.stdout + result.stderr)
        return result, match.group(1)

    def job_output(self, pattern):
        names = [n for n in os.listdir(self.dir) if re.fullmatch(pattern, n)]
        self.assertEqual(len(names), 1, os.listdir(self.dir))
        with open(os.path.join(self.dir, names[0])) as f:
            return f.read()

    def assert_job_said(self, text, pattern):
        """text is in the job's output; if not, the daemons' logs say why the step failed."""
        output = self.job_output(pattern)
        if text not in output:
            self.fail(f"{text!r} not in the job's output:\n{output}\n{self.slurm.log_tails()}")
        return output

    def test_srun_four_ranks(self):
        result = self.slurm.run("srun", "-n", "4", "--mpi=pmix", "--immediate=60",
                                "--chdir", self.dir, LAUNCHER, "--mpi-trace", "--marker-trace",
                                "-d", "out", "--", MPI_APP, "p2p", timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "p2p done\n")
        self.assertEqual(result.stderr.count("rocprof-merge out"), 1)
        self.check_rank_files(os.path.join(self.dir, "out"), range(4))

    def test_single_node_job_script(self):
        result, job = self.sbatch(os.path.join(JOBSCRIPTS, "single_node.sbatch"))
        self.assertEqual(result.returncode, 0, result.stderr)
        output = self.assert_job_said("jacobi: 4 ranks", r"rocprof-mpi-single-\d+\.out")
        self.assertIn(f"rocprof-merge traces/{job}", output)
        self.check_rank_files(os.path.join(self.dir, "traces", job), range(4), job_id=job)

    def test_multi_node_gpu_job_script_without_its_gpu_options(self):
        script = os.path.join(self.dir, "multi_node_gpu.sbatch")
        with open(os.path.join(JOBSCRIPTS, "multi_node_gpu.sbatch")) as source:
            lines = [line for line in source if "--gpus-per-task" not in line and "--gpu-bind" not in line]
        text = "".join(lines).replace("--nodes=2", "--nodes=1").replace(
            "--ntasks-per-node=8", "--ntasks-per-node=4").replace("--cpus-per-task=7", "--cpus-per-task=2")
        with open(script, "w") as f:
            f.write(text)
        result, job = self.sbatch(script, env={"APP": f"{JACOBI} 128 50"})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assert_job_said("jacobi: 4 ranks, 128x128", r"rocprof-mpi-gpu-\d+\.out")
        self.check_rank_files(os.path.join(self.dir, "traces", job), range(4), job_id=job)

    def test_subset_job_script(self):
        result, job = self.sbatch(os.path.join(JOBSCRIPTS, "subset_ranks.sbatch"),
                                  env={"RANKS": "0,4-7"})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assert_job_said("jacobi: 8 ranks", r"rocprof-mpi-subset-\d+\.out")
        self.check_rank_files(os.path.join(self.dir, "traces", job), [0, 4, 5, 6, 7])

    def test_merge_job_script_after_a_traced_job(self):
        traced, job = self.sbatch(os.path.join(JOBSCRIPTS, "single_node.sbatch"),
                                  env={"APP": f"{JACOBI} 128 30"})
        self.assertEqual(traced.returncode, 0, traced.stderr)
        merge = os.path.join(os.path.dirname(LAUNCHER), "rocprof-merge")
        result, _ = self.sbatch(os.path.join(JOBSCRIPTS, "merge.sbatch"),
                                env={"TRACE": f"traces/{job}", "ROCPROF_MERGE": merge})
        self.assertEqual(result.returncode, 0, result.stderr)
        output = self.job_output(r"rocprof-mpi-merge-\d+\.out")
        self.assertIn(f"4 ranks", output)
        self.assertTrue(os.path.exists(os.path.join(self.dir, "traces", f"{job}.pftrace")))
        # And in parallel: srun -n 2 -c 2 rocprof-merge, to a Perfetto trace of its own. The
        # script passes -c on to srun, so neither merge process is confined to one CPU (it
        # would say so).
        result, merge_job = self.sbatch(os.path.join(JOBSCRIPTS, "merge.sbatch"),
                                        "-n", "2", "-c", "2",
                                        env={"TRACE": f"traces/{job}", "ROCPROF_MERGE": merge,
                                             "OUTPUT": f"traces/{job}-parallel.pftrace"})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.dir, "traces", f"{job}-parallel.pftrace")))
        self.assertNotIn("may run on 1 CPU only",
                         self.job_output(rf"rocprof-mpi-merge-{merge_job}\.out"))

    def test_merge_job_script_says_what_is_missing(self):
        # Without rocprof-merge where it is looked for, the script fails clearly.
        result, _ = self.sbatch(os.path.join(JOBSCRIPTS, "merge.sbatch"),
                                env={"TRACE": "traces/none", "ROCPROF_MERGE": "rocprof-merge-missing"})
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("rocprof-merge-missing not found", self.job_output(r"rocprof-mpi-merge-\d+\.out"))

    def test_readme_main_job_goes_through_srun_when_slurm_answers(self):
        root = os.path.dirname(JOBSCRIPTS)
        env = dict(self.slurm.env, ROCPROF_DEMO_SKIP_BUILD="1",
                   ROCPROF_BUILD_DIR=os.path.dirname(os.path.dirname(LAUNCHER)),
                   ROCPROF_DEMO_DIR=os.path.join(self.dir, "demo"))
        result = subprocess.run(["bash", os.path.join(root, "scripts", "demo.sh")], env=env,
                                capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("== srun -n 4 rocprof-mpi", result.stdout)
        self.assertIn("rocprof-merge: 4 ranks", result.stdout)
        self.assertIn("halo exchange", result.stdout)
        self.assertIn("Timeline: ", result.stdout)

    def test_mpirun_inside_an_allocation(self):
        # Every process sees SLURM_PROCID=0 here: the rank must come from Open MPI's variables.
        script = os.path.join(self.dir, "mpirun.sbatch")
        with open(script, "w") as f:
            f.write("#!/bin/bash\n#SBATCH --ntasks=4\n#SBATCH --output=mpirun-%j.out\n"
                    f"mpirun --oversubscribe -np 4 {LAUNCHER} --mpi-trace -d traces/%job% -- {MPI_APP} p2p\n")
        result, job = self.sbatch(script)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("p2p done", self.job_output(r"mpirun-\d+\.out"))
        self.check_rank_files(os.path.join(self.dir, "traces", job), range(4), job_id=job)


if __name__ == "__main__":
    unittest.main(verbosity=2)
