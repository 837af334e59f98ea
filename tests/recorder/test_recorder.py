"""System tests of the recorder (librocprof-mpi.so) under LD_PRELOAD: every way a traced
process can end, and every output problem. Files are read back with h5py (Debian's
python3-h5py and python3-hdf5plugin), stock h5dump, and the format module's reader
(rank_file_dump). Run by ctest with the paths of the built programs in the environment."""

import contextlib
import ctypes
import os
import shutil
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import h5py
import hdf5plugin  # noqa: F401  (Debian's: no zstd filter of its own)
import numpy as np

APP = os.environ["ROCPROF_TEST_APP"]
RECORDER = os.environ["ROCPROF_TEST_RECORDER"]
DUMP = os.environ["ROCPROF_TEST_DUMP"]
PLUGIN_DIR = os.environ["ROCPROF_TEST_PLUGIN_DIR"]
LIB_DIR = os.environ["ROCPROF_TEST_LIB_DIR"]
FOREIGN_HDF5 = os.environ["ROCPROF_TEST_FOREIGN_HDF5"]
LAUNCHER = os.environ["ROCPROF_TEST_LAUNCHER"]
# Our zstd filter plugin (id 32015), as the README tells users to load it.
h5py.h5pl.prepend(PLUGIN_DIR.encode())
N = 2000  # iterations: 3 markers, 1 MPI call, 1 counter sample each


class RecorderBase(unittest.TestCase):
    preload = RECORDER

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="recorder_test_")
        self.out = os.path.join(self.tmp.name, "out")

    def tearDown(self):
        self.tmp.cleanup()

    def env(self, **extra):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ROCPROF_MPI_", "OMPI_", "PMIX_", "SLURM_"))}
        env.update(LD_PRELOAD=self.preload, ROCPROF_MPI_OUTPUT_DIR=self.out,
                   LD_LIBRARY_PATH=LIB_DIR)
        env.update(extra)
        return env

    def run_app(self, *args, timeout=60, **env):
        return subprocess.run([APP, *map(str, args)], env=self.env(**env), capture_output=True,
                              text=True, timeout=timeout)

    def only_file(self):
        files = sorted(os.listdir(self.out))
        self.assertEqual(len(files), 1, files)
        return os.path.join(self.out, files[0])

    def counts(self, path):
        with h5py.File(path, "r") as f:
            return {name: f[name].shape[0]
                    for name in ("markers", "mpi_calls", "counter_samples", "clock_samples")}

    def assert_everything(self, path, iterations, complete):
        """The file holds exactly what `iterations` iterations recorded, per h5py and per
        our reader."""
        with h5py.File(path, "r") as f:
            strings = [s.decode() if isinstance(s, bytes) else s for s in f["strings"][:]]
            self.assertEqual(f["markers"]["op"].shape[0], 3 * iterations)
            ops = f["markers"]["op"][:]
            self.assertEqual(int((ops == 1).sum()), iterations)  # pushes
            self.assertEqual(int((ops == 0).sum()), iterations)  # marks
            messages = {strings[i] for i in f["markers"]["message"][:][ops == 0]}
            self.assertEqual(messages, {f"step {i}" for i in range(min(iterations, 10))})
            self.assertEqual(f["mpi_calls"]["begin_ns"].shape[0], iterations)
            functions = {strings[i] for i in f["mpi_calls"]["function"][:]}
            self.assertEqual(functions, {"MPI_Send"} if iterations else set())
            sent = np.sort(f["mpi_calls"]["bytes_sent"][:])
            self.assertTrue(np.array_equal(sent, 8 * np.arange(iterations)))
            self.assertEqual(f["counter_samples"]["value"].shape[0], iterations)
            self.assertEqual(f["clock_samples"]["offset_ns"][:].tolist(), [-7000])
            self.assertEqual(int(f.attrs["complete"]), 1 if complete else 0)
            self.assertEqual(int(f.attrs["records_dropped"]), 0)
            self.assertEqual(f.attrs["format"], "rocprof-mpi rank file")
            self.assertEqual(list(f.attrs["format_version"]), [2, 7])
        dump = subprocess.run([DUMP, path], capture_output=True, text=True)
        self.assertEqual(dump.returncode, 0, dump.stderr)
        self.assertIn(f"markers_read {3 * iterations}\n", dump.stdout)


