"""Fortran MPI programs traced like C (issue 30): the same exchange written for each Fortran
binding of the installed Open MPI (mpif.h, `use mpi`, `use mpi_f08`), built with Debian's
mpif90 and run on 4 ranks under `rocprof-mpi --mpi-trace`, records exactly the rows of its C
twin (function, peer, tag, bytes, communicator, request identity; times and ids aside), and
the merge matches its messages with no causality violation."""

import os
import shutil
import subprocess
import tempfile
import unittest

import h5py

LAUNCHER = os.environ["ROCPROF_TEST_LAUNCHER"]
MERGE = os.environ["ROCPROF_TEST_MERGE"]
C_TWIN = os.environ["ROCPROF_TEST_FORTRAN_TWIN"]
h5py.h5pl.prepend(os.environ["ROCPROF_TEST_PLUGIN_DIR"].encode())
SOURCES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fortran")
MPIF90 = shutil.which("mpif90")
# name -> mpif90 arguments. Without interfaces (mpif.h), gfortran >= 10 refuses one buffer
# argument of two types unless told to allow it, as MPI programs are built.
BINDINGS = {
    "mpif.h": ["-fallow-argument-mismatch", "-w", os.path.join(SOURCES, "exchange_legacy.F90")],
    "use mpi": ["-DUSE_MPI_MODULE", os.path.join(SOURCES, "exchange_legacy.F90")],
    "use mpi_f08": [os.path.join(SOURCES, "exchange_f08.f90")],
}
RANKS = 4


def recorded_rows(directory, rank):
    """A rank file's MPI rows, requests numbered by first appearance."""
    with h5py.File(os.path.join(directory, f"{rank}.h5"), "r") as f:
        strings = f["strings"].asstr()[:]
        table = f["mpi_calls"][:]
    rows, requests = [], {}
    for row in table:
        request = int(row["request"])
        if request > 1:  # a handle (0: none, 1: part of a call)
            request = requests.setdefault(request, len(requests) + 2)
        rows.append((strings[row["function"]], int(row["peer"]), int(row["tag"]),
                     int(row["bytes_sent"]), int(row["bytes_received"]),
                     int(row["communicator"]), request))
    return rows


class FortranTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="fortran_test_")
        self.dir = self.tmp.name
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("ROCPROF_MPI_", "LD_PRELOAD"))}
        self.env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")

    def tearDown(self):
        self.tmp.cleanup()

    def traced(self, program, name):
        out = os.path.join(self.dir, name)
        run = subprocess.run(["mpirun", "--oversubscribe", "-np", str(RANKS), LAUNCHER,
                              "--mpi-trace", "-d", out, "--", program], cwd=self.dir,
                             env=self.env, capture_output=True, text=True, timeout=180)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr[-3000:])
        return out, run.stdout

    def test_each_binding_records_the_rows_of_its_c_twin(self):
        if MPIF90 is None:
            self.skipTest("mpif90 is missing (scripts/install-deps.sh installs gfortran)")
        twin, twin_said = self.traced(C_TWIN, "c")
        self.assertIn("exchange   6.0 2 1 halves", twin_said)
        expected = [recorded_rows(twin, rank) for rank in range(RANKS)]
        functions = {row[0] for rows in expected for row in rows}
        for needed in ("MPI_Init", "MPI_Recv", "MPI_Waitall", "MPI_Waitany", "MPI_Sendrecv",
                       "MPI_Allreduce", "MPI_Alltoallw", "MPI_Comm_split", "MPI_Comm_set_name",
                       "MPI_Comm_free", "MPI_Finalize", "rocprof_mpi_clock_sync"):
            self.assertIn(needed, functions)
        for binding, arguments in BINDINGS.items():
            with self.subTest(binding=binding):
                program = os.path.join(self.dir, binding.replace(" ", "_").replace(".", "_"))
                subprocess.run([MPIF90, "-O1", "-o", program, *arguments], check=True,
                               cwd=self.dir, capture_output=True)
                trace, said = self.traced(program, os.path.basename(program) + "_trace")
                # The program computes what it computes untraced (its own printout).
                self.assertIn("exchange  6.0 2 1 halves", said)
                for rank in range(RANKS):
                    self.assertEqual(recorded_rows(trace, rank), expected[rank], rank)
                merged = subprocess.run([MERGE, trace, "-o", trace + ".json"],
                                        capture_output=True, text=True, timeout=120)
                self.assertEqual(merged.returncode, 0, merged.stderr)
                self.assertIn("20 messages matched; receives before their send: 0 after clock "
                              "alignment, 0 after correction", merged.stdout)


if __name__ == "__main__":
    unittest.main()
