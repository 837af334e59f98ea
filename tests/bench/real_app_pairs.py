#!/usr/bin/env python3
"""What tracing costs real MPI applications: MPI codes that Debian packages, each run plain and
under `rocprof-mpi` in alternated pairs (the order of the two swapped from one pair to the
next), every core busy (one rank per CPU by default), in one call.

The applications (`--apps`, all by default), their inputs in tests/bench/real_apps/:
  hpcc    C        hpcc: the HPC Challenge suite (HPL, PTRANS, RandomAccess, FFT, ...); its
                   MPI RandomAccess polls with MPI_Testany
  meep    C++      meep-openmpi: FDTD, a 2D waveguide (waveguide.ctl)
  elk     Fortran  elk-lapw: all-electron DFT, silicon's ground state (elk.in)
  lammps  C++      lammps: the Lennard-Jones melt of tests/merge/lammps (--lammps-steps)
`bash scripts/install-deps.sh --bench-apps` installs the first three (the test packages
include lammps).

Printed per application: the median wall time of the whole `mpirun` plain and traced, the
median and range of the pairs' ratios, the median ratio of user + system CPU, and what the
traced runs recorded (rows in the rank files, read with h5py where it is installed) and
dropped (the files' records_dropped). A run that fails stops the benchmark with its output.

Usage: real_app_pairs.py BUILD_DIR [--apps hpcc,meep,elk,lammps] [--pairs N] [--ranks N]
                         [--trace-args "--mpi-trace --marker-trace"] [--lammps-steps N]
BUILD_DIR holds bin/rocprof-mpi (a build tree or a GPU-test pack).
"""
import argparse
import glob
import math
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = os.path.join(HERE, "real_apps")
LAMMPS_INPUT = os.path.join(HERE, "..", "merge", "lammps", "lj_melt.in")

HPCC_INPUT = """HPLinpack benchmark input file
written by real_app_pairs.py
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
{n}          Ns
1            # of NBs
80           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
{p}          Ps
{q}          Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                      		Number of additional problem sizes for PTRANS
1200 10000 30000        	values of N
0                       	number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64       	values of NB
"""


def process_grid(ranks):
    """P x Q = ranks with P <= Q as close as they come (HPL wants every rank in the grid)."""
    p = int(math.isqrt(ranks))
    while ranks % p:
        p -= 1
    return p, ranks // p


def prepare_hpcc(workdir, args):
    p, q = process_grid(args.ranks)
    with open(os.path.join(workdir, "hpccinf.txt"), "w") as out:
        out.write(HPCC_INPUT.format(n=args.hpcc_n, p=p, q=q))


def hpcc_passed(workdir, _output):
    with open(os.path.join(workdir, "hpccoutf.txt")) as result:
        text = result.read()
    return "End of HPC Challenge tests." in text and "FAILED" not in text


def prepare_copy(name):
    return lambda workdir, _args: shutil.copy(os.path.join(INPUTS, name), workdir)


def prepare_lammps(workdir, args):
    with open(LAMMPS_INPUT) as source, open(os.path.join(workdir, "melt.in"), "w") as out:
        for line in source:
            out.write(f"run {args.lammps_steps}\n" if line.startswith("run ") else line)


