"""Programs run under mpirun for the merge's tests, traced by rocprof-mpi or not: the
environment without the tests' own rocprof settings, and the bundled Jacobi example traced
on 4 ranks."""

import os
import subprocess


def mpi_env():
    """This environment without rocprof-mpi's settings and preloads, allowed to run as root."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ROCPROF_MPI_", "LD_PRELOAD"))}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def run_merge(command, procs=1, check=True):
    """A merge tool's `command`, on `procs` processes of mpirun when more than one; the
    CompletedProcess (with `check`, an AssertionError with its stderr if it failed)."""
    if procs > 1:
        command = ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(procs)] + command
    result = subprocess.run(command, capture_output=True, text=True, env=mpi_env(), timeout=300)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(command)} exited {result.returncode}: {result.stderr}")
    return result


def run_mpi(command, directory, ranks=4, timeout=300):
    """`command` on `ranks` processes of mpirun in `directory`; the CompletedProcess."""
    return subprocess.run(["mpirun", "--oversubscribe", "-np", str(ranks), *command],
                          cwd=directory, env=mpi_env(), capture_output=True, text=True,
                          timeout=timeout)


def traced_jacobi(test, directory, launcher, jacobi, name="trace"):
    """The Jacobi example on 4 ranks under `rocprof-mpi --mpi-trace --marker-trace`, its rank
    files in directory/name (returned); `test` asserts it ran."""
    run = run_mpi([launcher, "--mpi-trace", "--marker-trace", "-d", name, "--", jacobi, "128",
                   "40"], directory, timeout=180)
    test.assertEqual(run.returncode, 0, run.stderr)
    return os.path.join(directory, name)
