"""The rocprof-mpi launcher: every option error (exit 2 before anything runs), help and
version, the resolved configuration, byte-for-byte argument pass-through, exit codes and
signals of the application, a program without MPI, and mpirun with 4 ranks (all ranks, and
a subset with --mpi-ranks while the others still take part in the collective clock work)."""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import unittest

import h5py
import hdf5plugin  # noqa: F401

LAUNCHER = os.environ["ROCPROF_TEST_LAUNCHER"]
APP = os.environ["ROCPROF_TEST_APP"]
MPI_APP = os.environ["ROCPROF_TEST_MPI_APP"]
PLUGIN_DIR = os.environ["ROCPROF_TEST_PLUGIN_DIR"]
h5py.h5pl.prepend(PLUGIN_DIR.encode())


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ROCPROF_MPI_", "OMPI_COMM", "PMIX_", "SLURM_", "LD_PRELOAD"))}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.update(extra)
    return env


class LauncherTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="launcher_test_")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def launch(self, *args, **kwargs):
        return subprocess.run([LAUNCHER, *map(str, args)], env=clean_env(), cwd=self.dir,
                              capture_output=True, text=True, timeout=120, **kwargs)

    def test_option_errors_exit_2_before_anything_runs(self):
        marker = os.path.join(self.dir, "ran")
        app = ["--", "/usr/bin/touch", marker]
        os.environ["ROCPROF_TEST_ESCAPE"] = "../../escaped"
        os.environ.pop("ROCPROF_TEST_UNSET", None)
        cases = [
            (["--bogus", *app], "unknown option '--bogus'"),
            (["-o", "%rnak%.h5", *app], "unknown placeholder '%rnak%'"),
            (["-d", "out-%rank", *app], "unterminated placeholder"),
            (["-o", "a/b.h5", *app], "must be a file name"),
            (["--compression", "lz4", *app], "unknown compression 'lz4'"),
            (["--flush-interval", "soon", *app], "--flush-interval 'soon'"),
            (["--clock-sync-interval", "often", *app], "--clock-sync-interval 'often'"),
            (["--mpi-ranks", "3-1", *app], "'3-1' in '3-1' is not a rank"),
            (["--mpi-exclude", "MPI_Comm rank", *app], "'MPI_Comm rank' is not an MPI function"),
            (["--mpi-exclude", "MPI_Send,,MPI_Recv", *app], "has an empty item"),
            (["--mpi-exclude", "@no-such-filter", *app], "cannot read the filter file"),
            (["--marker-trace", "--mpi-exclude", "MPI_Send", *app], "needs MPI tracing"),
            (["--mpi-trace"], "no '--' before the application"),
            (["--mpi-trace", "--"], "no application given"),
            (["--mpi-trace", "./app"], "'./app' is not an option"),
            (["--", "mpirun", "-np", "2", "./app"], "'mpirun' is a job launcher"),
            (["--", "srun", "./app"], "'srun' is a job launcher"),
            (["--output-directory"], "--output-directory"),
            (["-o", "", *app], "--output-file is empty"),
            (["-d", "", *app], "--output-directory is empty"),
            (["-d", "od", "-o", "%env{ROCPROF_TEST_ESCAPE}%.h5", *app], "has a '/'"),
            (["-d", "od/%env{ROCPROF_TEST_UNSET}%/x", *app], "may not make a path component"),
        ]
        for args, expected in cases:
            with self.subTest(args=args):
                result = self.launch(*args)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(expected, result.stderr)
                self.assertTrue(result.stderr.startswith("rocprof-mpi: "), result.stderr)
                self.assertEqual(result.stdout, "")
                self.assertFalse(os.path.exists(marker))
        self.assertEqual(os.listdir(self.dir), [])

    def test_list_counters_says_what_each_device_offers(self):
        listed = self.launch("--list-counters")
        self.assertEqual(listed.returncode, 0, listed.stderr)
        self.assertTrue(listed.stdout.startswith("host ("), listed.stdout)
        for counter in ("CPU_UTIL", "HOST_MEM_USED", "HOST_MEM_TOTAL", "PROCESS_RSS"):
            self.assertRegex(listed.stdout, rf"\n  {counter} +\S+ +\S")
        # Each GPU NVML sees has a section; without any, one line says why.
        nvidia = shutil.which("nvidia-smi") is not None and subprocess.run(
            ["nvidia-smi", "-L"], capture_output=True).returncode == 0
        if nvidia:
            self.assertRegex(listed.stdout, r"\nGPU 0 \(.*\):\n  GPU_UTIL ")
        else:
            self.assertRegex(listed.stdout, r"\nGPUs: none to sample: .+\n$")
            # A ROCm SMI library named by the setting that cannot be used says why.
            for library, why in (("/nonexistent/librocm_smi64.so.1", "cannot be loaded"),
                                 ("/lib/x86_64-linux-gnu/libz.so.1",
                                  "lacks a ROCm SMI function")):
                named = subprocess.run([LAUNCHER, "--list-counters"], cwd=self.dir,
                                       env=dict(clean_env(), ROCPROF_MPI_ROCM_SMI_LIBRARY=library),
                                       capture_output=True, text=True, timeout=120)
                self.assertEqual(named.returncode, 0, named.stderr)
                self.assertIn(f"{library} {why}", named.stdout)
        self.assertIn("--list-counters", self.launch("--help").stdout)

    def test_help_version_and_print_config(self):
        help_ = self.launch("--help")
        self.assertEqual(help_.returncode, 0)
        for option in ("--hip-trace", "--hsa-trace", "--kernel-trace", "--memory-copy-trace",
                       "--marker-trace", "--mpi-trace", "--sys-trace", "--output-directory",
                       "--output-file", "--mpi-ranks", "--compression", "--flush-interval",
                       "--clock-sync-interval", "--cuda-trace", "--cuda-graph-trace", "--helper-cpus",
                       "--print-config", "--mpi-exclude", "%env{NAME}%"):
            self.assertIn(option, help_.stdout)
        # One usage line, with the application after "--".
        self.assertEqual(help_.stdout.count("Usage:"), 1)
        self.assertIn("rocprof-mpi [options] -- ./app [args]", help_.stdout)
        version = self.launch("--version")
        self.assertEqual((version.returncode, version.stdout), (0, "rocprof-mpi 0.1.0\n"))
        config = self.launch("--print-config", "--marker-trace", "--mpi-trace", "--mpi-ranks",
                             "0,4-7", "-d", "trace-%job%", "--", "./app", "a b")
        self.assertEqual(config.returncode, 0, config.stderr)
        lines = dict(line.split("=", 1) for line in config.stdout.splitlines())
        self.assertEqual(lines["ROCPROF_MPI_DOMAINS"], "roctx,mpi")
        self.assertEqual(lines["ROCPROF_MPI_RANKS"], "0,4-7")
        self.assertEqual(lines["ROCPROF_MPI_OUTPUT_DIR"], "trace-%job%")
        self.assertEqual(lines["ROCPROF_MPI_HELPER_CPUS"], "all")
        # The recorder first, so that its interposed functions come before the C library's.
        preloaded = [os.path.basename(path) for path in lines["LD_PRELOAD"].split(":")]
        self.assertEqual(preloaded, ["librocprof-mpi.so", "librocprof-mpi-pmpi.so"])
        self.assertEqual(lines["command"], "'./app' 'a b'")
        marker_only = dict(line.split("=", 1) for line in
                           self.launch("--print-config", "--marker-trace", "--", "x").stdout.splitlines())
        self.assertTrue(marker_only["LD_PRELOAD"].endswith("/librocprof-mpi.so"))
        # --cuda-trace names the CUDA domain whatever the node has; alone, it is the only one.
        for args, domains in ((["--cuda-trace"], "cuda"),
                              (["--marker-trace", "--cuda-trace"], "roctx,cuda")):
            cuda = dict(line.split("=", 1) for line in
                        self.launch("--print-config", *args, "--", "x").stdout.splitlines())
            self.assertEqual(cuda["ROCPROF_MPI_DOMAINS"], domains)
            self.assertEqual(cuda["ROCPROF_MPI_CUDA_GRAPH_TRACE"], "node")
        self.assertEqual(marker_only["ROCPROF_MPI_DOMAINS"], "roctx")
        self.assertNotIn("ROCPROF_MPI_CUDA_GRAPH_TRACE", marker_only)
        # CUDA graphs: node by node (default) or one record per launch; nothing else.
        graphs = dict(line.split("=", 1) for line in self.launch(
            "--print-config", "--cuda-trace", "--cuda-graph-trace", "graph", "--", "x").stdout.splitlines())
        self.assertEqual(graphs["ROCPROF_MPI_CUDA_GRAPH_TRACE"], "graph")
        rank = dict(line.split("=", 1) for line in self.launch(
            "--print-config", "--helper-cpus", "rank", "--", "x").stdout.splitlines())
        self.assertEqual(rank["ROCPROF_MPI_HELPER_CPUS"], "rank")
        self.assertEqual(self.launch("--helper-cpus", "idle", "--", "x").returncode, 2)
        wrong = self.launch("--cuda-trace", "--cuda-graph-trace", "kernels", "--", "x")
        self.assertEqual(wrong.returncode, 2)
        self.assertIn("--cuda-graph-trace", wrong.stderr)
        self.assertIn("kernels", wrong.stderr)
        self.assertEqual(os.listdir(self.dir), [])  # nothing ran

    def test_arguments_pass_through_byte_for_byte(self):
        arguments = ["a b", '"quoted"', "it's", "ünïcode ✓", "", "$HOME", "*", "--", "-x", "\\n"]
        result = self.launch("--marker-trace", "--", "/usr/bin/printf", "[%s]\\n", *arguments)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "".join(f"[{a}]\n" for a in arguments))

    def test_exit_codes_and_signals_are_the_applications(self):
        for args, expected in ((["exit", 10, 0], 0), (["exit", 10, 7], 7),
                               (["raise", 10, int(signal.SIGTERM)], -signal.SIGTERM),
                               (["segv", 10], -signal.SIGSEGV)):
            with self.subTest(args=args):
                result = self.launch("--marker-trace", "--", APP, *args)
                self.assertEqual(result.returncode, expected, result.stderr)
        missing = self.launch("--", os.path.join(self.dir, "nowhere"))
        self.assertEqual(missing.returncode, 127)
        self.assertIn("cannot run", missing.stderr)

    def test_a_program_without_mpi(self):
        result = self.launch("--marker-trace", "-d", "trace", "--", APP, "exit", 500, 0)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "app done\n")
        files = os.listdir(os.path.join(self.dir, "trace"))
        self.assertEqual(len(files), 1)
        self.assertIn("rocprof-merge trace -o trace.pftrace", result.stderr)
        with h5py.File(os.path.join(self.dir, "trace", files[0]), "r") as f:
            self.assertEqual(f["markers"]["op"].shape[0], 1500)

    def test_hostname_placeholder_names_the_node(self):
        # The launcher checks placeholders before it knows each node's name.
        result = self.launch("--marker-trace", "-d", "trace/%hostname%", "--", APP, "exit", 5, 0)
        self.assertEqual(result.returncode, 0, result.stderr)
        host = socket.gethostname()
        self.assertEqual(len(os.listdir(os.path.join(self.dir, "trace", host))), 1)

    def test_an_mpi_program_started_without_mpirun(self):
        # A singleton: Open MPI forks and execs an orted, which inherits the preload.
        jacobi = os.path.join(os.path.dirname(MPI_APP), "jacobi_mpi")
        merge = os.path.join(os.path.dirname(LAUNCHER), "rocprof-merge")
        result = subprocess.run([LAUNCHER, "--mpi-trace", "--marker-trace", "-d", "trace", "--",
                                 jacobi], env=clean_env(), cwd=self.dir, capture_output=True,
                                text=True, timeout=180)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stderr.count("merge them with"), 1, result.stderr)
        files = os.listdir(os.path.join(self.dir, "trace"))
        self.assertEqual(len(files), 1, files)
        with h5py.File(os.path.join(self.dir, "trace", files[0]), "r") as f:
            self.assertEqual((int(f.attrs["rank"]), int(f.attrs["parent_pid"])), (0, 0))
        merged = subprocess.run([merge, "trace", "-o", "trace.pftrace"], env=clean_env(),
                                cwd=self.dir, capture_output=True, text=True, timeout=180)
        self.assertEqual(merged.returncode, 0, merged.stderr)
        self.assertIn("1 ranks", merged.stderr + merged.stdout)

    def mpirun(self, *launcher_args, scenario="p2p"):
        return subprocess.run(["mpirun", "--oversubscribe", "-np", "4", LAUNCHER, *launcher_args,
                               "--", MPI_APP, scenario], env=clean_env(), cwd=self.dir,
                              capture_output=True, text=True, timeout=180)

    def test_mpirun_four_ranks_under_the_launcher(self):
        result = self.mpirun("--mpi-trace", "--marker-trace", "-d", "out-%size%")
        self.assertEqual(result.returncode, 0, result.stderr)
        out = os.path.join(self.dir, "out-4")
        self.assertEqual(sorted(os.listdir(out)), ["0.h5", "1.h5", "2.h5", "3.h5"])
        self.assertEqual(result.stderr.count("rocprof-merge"), 1)  # rank 0 alone says it
        for rank in range(4):
            with h5py.File(os.path.join(out, f"{rank}.h5"), "r") as f:
                self.assertEqual(int(f.attrs["rank"]), rank)
                self.assertGreater(f["mpi_calls"]["begin_ns"].shape[0], 20)
                self.assertEqual(int(f.attrs["complete"]), 1)

    def test_mpi_ranks_traces_a_subset_while_the_others_still_synchronise(self):
        result = self.mpirun("--mpi-trace", "--mpi-ranks", "1,3", "-d", "out")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(sorted(os.listdir(os.path.join(self.dir, "out"))), ["1.h5", "3.h5"])
        with h5py.File(os.path.join(self.dir, "out", "3.h5"), "r") as f:
            self.assertEqual(f["clock_samples"]["offset_ns"].shape[0], 2)

    def test_tracing_again_into_the_same_directory_says_what_to_do(self):
        first = self.mpirun("--mpi-trace", "-d", "out")
        self.assertEqual(first.returncode, 0, first.stderr)
        again = self.mpirun("--mpi-trace", "-d", "out")
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(sorted(os.listdir(os.path.join(self.dir, "out"))),
                         sorted([f"{r}.h5" for r in range(4)] + [f"{r}.1.h5" for r in range(4)]))
        # Each rank says its file went beside the old one and why the merge would refuse;
        # rank 0's hint says to move this run's files, not to merge the directory.
        self.assertEqual(again.stderr.count("a file of an earlier run in this directory"), 4)
        self.assertEqual(again.stderr.count("rocprof-merge refuses two runs in one directory"), 4)
        self.assertIn("beside files that were there before (this rank's is 0.1.h5)", again.stderr)
        self.assertNotIn("merge them with: rocprof-merge out", again.stderr)

    def test_mpi_exclude_leaves_those_calls_out_and_keeps_the_bookkeeping(self):
        def calls_and_sends(out):
            names, sends, comms = set(), [], set()
            for rank in range(4):
                with h5py.File(os.path.join(self.dir, out, f"{rank}.h5"), "r") as f:
                    strings = f["strings"].asstr()[:]
                    rows = f["mpi_calls"][:]
                    comms |= {int(c) for c in f["communicators"]["communicator"][:]}
                for row in rows:
                    name = strings[row["function"]]
                    names.add(name)
                    if name == "MPI_Send":
                        sends.append((int(row["peer"]), int(row["communicator"])))
            return names, sorted(sends), comms

        plain = self.mpirun("--mpi-trace", "-d", "all", scenario="comms")
        self.assertEqual(plain.returncode, 0, plain.stderr)
        with open(os.path.join(self.dir, "filter"), "w") as f:
            f.write("# the communicator calls\nMPI_Comm_*   # split, dup, rank, free\n\n"
                    "MPI_No_such_call\n")
        result = self.mpirun("--mpi-trace", "--mpi-exclude", "@filter", "-d", "some",
                             scenario="comms")
        self.assertEqual(result.returncode, 0, result.stderr)
        # One rank says what matched nothing.
        self.assertEqual(result.stderr.count("MPI_No_such_call matches no MPI function"), 1)
        all_names, all_sends, all_comms = calls_and_sends("all")
        names, sends, comms = calls_and_sends("some")
        self.assertTrue({"MPI_Comm_split", "MPI_Comm_dup", "MPI_Comm_free"} <= all_names)
        self.assertEqual({n for n in names if n.startswith("MPI_Comm_")}, set())
        self.assertEqual(names, {n for n in all_names if not n.startswith("MPI_Comm_")})
        # The calls made on the communicators they created still say which (job-wide ids)
        # and to whom (world ranks), as without the filter.
        self.assertEqual(sends, all_sends)
        self.assertEqual(comms, all_comms)


if __name__ == "__main__":
    unittest.main(verbosity=2)