class ExitPathTest(RecorderBase):
    """docs/RECORDER.md's table of how a process may end, under the recorder alone
    (`--marker-trace`); ExitPathWithMpiLayerTest runs it again as `--mpi-trace` preloads."""

    # ---- normal endings ----

    def test_normal_exit_keeps_exit_code_and_writes_everything(self):
        result = self.run_app("exit", N, 3)
        self.assertEqual(result.returncode, 3)
        self.assertEqual(result.stdout, "app done\n")
        self.assertEqual(result.stderr, "")
        path = self.only_file()
        self.assert_everything(path, N, complete=True)
        with h5py.File(path, "r") as f:
            self.assertEqual(list(f.attrs["command_line"]), [APP, "exit", str(N), "3"])
            self.assertEqual(int(f.attrs["pid"]), int(os.path.basename(path)[3:-3]))
            self.assertEqual(f.attrs["clock"], "CLOCK_BOOTTIME")
            self.assertEqual(f.attrs["compression"], "zstd:1")

    def test_a_short_program_never_waits_for_the_flush_interval(self):
        # The writer thread may start after the program already asked for the file's close
        # (a program that ends at once, or a starved helper thread): that request must wake
        # it, not the next interval's deadline. A lost wake shows as a run of 60 s.
        for attempt in range(25):
            started = time.monotonic()
            result = self.run_app("exit", 0, 0, timeout=30, ROCPROF_MPI_FLUSH_INTERVAL="60s")
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertLess(time.monotonic() - started, 20, f"attempt {attempt}")
            path = self.only_file()
            with h5py.File(path, "r") as f:
                self.assertEqual(int(f.attrs["complete"]), 1)
            os.remove(path)

    def test_exit_from_another_thread(self):
        result = self.run_app("thread-exit", N, 5)
        self.assertEqual(result.returncode, 5)
        path = self.only_file()
        with h5py.File(path, "r") as f:
            self.assertEqual(f["markers"]["op"].shape[0], 4 * 3 * N)
            self.assertEqual(f["mpi_calls"]["begin_ns"].shape[0], 4 * N)
            self.assertEqual(len(set(f["markers"]["thread_id"][:].tolist())), 4)
            self.assertEqual(int(f.attrs["complete"]), 1)

    def test_rank_from_launcher_environment_names_the_file(self):
        result = self.run_app("exit", 10, 0, OMPI_COMM_WORLD_RANK="5", PMIX_RANK="9",
                              SLURM_PROCID="0", OMPI_COMM_WORLD_SIZE="8", SLURM_JOB_ID="777")
        self.assertEqual(result.returncode, 0)
        self.assertEqual(os.listdir(self.out), ["5.h5"])
        with h5py.File(os.path.join(self.out, "5.h5"), "r") as f:
            self.assertEqual((int(f.attrs["rank"]), int(f.attrs["size"])), (5, 8))
            self.assertEqual(f.attrs["job_id"], "777")

    def test_exec_d_children_are_recorded_as_children_or_not_at_all(self):
        result = self.run_app("spawn", 10, ROCPROF_MPI_ANNOUNCE="1", OMPI_COMM_WORLD_RANK="0",
                              OMPI_COMM_WORLD_SIZE="1")
        self.assertEqual((result.returncode, result.stdout), (0, "app done\nspawned\n"))
        # One announcement (the rank's own process), nothing from its children.
        self.assertEqual(result.stderr.count("trace files are in"), 1, result.stderr)
        self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
        # /bin/true recorded nothing: no file. The traced child has its own, marked as such.
        self.assertEqual(sorted(os.listdir(self.out)), ["0.1.h5", "0.h5"])
        with h5py.File(os.path.join(self.out, "0.h5"), "r") as parent, \
                h5py.File(os.path.join(self.out, "0.1.h5"), "r") as child:
            self.assertEqual(int(parent.attrs["parent_pid"]), 0)
            self.assertEqual(int(child.attrs["parent_pid"]), int(parent.attrs["pid"]))
            self.assertEqual(child["markers"]["op"].shape[0], 3 * 10)
            self.assertEqual(int(child.attrs["complete"]), 1)
        # The merge takes the rank's own file and says which one it left out.
        merge = os.path.join(os.path.dirname(LAUNCHER), "rocprof-merge")
        merged = subprocess.run([merge, self.out, "-o", os.path.join(self.tmp.name, "t.json")],
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(merged.returncode, 0, merged.stderr)
        self.assertIn("left out " + os.path.join(self.out, "0.1.h5") + ", a program that process",
                      merged.stderr)
        self.assertIn("rocprof-merge: 1 ranks", merged.stderr + merged.stdout)

    def test_a_wrapper_that_records_nothing_leaves_the_rank_to_its_program(self):
        result = self.run_app("wrap", 10, OMPI_COMM_WORLD_RANK="0", OMPI_COMM_WORLD_SIZE="1")
        self.assertEqual((result.returncode, result.stdout), (0, "app done\nwrapped\n"))
        self.assertEqual(os.listdir(self.out), ["0.1.h5"])
        with h5py.File(os.path.join(self.out, "0.1.h5"), "r") as f:
            self.assertNotEqual(int(f.attrs["parent_pid"]), 0)
            self.assertEqual(f["markers"]["op"].shape[0], 3 * 10)
        # With no file of the rank's own, the merge takes its program's.
        merge = os.path.join(os.path.dirname(LAUNCHER), "rocprof-merge")
        merged = subprocess.run([merge, self.out, "-o", os.path.join(self.tmp.name, "t.json")],
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(merged.returncode, 0, merged.stderr)
        self.assertNotIn("left out", merged.stderr)

    def test_a_forked_child_that_records_stays_small(self):
        # It has no writer: its records are dropped once the buffer it inherited is full,
        # rather than held in memory up to the pool's budget.
        result = self.run_app("fork-record", 2_000_000)
        self.assertEqual(result.returncode, 0, result.stderr)
        grew = int(re.search(r"child grew (-?\d+) kB", result.stdout).group(1))
        self.assertLess(grew, 32 * 1024, result.stdout)
        self.assert_everything(self.only_file(), 10, complete=True)

    def test_device_counters_that_cannot_be_sampled_are_said(self):
        unknown = self.run_app("exit", 5, 0, ROCPROF_MPI_DEVICE_COUNTERS="CPU_UTIL,BOGUS")
        self.assertEqual((unknown.returncode, unknown.stdout), (0, "app done\n"))
        self.assertEqual(unknown.stderr.count("\n"), 1, unknown.stderr)
        self.assertIn("names BOGUS, which no device offers", unknown.stderr)
        self.assertIn("tracing is off", unknown.stderr)
        self.assertFalse(os.path.exists(self.out) and os.listdir(self.out))
        # GPU counters where no GPU can be read (this machine), alone (nothing is sampled)
        # or beside a host counter: said once, the rest recorded.
        for counters in ("GPU_UTIL", "GPU_UTIL,CPU_UTIL"):
            with self.subTest(counters=counters):
                shutil.rmtree(self.out, ignore_errors=True)
                gpu = self.run_app("exit", 5, 0, ROCPROF_MPI_DEVICE_COUNTERS=counters)
                self.assertEqual((gpu.returncode, gpu.stdout), (0, "app done\n"))
                self.assertEqual(gpu.stderr.count("\n"), 1, gpu.stderr)
                self.assertIn("GPU counters are not sampled", gpu.stderr)
                with h5py.File(self.only_file(), "r") as f:
                    self.assertEqual(f["markers"]["op"].shape[0], 3 * 5)
                    self.assertEqual(int(f.attrs["complete"]), 1)

    def test_shells_of_system_and_popen_leave_no_file(self):
        # dash ends with _exit: without a close there, each shell left a file of its own.
        result = self.run_app("shells", 10)
        self.assertEqual((result.returncode, result.stdout, result.stderr),
                         (0, "shells done\n", ""))
        self.assert_everything(self.only_file(), 10, complete=True)

    def test_a_wrapper_that_execs_the_program_leaves_it_the_rank(self):
        # `exec ./app` in a wrapper script: the same process, another program, no atexit.
        result = self.run_app("exec-wrap", 10, ROCPROF_MPI_ANNOUNCE="1",
                              OMPI_COMM_WORLD_RANK="0", OMPI_COMM_WORLD_SIZE="1")
        self.assertEqual((result.returncode, result.stdout), (0, "app done\n"))
        self.assertEqual(result.stderr.count("trace files are in"), 1, result.stderr)
        self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
        self.assertEqual(os.listdir(self.out), ["0.h5"])
        self.assert_everything(os.path.join(self.out, "0.h5"), 10, complete=True)
        with h5py.File(os.path.join(self.out, "0.h5"), "r") as f:
            self.assertEqual(int(f.attrs["parent_pid"]), 0)

    def test_a_program_that_records_then_execs_keeps_both_images(self):
        result = self.run_app("exec-after", 10, OMPI_COMM_WORLD_RANK="0",
                              OMPI_COMM_WORLD_SIZE="1")
        self.assertEqual((result.returncode, result.stdout, result.stderr), (0, "app done\n", ""))
        self.assertEqual(sorted(os.listdir(self.out)), ["0.1.h5", "0.h5"])
        first, second = (os.path.join(self.out, name) for name in ("0.h5", "0.1.h5"))
        self.assert_everything(first, 10, complete=True)
        with h5py.File(first, "r") as f, h5py.File(second, "r") as g:
            self.assertEqual(int(f.attrs["parent_pid"]), 0)
            # The continuation names its own process as the one it came from.
            self.assertEqual(int(g.attrs["parent_pid"]), int(f.attrs["pid"]))
            self.assertEqual(int(g.attrs["pid"]), int(f.attrs["pid"]))
            self.assertEqual(g["markers"]["op"].shape[0], 3 * 10)
        merge = os.path.join(os.path.dirname(LAUNCHER), "rocprof-merge")
        merged = subprocess.run([merge, self.out, "-o", os.path.join(self.tmp.name, "t.json")],
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(merged.returncode, 0, merged.stderr)
        self.assertIn("left out " + second, merged.stderr)

    def test_forked_child_never_touches_the_parents_file(self):
        result = self.run_app("fork", N, 0, ROCPROF_MPI_FLUSH_INTERVAL="20ms")
        self.assertEqual(result.returncode, 0)
        self.assertEqual(result.stdout, "child exit 0\n")
        self.assertEqual(result.stderr, "")
        with h5py.File(self.only_file(), "r") as f:
            self.assertEqual(f["markers"]["op"].shape[0], 3 * 3 * N)  # the parent's 3 N iterations
            self.assertEqual(len(set(f["markers"]["thread_id"][:].tolist())), 1)
            self.assertEqual(int(f.attrs["complete"]), 1)

    def test_forked_child_exit_then_sigkill_leaves_a_readable_file(self):
        # The child's HDF5 shutdown would write a stale superblock; then no flush repairs it.
        result = self.run_app("fork", N, int(signal.SIGKILL), ROCPROF_MPI_FLUSH_INTERVAL="20ms")
        self.assertEqual(result.returncode, -int(signal.SIGKILL))
        with h5py.File(self.only_file(), "r") as f:
            self.assertGreaterEqual(f["markers"]["op"].shape[0], 3 * 2 * N)
        dump = subprocess.run([DUMP, self.only_file()], capture_output=True, text=True)
        self.assertEqual(dump.returncode, 0, dump.stderr)

    # ---- signals ----

    def test_default_action_signals_end_the_same_way_with_a_complete_file(self):
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT, signal.SIGABRT,
                    signal.SIGSEGV, signal.SIGBUS, signal.SIGFPE, signal.SIGILL):
            with self.subTest(signal=sig.name):
                self.tearDown()
                self.setUp()
                result = self.run_app("raise", N, int(sig))
                self.assertEqual(result.returncode, -int(sig), result.stderr)
                self.assert_everything(self.only_file(), N, complete=True)

    def test_real_segfault_and_abort(self):
        for mode, sig in (("segv", signal.SIGSEGV), ("abort", signal.SIGABRT)):
            with self.subTest(mode=mode):
                self.tearDown()
                self.setUp()
                result = self.run_app(mode, N)
                self.assertEqual(result.returncode, -int(sig), result.stderr)
                self.assert_everything(self.only_file(), N, complete=True)

    def test_application_handlers_still_run_and_decide_the_exit(self):
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGSEGV, signal.SIGABRT):
            with self.subTest(signal=sig.name):
                self.tearDown()
                self.setUp()
                result = self.run_app("handled", N, int(sig))
                self.assertEqual(result.stdout, f"app handler {int(sig)}\n")
                self.assertEqual(result.returncode, 42)  # the handler's _exit(42)
                # _exit skips atexit; the recorder closes the file there itself.
                self.assert_everything(self.only_file(), N, complete=True)

    def test_handler_that_returns_lets_the_process_go_on(self):
        result = self.run_app("continue", N, int(signal.SIGTERM))
        self.assertEqual(result.returncode, 0)
        self.assertEqual(result.stdout, "app continued\n")
        with h5py.File(self.only_file(), "r") as f:
            self.assertEqual(f["markers"]["op"].shape[0], 2 * 3 * N)
            self.assertEqual(int(f.attrs["complete"]), 1)

    def test_sigkill_loses_at_most_the_last_flush_interval(self):
        proc = subprocess.Popen([APP, "hang", str(N)], env=self.env(ROCPROF_MPI_FLUSH_INTERVAL="200ms"),
                                stdout=subprocess.PIPE, text=True)
        self.assertEqual(proc.stdout.readline(), f"recorded {N}\n")
        recorded_at = time.monotonic()
        time.sleep(0.7)  # more than three flush intervals
        proc.kill()
        proc.wait()
        killed_at = time.monotonic()
        path = self.only_file()
        # Stock readers open it without repair; our reader too.
        with h5py.File(path, "r") as f:
            markers = f["markers"]["op"].shape[0]
            self.assertEqual(int(f.attrs["complete"]), 0)
        self.assertGreaterEqual(markers, 3 * N)
        # After the first N, the app records one iteration per ~1 ms; the file may miss at
        # most those of the last interval (200 ms) plus the flush itself.
        extra_iterations_run = (killed_at - recorded_at) * 1000
        self.assertLessEqual(markers, 3 * (N + extra_iterations_run + 10))
        dump = subprocess.run([DUMP, path], capture_output=True, text=True)
        self.assertEqual(dump.returncode, 0, dump.stderr)
        h5dump = subprocess.run(["h5dump", "-H", path], capture_output=True, text=True)
        self.assertEqual(h5dump.returncode, 0, h5dump.stderr)

    # ---- descriptors the application closes ----

    def run_closing(self, way, lines=20000):
        """traced_app closes every descriptor above 2 (`way`), then writes `lines` lines into
        mydata.txt, each inside a ROC-TX range."""
        result = subprocess.run([APP, way, str(lines)], env=self.env(), capture_output=True,
                                text=True, timeout=120, cwd=self.tmp.name)
        with open(os.path.join(self.tmp.name, "mydata.txt")) as data:
            self.assertEqual(data.read(), "".join(f"line {i}\n" for i in range(lines)))
        return result

    def test_closing_every_descriptor_leaves_the_trace_file_alone(self):
        for way in ("close-loop", "close-range", "closefrom"):
            with self.subTest(way=way):
                self.tearDown()
                self.setUp()
                result = self.run_closing(way)
                self.assertEqual((result.returncode, result.stdout, result.stderr),
                                 (0, "app done\n", ""))
                with h5py.File(self.only_file(), "r") as f:
                    self.assertEqual(f["markers"]["op"].shape[0], 2 * 20000)
                    self.assertEqual(int(f.attrs["complete"]), 1)

    def test_raw_close_of_the_trace_file_stops_tracing_without_touching_the_app_file(self):
        result = self.run_closing("close-raw")
        self.assertEqual((result.returncode, result.stdout), (0, "app done\n"))
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertIn("closed the trace file's descriptor", lines[0])


class ExitPathWithMpiLayerTest(ExitPathTest):
    """The same endings with the libraries `rocprof-mpi --mpi-trace` preloads."""

    @classmethod
    def setUpClass(cls):
        config = subprocess.run([LAUNCHER, "--print-config", "--mpi-trace", "--", APP],
                                check=True, capture_output=True, text=True).stdout
        cls.preload = dict(line.split("=", 1) for line in config.splitlines())["LD_PRELOAD"]


class RecorderTest(RecorderBase):
    # ---- output problems ----

    def test_missing_output_directory_is_created(self):
        self.out = os.path.join(self.tmp.name, "a", "b", "c")
        result = self.run_app("exit", 10, 0)
        self.assertEqual(result.returncode, 0)
        self.assert_everything(self.only_file(), 10, complete=True)

    def test_unwritable_directory_turns_tracing_off_with_one_message(self):
        # As root every directory is writable; a path through a regular file is not.
        blocker = os.path.join(self.tmp.name, "plain-file")
        open(blocker, "w").close()
        self.out = os.path.join(blocker, "out")
        result = self.run_app("exit", N, 7)
        self.assertEqual(result.returncode, 7)
        self.assertEqual(result.stdout, "app done\n")
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertIn("rocprof-mpi: cannot create the output directory", lines[0])
        self.assertIn("tracing is off", lines[0])

    def test_unwritable_directory_as_an_ordinary_user(self):
        os.chmod(self.tmp.name, 0o755)
        os.makedirs(self.out)
        os.chmod(self.out, 0o755)  # owned by root: nobody may not write here
        # setpriv itself must not be traced: it changes credentials in one thread only, which
        # glibc refuses in any multi-threaded process (the recorder's threads included).
        env = self.env()
        preload = env.pop("LD_PRELOAD")
        # A checkout under a private directory (mktemp -d is 0700) is out of nobody's reach.
        for path in (APP, preload):
            reach = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup",
                                    "--clear-groups", "test", "-r", path], capture_output=True)
            if reach.returncode != 0:
                self.skipTest(f"nobody cannot reach {path} (a parent directory is private)")
        result = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                 "env", f"LD_PRELOAD={preload}", APP, "exit", "100", "4"],
                                env=env, capture_output=True, text=True, timeout=60)
        if "Permission denied" in result.stderr and "setpriv" in result.stderr:
            self.skipTest("cannot run the app as nobody here: " + result.stderr)
        self.assertEqual(result.returncode, 4, result.stderr)
        self.assertEqual(result.stdout, "app done\n")
        self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
        self.assertIn("Permission denied", result.stderr)
        self.assertEqual(os.listdir(self.out), [])

    @contextlib.contextmanager
    def small_device(self, size):
        """The output directory on a tmpfs of `size` (skips where mounting is not allowed)."""
        mount = os.path.join(self.tmp.name, "small")
        os.makedirs(mount)
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", mount],
                              capture_output=True, text=True)
        if done.returncode != 0:
            self.skipTest("cannot mount a tmpfs here: " + done.stderr)
        try:
            self.out = mount
            yield mount
        finally:
            subprocess.run(["umount", mount], check=True)

    def test_disk_full_stops_tracing_and_leaves_a_readable_file(self):
        with self.small_device("6m"):
            result = self.run_app("exit", 200000, 9, ROCPROF_MPI_COMPRESSION="none",
                                  ROCPROF_MPI_FLUSH_INTERVAL="50ms")
            self.assertEqual(result.returncode, 9)
            self.assertEqual(result.stdout, "app done\n")
            lines = result.stderr.splitlines()
            self.assertEqual(len(lines), 1, result.stderr)
            self.assertIn("writing the trace failed", lines[0])
            self.assertIn("no space left", lines[0])
            self.assertIn("tracing is off", lines[0])
            path = self.only_file()
            with h5py.File(path, "r") as f:
                markers = f["markers"]["op"][:]
                self.assertGreater(markers.shape[0], 0)
                self.assertLess(markers.shape[0], 3 * 200000)
            dump = subprocess.run([DUMP, path], capture_output=True, text=True)
            self.assertEqual(dump.returncode, 0, dump.stderr)

    def test_too_little_space_for_the_first_reservation_leaves_no_file(self):
        with self.small_device("2m") as mount:
            result = self.run_app("exit", 100, 4)
            self.assertEqual((result.returncode, result.stdout), (4, "app done\n"))
            lines = result.stderr.splitlines()
            self.assertEqual(len(lines), 1, result.stderr)
            self.assertIn("no space left", lines[0])
            self.assertTrue(lines[0].endswith("tracing is off"), lines[0])
            self.assertEqual(os.listdir(mount), [])

    def test_exit_without_atexit_closes_the_file_and_gives_the_reserved_space_back(self):
        # quick-exit: record, flush, _exit; quick-exit-unflushed: record, _exit at once (an
        # MPI library's fatal error handler): everything is there either way.
        for mode in ("quick-exit", "quick-exit-unflushed"):
            with self.subTest(mode=mode):
                self.tearDown()
                self.setUp()
                result = self.run_app(mode, N, 7)
                self.assertEqual((result.returncode, result.stderr), (7, ""))
                path = self.only_file()
                info = os.stat(path)
                # Allocated blocks past the end would be the 5 MB reservation.
                self.assertLess(info.st_blocks * 512, info.st_size + (1 << 20),
                                (info.st_blocks, info.st_size))
                self.assert_everything(path, N, complete=True)

    def test_a_long_command_line_is_kept_whole(self):
        extra = [f"argument-{i}" for i in range(5000)]
        result = self.run_app("exit", 10, 0, *extra)
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        path = self.only_file()
        with h5py.File(path, "r") as f:
            whole = [a.decode() if isinstance(a, bytes) else a for a in f["command_line"][:]]
            self.assertEqual(whole, [APP, "exit", "10", "0", *extra])
            leading = list(f.attrs["command_line"])
            self.assertEqual(leading, whole[:len(leading)])
            self.assertGreater(len(leading), 0)
            self.assertEqual(int(f.attrs["complete"]), 1)
        dump = subprocess.run([DUMP, path], capture_output=True, text=True)
        self.assertIn(f"arguments {len(extra) + 4}\nlast_argument argument-4999\n", dump.stdout)

    def test_two_processes_with_the_same_path_get_distinct_files(self):
        env = self.env(ROCPROF_MPI_OUTPUT_FILE="same.h5")
        procs = [subprocess.Popen([APP, "exit", str(N), "0"], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(2)]
        outputs = [p.communicate(timeout=60) for p in procs]
        self.assertEqual([p.returncode for p in procs], [0, 0])
        self.assertEqual(sorted(os.listdir(self.out)), ["same.1.h5", "same.h5"])
        messages = [err for _, err in outputs if err]
        self.assertEqual(len(messages), 1, outputs)
        self.assertIn("already exists", messages[0])
        self.assertIn("same.1.h5 instead", messages[0])
        for name in ("same.h5", "same.1.h5"):
            self.assert_everything(os.path.join(self.out, name), N, complete=True)

    def test_bad_settings_are_one_message_and_tracing_off(self):
        cases = {
            "ROCPROF_MPI_COMPRESSION": ("lz4", "unknown compression 'lz4'"),
            "ROCPROF_MPI_FLUSH_INTERVAL": ("soon", "ROCPROF_MPI_FLUSH_INTERVAL='soon'"),
            "ROCPROF_MPI_BUFFER_SIZE": ("12", "ROCPROF_MPI_BUFFER_SIZE='12'"),
            "ROCPROF_MPI_DOMAINS": ("roctx,gpu", "unknown domain 'gpu'"),
            "ROCPROF_MPI_OUTPUT_FILE": ("%rnak%.h5", "unknown placeholder '%rnak%'"),
            "ROCPROF_POOL_MAX_BYTES": ("abc", "ROCPROF_POOL_MAX_BYTES='abc' is not"),
            "ROCPROF_MPI_OUTPUT_DIR": ("", "ROCPROF_MPI_OUTPUT_DIR is empty"),
        }
        for variable, (value, expected) in cases.items():
            with self.subTest(variable=variable):
                result = self.run_app("exit", 10, 6, **{variable: value})
                self.assertEqual(result.returncode, 6)
                self.assertEqual(result.stdout, "app done\n")
                lines = result.stderr.splitlines()
                self.assertEqual(len(lines), 1, result.stderr)
                self.assertIn(expected, lines[0])
                self.assertTrue(lines[0].endswith("tracing is off"), lines[0])
                self.assertFalse(os.path.exists(self.out) and os.listdir(self.out))

    def test_cuda_without_a_driver_is_one_message_and_the_rest_is_recorded(self):
        try:
            ctypes.CDLL("libcuda.so.1")
            self.skipTest("this machine has an NVIDIA driver (the GPU tests cover it)")
        except OSError:
            pass
        result = self.run_app("exit", N, 5, ROCPROF_MPI_DOMAINS="all,cuda")
        self.assertEqual((result.returncode, result.stdout), (5, "app done\n"))
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertIn("CUDA tracing is off: no NVIDIA driver", lines[0])
        self.assert_everything(self.only_file(), N, complete=True)

    def test_a_recorder_not_first_in_ld_preload_says_so_and_records(self):
        pmpi = os.path.join(LIB_DIR, "librocprof-mpi-pmpi.so")
        result = self.run_app("exit", N, 0, LD_PRELOAD=pmpi)
        self.assertEqual(result.returncode, 0)
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertIn("is not first in LD_PRELOAD", lines[0])
        self.assert_everything(self.only_file(), N, complete=True)

    def test_a_placeholder_value_cannot_move_the_file_out_of_its_directory(self):
        result = self.run_app("exit", 10, 0, X="../../escaped",
                              ROCPROF_MPI_OUTPUT_FILE="%env{X}%.h5")
        self.assertEqual((result.returncode, result.stdout), (0, "app done\n"))
        self.assertIn("has a '/'", result.stderr)
        self.assertTrue(result.stderr.strip().endswith("tracing is off"), result.stderr)
        escaped = os.path.join(self.out, "../../escaped.h5")
        self.assertFalse(os.path.exists(escaped))
        self.assertEqual(os.listdir(self.tmp.name), [])

    def test_an_incompatible_hdf5_in_the_process_turns_tracing_off(self):
        for mode, expected in (("1.14", "uses HDF5 1.14.0"), ("unsafe", "without thread safety")):
            with self.subTest(mode=mode):
                result = self.run_app("exit", 100, 3, FOREIGN_HDF5=mode,
                                      LD_PRELOAD=f"{FOREIGN_HDF5}:{RECORDER}")
                self.assertEqual(result.returncode, 3)
                self.assertEqual(result.stdout, "app done\n")
                lines = result.stderr.splitlines()
                self.assertEqual(len(lines), 1, result.stderr)
                self.assertIn(expected, lines[0])
                self.assertIn(FOREIGN_HDF5, lines[0])
                self.assertTrue(lines[0].endswith("tracing is off"))
                self.assertFalse(os.path.exists(self.out))

    # ---- the library's interface ----

    def test_recorder_exports_only_its_api_and_the_interposed_libc_functions(self):
        out = subprocess.run(["readelf", "--dyn-syms", "--wide", RECORDER], check=True,
                             capture_output=True, text=True).stdout
        defined = {fields[7] for fields in (line.split() for line in out.splitlines())
                   if len(fields) >= 8 and fields[6] != "UND" and fields[4] == "GLOBAL"}
        self.assertEqual(defined, {
            "rocprof_mpi_recorder_active", "rocprof_mpi_record_mpi_call",
            "rocprof_mpi_record_counter_sample", "rocprof_mpi_record_counter_session",
            "rocprof_mpi_record_clock_sample", "rocprof_mpi_set_identity",
            "rocprof_mpi_record_communicator", "rocprof_mpi_record_mpi_call_static_name",
            "rocprof_mpi_mpi_call_ticks", "rocprof_mpi_record_mpi_call_ticks",
            "rocprof_mpi_recorder_flush", "rocprof_mpi_user_api_callbacks",
            "rocprof_mpi_counter_devices", "rocprof_mpi_sample_counter_devices",
            "rocprofiler_set_api_table", "sigaction", "signal", "close", "close_range",
            "closefrom", "_exit", "_Exit", "execve", "execv", "execvpe", "execvp", "fexecve",
            "execl", "execlp", "execle"})

    # ---- timestamps ----

    def test_marker_times_are_the_clock_whether_read_as_ticks_or_not(self):
        # Each mark's recorded time lies between clock readings taken just before and after
        # it (within 1 us for ticks converted to ns), over several 100 ms tick/ns pairs.
        with open("/sys/devices/system/clocksource/clocksource0/available_clocksource") as f:
            tsc_listed = "tsc" in f.read().split()
        with open("/proc/cpuinfo") as f:
            flags = f.read()
        tsc_expected = tsc_listed and "constant_tsc" in flags and "nonstop_tsc" in flags
        for setting, source in (("auto", "tsc" if tsc_expected else "clock_gettime"),
                                ("clock_gettime", "clock_gettime")):
            with self.subTest(setting=setting):
                shutil.rmtree(self.out, ignore_errors=True)
                result = self.run_app("timed-marks", 400, ROCPROF_MPI_TIMESTAMPS=setting)
                self.assertEqual(result.returncode, 0, result.stderr)
                reads = [tuple(map(int, line.split()[1:])) for line in result.stdout.splitlines()
                         if line.startswith("mark ")]
                self.assertEqual(len(reads), 400)
                with h5py.File(self.only_file(), "r") as f:
                    self.assertEqual(f.attrs["timestamp_source"], source)
                    times = sorted(int(t) for t in f["markers"]["timestamp_ns"][:])
                    pairs = f["tick_calibration"][:] if "tick_calibration" in f else []
                slack = 1000 if source == "tsc" else 0
                outside = [(t, r) for t, r in zip(times, reads)
                           if not r[0] - slack <= t <= r[1] + slack]
                self.assertEqual(outside[:3], [], f"{len(outside)} marks outside their reads")
                if source == "tsc":  # start, deliveries (100 ms or more apart), end
                    self.assertGreaterEqual(len(pairs), 3)
                    self.assertTrue(all(b[1] - a[1] >= 100_000_000
                                        for a, b in zip(pairs[:-2], pairs[1:-1])))
                    self.assertTrue(all(a[0] < b[0] and a[1] < b[1]
                                        for a, b in zip(pairs, pairs[1:])))
                else:
                    self.assertEqual(len(pairs), 0)

    # ---- stock tools and bad files ----

    def test_h5dump_reads_the_file_through_our_plugin(self):
        self.run_app("exit", 100, 0, ROCPROF_MPI_COMPRESSION="zstd:3")
        path = self.only_file()
        result = subprocess.run(["h5dump", "-d", "/mpi_calls", path],
                                env=dict(os.environ, HDF5_PLUGIN_PATH=PLUGIN_DIR),
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("FILTERS", subprocess.run(["h5dump", "-p", "-H", path], capture_output=True,
                                                text=True).stdout)
        # A row is printed as "(i): { begin_ns, end_ns, ... }"; bytes_sent is its sixth member.
        self.assertIn('H5T_STD_U64LE "bytes_sent";', result.stdout)
        data = result.stdout.split("DATA {")[1]
        rows = [[int(v) for v in re.findall(r"-?\d+", row)]
                for row in re.findall(r"\(\d+\):\s*\{([^}]*)\}", data)]
        self.assertEqual(len(rows), 100)
        self.assertEqual(sorted(row[5] for row in rows), [8 * i for i in range(100)])

    def test_deflate_and_none_are_readable_without_plugins(self):
        for compression in ("deflate:4", "none"):
            with self.subTest(compression=compression):
                self.tearDown()
                self.setUp()
                self.run_app("exit", 50, 0, ROCPROF_MPI_COMPRESSION=compression)
                result = subprocess.run(["h5dump", "-d", "/markers", self.only_file()],
                                        env={k: v for k, v in os.environ.items()
                                             if k != "HDF5_PLUGIN_PATH"},
                                        capture_output=True, text=True)
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assert_everything(self.only_file(), 50, complete=True)

    def test_reader_reports_truncated_files_by_name(self):
        self.run_app("exit", N, 0)
        path = self.only_file()
        with open(path, "r+b") as f:
            f.truncate(os.path.getsize(path) // 3)
        result = subprocess.run([DUMP, path], capture_output=True, text=True)
        self.assertEqual(result.returncode, 1)
        self.assertIn(path, result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
