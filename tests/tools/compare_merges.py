#!/usr/bin/python3
"""Two rocprof-merge builds on the same jobs: their outputs must be the same (merge_digest:
the bytes, an OTF2 archive's random trace identifier aside), serially and in parallel.
For refactoring the merge: run it with the build before and the build after.

Usage: compare_merges.py OLD_MERGE NEW_MERGE JOB_DIR... [--procs 1,2,3] [--formats pftrace,...]
Exit 0 when every output is the same, else 1 with one line per difference."""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "merge"))
from merge_digest import output_digest  # noqa: E402


def merge(binary, job, output, procs):
    command = [binary, job, "-o", output, "-q"]
    if procs > 1:
        command = ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(procs)] + command
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {result.stderr.strip()}")
    return output_digest(output)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("jobs", nargs="+")
    parser.add_argument("--procs", default="1,2")
    parser.add_argument("--formats", default="pftrace,json,h5,otf2")
    args = parser.parse_args()
    # Our zstd filter for h5py: the new build's (BUILD/bin/rocprof-merge -> BUILD/hdf5-plugins).
    os.environ.setdefault("ROCPROF_TEST_PLUGIN_DIR", os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(args.new))), "hdf5-plugins"))
    differences = 0
    with tempfile.TemporaryDirectory() as scratch:
        for job in args.jobs:
            for fmt in args.formats.split(","):
                for procs in (int(p) for p in args.procs.split(",")):
                    digests = []
                    for name, binary in (("old", args.old), ("new", args.new)):
                        out = os.path.join(scratch, f"{name}-{procs}.{fmt}")
                        digests.append(merge(binary, job, out, procs))
                    same = digests[0] == digests[1]
                    differences += not same
                    print(f"{'same' if same else 'DIFFERENT'}  {job}  .{fmt}  {procs} process(es)")
    print(f"{differences} difference(s)")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
