"""The MPI layer with real Open MPI: 4 ranks under mpirun, each scenario of mpi_patterns run
under the PMPI wrappers, and every recorded call, peer, tag, byte count and communicator
asserted exactly from the rank files (h5py). Also: the wrapper set against mpi.h, MPI_Abort
and a killed rank, and clock offsets measured across real Linux time namespaces."""

import fnmatch
import glob
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest

import h5py
import hdf5plugin  # noqa: F401

APP = os.environ["ROCPROF_TEST_MPI_APP"]
PMPI = os.environ["ROCPROF_TEST_PMPI"]
PLUGIN_DIR = os.environ["ROCPROF_TEST_PLUGIN_DIR"]
LIB_DIR = os.environ["ROCPROF_TEST_LIB_DIR"]
DUMP = os.environ["ROCPROF_TEST_DUMP"]
SOURCE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(SOURCE))
h5py.h5pl.prepend(PLUGIN_DIR.encode())

# mpirun sends SIGKILL 1 s after the SIGTERM that takes ranks down (odls_base_sigkill_timeout):
# on a loaded 2-core machine the recorder's writer, which runs at a lower priority, may not get
# the CPU within that second to close its file. Slurm waits KillWait (30 s by default).
MPIRUN = ["mpirun", "--oversubscribe", "--allow-run-as-root", "--mca", "odls_base_sigkill_timeout",
          "10"]
SETUP_CALLS = {"MPI_Init", "MPI_Init_thread", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Finalize",
               "rocprof_mpi_clock_sync", "MPI_Initialized"}


def calls(path, keep_setup=False):
    """The rank file's MPI calls as dicts, in record order."""
    with h5py.File(path, "r") as f:
        strings = f["strings"].asstr()[:]
        stored = f["mpi_calls"][:]
        table = {name: stored[name] for name in stored.dtype.names}
    rows = []
    for i in range(len(table["function"])):
        row = {name: int(values[i]) for name, values in table.items()}
        row["function"] = strings[table["function"][i]]
        if keep_setup or row["function"] not in SETUP_CALLS:
            rows.append(row)
    return rows


def communicators(path):
    with h5py.File(path, "r") as f:
        strings = f["strings"].asstr()[:]
        stored = f["communicators"][:]
        table = {name: stored[name] for name in stored.dtype.names}
    return [{"id": int(table["communicator"][i]), "parent": int(table["parent"][i]),
             "size": int(table["size"][i]), "remote_size": int(table["remote_size"][i]),
             "rank": int(table["rank"][i]), "creator": strings[table["creator"][i]]}
            for i in range(len(table["communicator"]))]


def brief(row, *fields):
    return tuple(row[field] for field in ("function",) + fields)