APPS = {
    # name: (language, Debian package, command, prepare(workdir, args), check(workdir, output))
    "hpcc": ("C", "hpcc", ["hpcc"], prepare_hpcc, hpcc_passed),
    "meep": ("C++", "meep-openmpi", ["meep", "waveguide.ctl"], prepare_copy("waveguide.ctl"),
             lambda _w, output: "run 0 finished" in output),
    "elk": ("Fortran", "elk-lapw", ["elk-lapw"], prepare_copy("elk.in"),
            lambda _w, output: "Elk code stopped" in output),
    "lammps": ("C++", "lammps", ["lmp", "-in", "melt.in", "-log", "none"], prepare_lammps,
               lambda _w, output: "Total wall time" in output),
}


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(command, workdir, app):
    """Wall and CPU seconds of one whole mpirun; stops the benchmark if it fails."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMP_NUM_THREADS="1")
    cpu = children_cpu()
    started = time.monotonic()
    result = subprocess.run(command, env=env, cwd=workdir, capture_output=True, text=True)
    wall = time.monotonic() - started
    cpu = children_cpu() - cpu
    output = result.stdout + result.stderr
    if result.returncode != 0 or not APPS[app][4](workdir, output):
        raise SystemExit(f"{' '.join(command)} in {workdir} failed ({result.returncode}):\n"
                         f"{output[-3000:]}")
    return wall, cpu


def recorded(trace_dir):
    """Rows and dropped records in a traced run's rank files; (None, None) without h5py."""
    try:
        import h5py  # noqa: PLC0415: optional, only for the counts
    except ImportError:
        return None, None
    rows = dropped = 0
    for path in glob.glob(os.path.join(trace_dir, "*.h5")):
        with h5py.File(path, "r") as rank_file:
            dropped += int(rank_file.attrs.get("records_dropped", 0))
            rows += sum(item.shape[0] for item in rank_file.values()
                        if isinstance(item, h5py.Dataset) and item.shape)
    return rows, dropped


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build")
    parser.add_argument("--apps", default=",".join(APPS))
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--ranks", type=int, default=os.cpu_count())
    parser.add_argument("--trace-args", default="--mpi-trace --marker-trace")
    parser.add_argument("--hpcc-n", type=int, default=2000, help="HPL's matrix order")
    parser.add_argument("--lammps-steps", type=int, default=2000)
    args = parser.parse_args()
    launcher = os.path.join(os.path.abspath(args.build), "bin", "rocprof-mpi")
    if not os.access(launcher, os.X_OK):
        raise SystemExit(f"{launcher} is missing: build the project first (scripts/build.sh)")
    apps = args.apps.split(",")
    for app in apps:
        if app not in APPS:
            raise SystemExit(f"unknown application {app!r}: choose from {', '.join(APPS)}")
        if shutil.which(APPS[app][2][0]) is None:
            raise SystemExit(f"{APPS[app][2][0]} is not installed (Debian package {APPS[app][1]}:"
                             " bash scripts/install-deps.sh --bench-apps)")
    mpirun = ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(args.ranks)]
    tracing = shlex.split(args.trace_args)
    print(f"{args.ranks} ranks on {os.cpu_count()} CPUs, {args.pairs} alternated pairs, "
          f"traced with: rocprof-mpi {args.trace_args}")
    print(f"{'app':>7} {'lang':>8} {'plain s':>8} {'traced s':>9} {'ratio':>6} {'range':>11} "
          f"{'cpu ratio':>9} {'records':>11} {'dropped':>8}")
    for app in apps:
        language, _package, command, prepare, _check = APPS[app]
        plain, traced, ratios, cpu_ratios = [], [], [], []
        rows = dropped = None
        with tempfile.TemporaryDirectory(prefix=f"real_app_{app}_") as tmp:
            for pair in range(args.pairs):
                results = {}
                for kind in (("plain", "traced") if pair % 2 == 0 else ("traced", "plain")):
                    workdir = os.path.join(tmp, f"{kind}{pair}")
                    os.mkdir(workdir)
                    prepare(workdir, args)
                    trace_dir = os.path.join(workdir, "trace")
                    prefix = [launcher, *tracing, "-d", trace_dir, "--"] if kind == "traced" else []
                    results[kind] = run(mpirun + prefix + command, workdir, app)
                    if kind == "traced":
                        rows, dropped = recorded(trace_dir)
                    shutil.rmtree(workdir)
                plain.append(results["plain"][0])
                traced.append(results["traced"][0])
                ratios.append(results["traced"][0] / results["plain"][0])
                cpu_ratios.append(results["traced"][1] / results["plain"][1])
        print(f"{app:>7} {language:>8} {statistics.median(plain):>8.2f} "
              f"{statistics.median(traced):>9.2f} {statistics.median(ratios):>6.3f} "
              f"{min(ratios):>5.2f}-{max(ratios):<5.2f} {statistics.median(cpu_ratios):>9.3f} "
              f"{'-' if rows is None else rows:>11} {'-' if dropped is None else dropped:>8}",
              flush=True)


if __name__ == "__main__":
    sys.exit(main())
