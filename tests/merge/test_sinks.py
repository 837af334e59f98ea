"""The merge's outputs as sinks: the built-in formats write what they wrote before the merge
became a pipeline (golden digests of synthetic jobs, serially and in parallel), and a format
added by a program (the toy sink in toy_sink/) is written by the same pipeline.

Golden digests: golden_outputs.txt. A deliberate change of an output updates them:
    ROCPROF_UPDATE_GOLDEN=1 ctest -R merge.sinks   (then review the diff of the file)"""

import os
import subprocess
import tempfile
import unittest

from merge_digest import output_digest
from traced_runs import run_merge as run

MERGE = os.environ["ROCPROF_TEST_MERGE"]
SYNTHETIC = os.environ["ROCPROF_TEST_SYNTHETIC"]
TOY_MERGE = os.environ["ROCPROF_TEST_TOY_MERGE"]
GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_outputs.txt")

# name -> synthetic_job arguments (after DIR): skewed clocks, user regions, GPU-aware
# collectives, a rank busy in long ranges, device counters sampled by two ranks.
JOBS = {
    "skewed": ["6", "3000", "3", "5000000", "--user-regions"],
    "gpu": ["5", "4000", "1", "-2000000", "--gpu-aware-allreduce", "--busy-rank=2:20"],
    "counters": ["4", "2000", "2", "1000000", "--counters=40"],
}
FORMATS = ("pftrace", "json", "h5", "otf2", "db", "hta")




def read_golden():
    golden = {}
    with open(GOLDEN) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                job, fmt, digest = line.split()
                golden[(job, fmt)] = digest
    return golden


class SinkTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="rocprof-sinks-")

    def tearDown(self):
        subprocess.run(["rm", "-rf", self.dir])

    def job(self, name):
        path = os.path.join(self.dir, name)
        run([SYNTHETIC, path] + JOBS[name])
        return path

    def test_built_in_formats_write_their_golden_outputs(self):
        golden = {} if os.environ.get("ROCPROF_UPDATE_GOLDEN") else read_golden()
        found = {}
        for name in JOBS:
            job = self.job(name)
            for fmt in FORMATS:
                for procs in (1, 2):
                    # Archives (.otf2, .hta) each have a directory of their name.
                    out = os.path.join(self.dir, f"{name}-{procs}-{fmt}.{fmt}")
                    run([MERGE, job, "-o", out, "-q"], procs)
                    digest = output_digest(out)
                    if procs == 1:
                        found[(name, fmt)] = digest
                    with self.subTest(job=name, format=fmt, processes=procs):
                        # In parallel, the serial output; serially, the golden one.
                        self.assertEqual(digest, found[(name, fmt)])
                        if golden:
                            self.assertEqual(digest, golden[(name, fmt)])
        if not golden:
            with open(GOLDEN, "w") as f:
                f.write("# rocprof-merge outputs of tests/merge/test_sinks.py's jobs "
                        "(merge_digest.py): job format sha256\n")
                for (name, fmt), digest in sorted(found.items()):
                    f.write(f"{name} {fmt} {digest}\n")

    def test_a_format_added_by_one_sink_file_is_written_serially_and_in_parallel(self):
        import h5py
        h5py.h5pl.prepend(os.environ["ROCPROF_TEST_PLUGIN_DIR"].encode())
        job = self.job("skewed")
        serial = os.path.join(self.dir, "serial.calls")
        parallel = os.path.join(self.dir, "parallel.calls")
        run([TOY_MERGE, job, "-o", serial])
        run([TOY_MERGE, job, "-o", parallel], procs=3)
        with open(serial) as f:
            lines = f.read().splitlines()
        with open(parallel) as f:
            self.assertEqual(f.read().splitlines(), lines)  # the parts, joined in order
        # The same calls, on the same corrected clock, as the merged tables hold.
        merged = os.path.join(self.dir, "job.h5")
        run([MERGE, job, "-o", merged, "-q"])
        with h5py.File(merged, "r") as f:
            strings = f["strings"].asstr()[:]
            mpi = f["mpi_calls"]
            expected = sorted(zip(mpi["rank"][:].tolist(), mpi["thread_id"][:].tolist(),
                                  strings[mpi["function"][:]].tolist(), mpi["begin_ns"][:].tolist(),
                                  mpi["end_ns"][:].tolist()))
        written = sorted((int(r), int(t), name, int(b), int(e))
                         for r, t, name, b, e in (line.split("\t") for line in lines))
        self.assertGreater(len(written), 0)
        self.assertEqual(written, expected)
        # Unknown to rocprof-merge itself: refused by the extension's list.
        refused = subprocess.run([MERGE, job, "-o", os.path.join(self.dir, "x.calls")],
                                 capture_output=True, text=True)
        self.assertEqual(refused.returncode, 2)
        self.assertIn("the outputs are .pftrace (Perfetto)", refused.stderr)


if __name__ == "__main__":
    unittest.main()