class MpiRunner(unittest.TestCase):
    """Runs mpi_patterns scenarios under the wrappers; no tests of its own."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="mpi_test_")
        self.out = os.path.join(self.tmp.name, "out")

    def tearDown(self):
        self.tmp.cleanup()

    def mpirun(self, scenario, ranks=4, timeout=120, extra_env=None):
        env = {k: v for k, v in os.environ.items() if not k.startswith("ROCPROF_MPI_")}
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        # As `rocprof-mpi --mpi-trace` preloads them: the recorder first.
        preload = os.path.join(LIB_DIR, "librocprof-mpi.so") + ":" + PMPI
        exports = {"LD_PRELOAD": preload, "ROCPROF_MPI_OUTPUT_DIR": self.out,
                   "ROCPROF_MPI_FLUSH_INTERVAL": "200ms", "LD_LIBRARY_PATH": LIB_DIR}
        exports.update(extra_env or {})
        command = MPIRUN + ["-np", str(ranks)]
        for key, value in exports.items():
            command += ["-x", f"{key}={value}"]
        return subprocess.run(command + [APP, scenario], env=env, capture_output=True, text=True,
                              timeout=timeout, cwd=self.tmp.name)

    def rank_file(self, rank):
        return os.path.join(self.out, f"{rank}.h5")

    def run_ok(self, scenario):
        result = self.mpirun(scenario)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, f"{scenario} done\n")
        self.assertEqual(sorted(os.listdir(self.out)), [f"{r}.h5" for r in range(4)])
        for rank in range(4):
            with h5py.File(self.rank_file(rank), "r") as f:
                self.assertEqual((int(f.attrs["rank"]), int(f.attrs["size"])), (rank, 4))
                self.assertEqual(int(f.attrs["complete"]), 1)



class MpiTest(MpiRunner):
    # ---- the wrapper set ----

    def test_every_mpi_function_of_mpi_h_is_wrapped_or_excluded_with_a_reason(self):
        preprocessed = glob.glob(os.path.join(os.path.dirname(os.path.dirname(PMPI)),
                                              "generated", "mpi", "mpi_preprocessed.h"))[0]
        text = open(preprocessed).read()
        # Independent of the generator: names followed by "(" in declarations.
        declared = set(re.findall(r"\b(MPI_\w+)\s*\(", text))
        profiled = set(re.findall(r"\bP(MPI_\w+)\s*\(", text))
        candidates = declared & profiled
        excluded = []
        for line in open(os.path.join(ROOT, "mpi", "wrappers", "excluded_functions.txt")):
            if line.strip() and not line.startswith("#"):
                pattern, reason = line.split(None, 1)
                self.assertTrue(reason.strip(), pattern)
                excluded.append(pattern)
        expected = {name for name in candidates
                    if not any(fnmatch.fnmatchcase(name, p) for p in excluded)}
        symbols = subprocess.run(["nm", "-D", "--defined-only", PMPI], check=True,
                                 capture_output=True, text=True).stdout
        # The C wrappers; the Fortran bindings' upper-case names (MPI_SEND) are test_fortran's.
        exported = {name for name in re.findall(r" T (MPI_\w+)$", symbols, re.M)
                    if not name.isupper()}
        self.assertEqual(exported, expected)
        self.assertGreater(len(exported), 350)
        self.assertNotIn("MPI_Wtime", exported)
        # Each exclusion is listed in the documentation with its reason.
        docs = open(os.path.join(ROOT, "docs", "MPI.md")).read()
        for pattern in excluded:
            self.assertIn(f"`{pattern}`", docs)

    # ---- scenarios ----

    def test_point_to_point(self):
        self.run_ok("p2p")
        for rank in range(4):
            nxt, prev, across = (rank + 1) % 4, (rank + 3) % 4, (rank + 2) % 4
            rows = calls(self.rank_file(rank))
            got = [brief(r, "peer", "tag", "bytes_sent", "bytes_received", "communicator")
                   for r in rows]
            recv = ("MPI_Recv", prev, 10 + prev, 0, 800, 1)  # the actual source, from a wildcard
            send = ("MPI_Send", nxt, 10 + rank, 800, 0, 1)
            ring = [send, recv] if rank % 2 == 0 else [recv, send]
            self.assertEqual(got[:3], ring + [("MPI_Barrier", -1, -1, 0, 0, 1)])
            irecv, isend, wait_recv, wait_send, waitall = rows[3:8]
            self.assertEqual(brief(irecv, "peer", "tag"), ("MPI_Irecv", across, 20))
            self.assertEqual(brief(isend, "peer", "tag", "bytes_sent"), ("MPI_Isend", across, 20, 200))
            # Waitall: one row per request, tied to the starting call by the handle.
            self.assertEqual(brief(wait_recv, "request", "peer", "tag", "bytes_received"),
                             ("MPI_Waitall", irecv["request"], across, 20, 200))
            self.assertEqual(brief(wait_send, "request", "peer", "bytes_sent"),
                             ("MPI_Waitall", isend["request"], across, 200))
            self.assertEqual(brief(waitall, "request"), ("MPI_Waitall", 0))
            self.assertEqual(len({wait_recv["external_id"], wait_send["external_id"],
                                  waitall["external_id"]}), 1)
            recv_init, send_init = rows[8:10]
            self.assertEqual(brief(recv_init, "peer", "tag"), ("MPI_Recv_init", prev, 30))
            self.assertEqual(brief(send_init, "peer", "tag", "bytes_sent"),
                             ("MPI_Send_init", nxt, 30, 32))
            persistent = rows[10:28]
            for i in range(3):
                start_r, start_s, start, wait_r, wait_s, wait = persistent[6 * i:6 * i + 6]
                self.assertEqual(brief(start_r, "request", "peer"), ("MPI_Startall", recv_init["request"], prev))
                self.assertEqual(brief(start_s, "request", "bytes_sent"), ("MPI_Startall", send_init["request"], 32))
                self.assertEqual(brief(wait_r, "request", "peer", "bytes_received"),
                                 ("MPI_Waitall", recv_init["request"], prev, 32))
                self.assertEqual(brief(wait_s, "request", "peer"), ("MPI_Waitall", send_init["request"], nxt))
                self.assertEqual((start["function"], wait["function"]), ("MPI_Startall", "MPI_Waitall"))
            frees = rows[28:30]
            self.assertEqual([brief(r, "request") for r in frees],
                             [("MPI_Request_free", recv_init["request"]),
                              ("MPI_Request_free", send_init["request"])])
            # MPI_Sendrecv: its receive half first (request ROCPROF_MPI_CALL_PART = 1, the
            # actual source and size), then the call's own row with the send's peer and tag.
            received, sendrecv = rows[30:32]
            self.assertEqual(brief(received, "request", "peer", "tag", "bytes_sent", "bytes_received",
                                   "external_id"),
                             ("MPI_Sendrecv", 1, prev if rank > 0 else -1, 40 if rank > 0 else -1,
                              0, 1 if rank > 0 else 0, sendrecv["external_id"]))
            self.assertEqual(brief(sendrecv, "request", "peer", "tag", "bytes_sent", "bytes_received"),
                             ("MPI_Sendrecv", 0, nxt if rank < 3 else -1, 40, 1 if rank < 3 else 0,
                              1 if rank > 0 else 0))
            irecv2, isend2, wait = rows[32:35]
            self.assertEqual(brief(wait, "request", "peer", "tag", "bytes_sent"),
                             ("MPI_Wait", isend2["request"], nxt, 50, 24))
            tests = rows[35:]
            self.assertTrue(all(r["function"] == "MPI_Test" for r in tests))
            self.assertEqual(brief(tests[-1], "request", "peer", "tag", "bytes_received"),
                             ("MPI_Test", irecv2["request"], prev, 50, 24))
            self.assertTrue(all(r["request"] == 0 for r in tests[:-1]))

    def test_collectives(self):
        self.run_ok("collectives")
        for rank in range(4):
            got = [brief(r, "peer", "bytes_sent", "bytes_received", "communicator")
                   for r in calls(self.rank_file(rank))]
            self.assertEqual(got, [
                ("MPI_Bcast", 1, 80 if rank == 1 else 0, 0 if rank == 1 else 80, 1),
                ("MPI_Reduce", 2, 8, 8 if rank == 2 else 0, 1),
                ("MPI_Allreduce", -1, 16, 16, 1),            # MPI_IN_PLACE: own block counts
                ("MPI_Gather", 0, 8, 32 if rank == 0 else 0, 1),
                ("MPI_Allgatherv", -1, 4 * (rank + 1), 40, 1),
                ("MPI_Alltoall", -1, 24, 24, 1),
                ("MPI_Barrier", -1, 0, 0, 1),
                ("MPI_Ibcast", 3, 40 if rank == 3 else 0, 0 if rank == 3 else 40, 1),
                ("MPI_Wait", -1, 0, 0, 1),
                ("MPI_Scatter", 0, 16 if rank == 0 else 0, 4, 1),
            ])

    def test_communicators_get_job_wide_ids_and_world_ranks(self):
        self.run_ok("comms")
        by_rank = {rank: calls(self.rank_file(rank)) for rank in range(4)}
        comms = {rank: communicators(self.rank_file(rank)) for rank in range(4)}

        def comm_id(rank, creator):
            return next(c["id"] for c in comms[rank] if c["creator"] == creator)

        # Split by parity, keys reversed: half-rank 0 is world 2 (even) and world 3 (odd).
        for rank in range(4):
            half = comm_id(rank, "MPI_Comm_split")
            same_half = [r for r in range(4) if r % 2 == rank % 2]
            self.assertEqual({comm_id(r, "MPI_Comm_split") for r in same_half}, {half})
            entry = next(c for c in comms[rank] if c["id"] == half)
            self.assertEqual((entry["parent"], entry["size"], entry["rank"]), (1, 2, 0 if rank >= 2 else 1))
            first = by_rank[rank][1]
            if rank >= 2:
                self.assertEqual(brief(first, "peer", "tag", "bytes_sent", "communicator"),
                                 ("MPI_Send", rank - 2, 60, 4, half))
            else:
                self.assertEqual(brief(first, "peer", "tag", "bytes_received", "communicator"),
                                 ("MPI_Recv", rank + 2, 60, 4, half))
        self.assertNotEqual(comm_id(0, "MPI_Comm_split"), comm_id(1, "MPI_Comm_split"))
        # Everyone agrees on the ids of the shared communicators.
        for creator in ("MPI_Comm_dup", "MPI_Intercomm_create", "MPI_Intercomm_merge"):
            self.assertEqual(len({comm_id(r, creator) for r in range(4)}), 1, creator)
        inter = comm_id(0, "MPI_Intercomm_create")
        self.assertEqual({(c["size"], c["remote_size"]) for r in range(4) for c in comms[r]
                          if c["id"] == inter}, {(2, 2)})
        # Over the intercommunicator, peers are world ranks of the remote group.
        for rank in range(4):
            halves = [r for r in by_rank[rank] if r["function"] == "MPI_Sendrecv"]
            partner = {0: 1, 1: 0, 2: 3, 3: 2}[rank]
            self.assertEqual([brief(r, "request", "peer", "tag", "communicator") for r in halves],
                             [("MPI_Sendrecv", 1, partner, 80, inter),
                              ("MPI_Sendrecv", 0, partner, 80, inter)])
            freed = [r["communicator"] for r in by_rank[rank] if r["function"] == "MPI_Comm_free"]
            self.assertEqual(freed, [comm_id(rank, "MPI_Intercomm_merge"), inter,
                                     comm_id(rank, "MPI_Comm_dup"), comm_id(rank, "MPI_Comm_split")])

    def test_calls_made_before_main_are_recorded(self):
        # mpi_patterns asks MPI_Initialized from a static constructor, before main.
        self.run_ok("p2p")
        for rank in range(4):
            rows = calls(self.rank_file(rank), keep_setup=True)
            first = min(rows, key=lambda r: r["begin_ns"])
            init = next(r for r in rows if r["function"] == "MPI_Init")
            self.assertEqual(first["function"], "MPI_Initialized")
            self.assertLess(first["end_ns"], init["begin_ns"])

    def test_thread_multiple_records_each_thread(self):
        self.run_ok("threads")
        for rank in range(4):
            rows = calls(self.rank_file(rank), keep_setup=True)
            self.assertIn("MPI_Init_thread", [r["function"] for r in rows])
            exchanges = [r for r in rows if r["function"] == "MPI_Sendrecv" and r["request"] == 0]
            received = [r for r in rows if r["function"] == "MPI_Sendrecv" and r["request"] == 1]
            self.assertEqual(sorted(brief(r, "peer", "tag", "bytes_received") for r in received),
                             [("MPI_Sendrecv", rank ^ 1, 100, 4), ("MPI_Sendrecv", rank ^ 1, 101, 4)])
            self.assertEqual(sorted(brief(r, "peer", "tag", "bytes_sent", "bytes_received")
                                    for r in exchanges),
                             [("MPI_Sendrecv", rank ^ 1, 100, 4, 4), ("MPI_Sendrecv", rank ^ 1, 101, 4, 4)])
            self.assertEqual(len({r["thread_id"] for r in exchanges}), 2)

    def test_completions_describe_their_own_requests_when_threads_reuse_handles(self):
        # MPI hands a completed request's handle to the next request any thread starts: a
        # completion must describe the request it completed, not a newer one of that handle.
        self.run_ok("threaded-requests")
        for rank in range(4):
            rows = calls(self.rank_file(rank))
            done = [r for r in rows if r["function"] == "MPI_Waitall" and r["request"] != 0]
            self.assertEqual(len(done), 4 * 2000 * 2)
            tags = {}
            for r in done:
                tags.setdefault(r["thread_id"], set()).add(r["tag"])
            self.assertEqual({r["peer"] for r in done}, {rank ^ 1})
            # Each thread has one tag of its own: 200 .. 203.
            self.assertEqual(sorted(min(t) for t in tags.values()), [200, 201, 202, 203])
            self.assertTrue(all(len(t) == 1 for t in tags.values()), tags)

    def test_records_made_inside_an_mpi_call_carry_its_external_id(self):
        self.run_ok("external")
        for rank in range(4):
            path = self.rank_file(rank)
            allreduce = next(r for r in calls(path) if r["function"] == "MPI_Allreduce")
            self.assertEqual(allreduce["external_id"] >> 44, rank)  # rank-qualified
            with h5py.File(path, "r") as f:
                strings = f["strings"].asstr()[:]
                marks = [int(i) for i, m in zip(f["markers"]["id"][:], f["markers"]["message"][:])
                         if strings[m] == "inside the reduction"]
                links = dict(zip(f["external_correlations"]["correlation_id"][:].tolist(),
                                 f["external_correlations"]["external_id"][:].tolist()))
            self.assertGreaterEqual(len(marks), 1)
            for mark in marks:
                self.assertEqual(links[mark], allreduce["external_id"])
        ids = {r["external_id"] for rank in range(4) for r in calls(self.rank_file(rank), True)
               if r["external_id"]}
        self.assertEqual(len(ids), sum(1 for rank in range(4)
                                       for r in calls(self.rank_file(rank), True) if r["external_id"]))

    def test_ranks_that_close_every_descriptor_keep_their_files_and_ours(self):
        self.run_ok("closeall")
        for rank in range(4):
            with open(os.path.join(self.tmp.name, f"mydata.{rank}.txt")) as data:
                self.assertEqual(data.read(), "".join(f"line {i}\n" for i in range(20000)))
            barriers = [r for r in calls(self.rank_file(rank)) if r["function"] == "MPI_Barrier"]
            self.assertEqual(len(barriers), 20)

    def test_abort_and_killed_ranks_leave_readable_files(self):
        for scenario, culprit in (("abort", 1), ("kill", 2)):
            with self.subTest(scenario=scenario):
                self.tearDown()
                self.setUp()
                result = self.mpirun(scenario)
                self.assertNotEqual(result.returncode, 0)
                # mpirun may return while the ranks it took down still close their files.
                for _ in range(100):
                    if subprocess.run(["pgrep", "-f", f"{APP} {scenario}"],
                                      capture_output=True).returncode != 0:
                        break
                    time.sleep(0.1)
                self.assertEqual(sorted(os.listdir(self.out)), [f"{r}.h5" for r in range(4)])
                for rank in range(4):
                    dump = subprocess.run([DUMP, self.rank_file(rank)], capture_output=True, text=True)
                    self.assertEqual(dump.returncode, 0, dump.stderr)
                    functions = [r["function"] for r in calls(self.rank_file(rank), True)]
                    self.assertIn("MPI_Barrier", functions, (scenario, rank))
                    if scenario == "abort" and rank == culprit:
                        self.assertIn("MPI_Abort", functions)
                    if rank != culprit:  # taken down by SIGTERM: the handler closed the file
                        with h5py.File(self.rank_file(rank), "r") as f:
                            self.assertEqual(int(f.attrs["complete"]), 1, (scenario, rank))


    def test_an_mpi_error_that_ends_the_rank_keeps_its_trace(self):
        # Open MPI's MPI_ERRORS_ARE_FATAL handler ends the rank with _exit: the recorder
        # closes the file there, so the ranges just before the error are not lost.
        result = self.mpirun("fatal")
        self.assertNotEqual(result.returncode, 0)
        for _ in range(100):
            if subprocess.run(["pgrep", "-f", f"{APP} fatal"], capture_output=True).returncode:
                break
            time.sleep(0.1)
        with h5py.File(self.rank_file(1), "r") as f:
            strings = f["strings"].asstr()[:]
            markers = f["markers"][:]
            pushed = [strings[m] for m in markers["message"][markers["op"] == 1]]
            self.assertEqual(pushed.count("before the error"), 50)
            self.assertEqual(int(f.attrs["complete"]), 1)
        functions = [r["function"] for r in calls(self.rank_file(1), True)]
        self.assertIn("MPI_Barrier", functions)


class PeriodicClockTest(MpiRunner):
    def test_world_barriers_synchronise_clocks_when_the_interval_passed(self):
        result = self.mpirun("periodic", extra_env={"ROCPROF_MPI_CLOCK_SYNC_INTERVAL": "10ms"})
        self.assertEqual(result.returncode, 0, result.stderr)
        for rank in range(4):
            with h5py.File(self.rank_file(rank), "r") as f:
                # MPI_Init, three world barriers, MPI_Finalize.
                self.assertEqual(f["clock_samples"]["local_ns"].shape[0], 5)
                self.assertTrue((f["clock_samples"]["reference_rank"][:] == 0).all())

    def test_a_bad_interval_is_one_message_and_init_finalize_only(self):
        result = self.mpirun("periodic", extra_env={"ROCPROF_MPI_CLOCK_SYNC_INTERVAL": "often"})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stderr.count("ROCPROF_MPI_CLOCK_SYNC_INTERVAL='often'"), 1)
        for rank in range(4):
            with h5py.File(self.rank_file(rank), "r") as f:
                self.assertEqual(f["clock_samples"]["local_ns"].shape[0], 2)


class ExcludeSettingTest(MpiRunner):
    """ROCPROF_MPI_EXCLUDE_CALLS set directly, as a job script may without the launcher (which
    checks the same text before anything runs: tests/cli)."""

    def functions(self, rank):
        return [row["function"] for row in calls(self.rank_file(rank), keep_setup=True)]

    def steady(self, rank):
        """The rank's calls in order, but for what timing decides: the clock measurements and
        how many times a polling MPI_Test ran."""
        steady = []
        for function in self.functions(rank):
            if function != "rocprof_mpi_clock_sync" and not (
                    function == "MPI_Test" and steady and steady[-1] == "MPI_Test"):
                steady.append(function)
        return steady

    def test_a_malformed_setting_is_one_message_and_every_call_is_recorded(self):
        plain = self.mpirun("p2p")
        self.assertEqual(plain.returncode, 0, plain.stderr)
        expected = {rank: self.steady(rank) for rank in range(4)}
        shutil.rmtree(self.out)
        for bad in ("MPI_Send,,MPI_Recv", "MPI_Send;rm"):
            result = self.mpirun("p2p", extra_env={"ROCPROF_MPI_EXCLUDE_CALLS": bad})
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(result.stdout, "p2p done\n")
            self.assertEqual(result.stderr.count("ROCPROF_MPI_EXCLUDE_CALLS"), 1, result.stderr)
            self.assertIn("every MPI call is recorded", result.stderr)
            for rank in range(4):
                self.assertEqual(self.steady(rank), expected[rank])  # the same calls as unfiltered
            shutil.rmtree(self.out)

    def test_a_valid_setting_leaves_out_its_calls_alone(self):
        result = self.mpirun("p2p",
                             extra_env={"ROCPROF_MPI_EXCLUDE_CALLS": "MPI_Comm_rank, MPI_Irecv"})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn("ROCPROF_MPI_EXCLUDE_CALLS", result.stderr)
        for rank in range(4):
            functions = set(self.functions(rank))
            self.assertFalse(functions & {"MPI_Comm_rank", "MPI_Irecv"}, functions)
            self.assertTrue({"MPI_Init", "MPI_Send", "MPI_Finalize"} <= functions, functions)


class ClockTest(unittest.TestCase):
    """Ranks in separate Linux time namespaces really have different clocks; the measured
    offsets must match the injected ones within 2 us plus half the round trip."""

    OFFSETS_S = [0, 7, -3, 11]  # CLOCK_MONOTONIC / CLOCK_BOOTTIME offset per rank

    def test_offsets_across_time_namespaces(self):
        with tempfile.TemporaryDirectory(prefix="clock_test_") as tmp:
            out = os.path.join(tmp, "out")
            env = {k: v for k, v in os.environ.items() if not k.startswith("ROCPROF_MPI_")}
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
            command = list(MPIRUN)
            for rank, offset in enumerate(self.OFFSETS_S):
                if rank:
                    command.append(":")
                # unshare itself must not be traced: the preload is set for the program only
                # (and each MPMD context gets the whole environment it needs).
                inner = ["env", f"LD_PRELOAD={PMPI}", f"ROCPROF_MPI_OUTPUT_DIR={out}",
                         f"LD_LIBRARY_PATH={LIB_DIR}", APP, "clock"]
                if offset:
                    inner = ["unshare", "-T", "--monotonic", str(offset), "--boottime", str(offset)] + inner
                command += ["-np", "1"] + inner
            result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
            if "unshare failed" in result.stderr or "Operation not permitted" in result.stderr:
                self.skipTest("time namespaces are not available here: " + result.stderr[-300:])
            self.assertEqual(result.returncode, 0, result.stderr)
            for rank, offset in enumerate(self.OFFSETS_S):
                with h5py.File(os.path.join(out, f"{rank}.h5"), "r") as f:
                    samples = list(zip(f["clock_samples"]["offset_ns"][:].tolist(),
                                       f["clock_samples"]["round_trip_ns"][:].tolist(),
                                       f["clock_samples"]["uncertainty_ns"][:].tolist()))
                self.assertEqual(len(samples), 2, rank)  # at MPI_Init and at MPI_Finalize
                for measured, round_trip, uncertainty in samples:
                    # offset = reference - local; this rank's clock runs `offset` s ahead.
                    # Within 2 us plus half the round trips of the measurements on the path
                    # to rank 0 (what `uncertainty` records; one hop: half its round trip).
                    expected = -offset * 1_000_000_000
                    self.assertLessEqual(abs(measured - expected), 2000 + uncertainty,
                                         (rank, measured, expected, round_trip, uncertainty))
                    if rank == 0:
                        self.assertEqual((measured, round_trip), (0, 0))
                    else:
                        self.assertGreater(round_trip, 0)
                        self.assertGreaterEqual(uncertainty, round_trip // 2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
