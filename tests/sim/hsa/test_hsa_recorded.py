"""An HSA application on the simulated HSA runtime under `rocprof-mpi --hsa-trace
--kernel-trace`: its kernel dispatches (named by their code object's symbols) and its copy
reach the rank file as HSA_OPS device work, with the code object and its kernels, and the
merge draws them on a GPU queue track."""

import json
import os
import subprocess
import tempfile
import unittest

import h5py

LAUNCHER = os.environ["ROCPROF_TEST_LAUNCHER"]
MERGE = os.environ["ROCPROF_TEST_MERGE"]
APP = os.environ["ROCPROF_TEST_HSA_APP"]
CODE_OBJECT = os.environ["ROCPROF_TEST_CODE_OBJECT"]
SIMULATED_HSA_DIR = os.environ["ROCPROF_TEST_SIMULATED_HSA_DIR"]
HSA_OPS = 1
ITERATIONS = 12


class HsaRecorded(unittest.TestCase):
    def test_dispatches_and_copies_reach_the_rank_file_and_the_timeline(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "trace")
            run = subprocess.run(
                [LAUNCHER, "--hsa-trace", "--kernel-trace", "--flush-interval", "10ms", "-d", out,
                 "--", APP, CODE_OBJECT, str(ITERATIONS), "300"],
                env=dict(os.environ, LD_LIBRARY_PATH=SIMULATED_HSA_DIR), capture_output=True,
                text=True, timeout=120)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertIn(f"hsa_app: {ITERATIONS} dispatches, copy correct", run.stdout)
            [name] = os.listdir(out)
            with h5py.File(os.path.join(out, name)) as f:
                strings = [s.decode() for s in f["strings"][:]]
                rows = [r for r in f["activities"][:] if r["domain"] == HSA_OPS]
                code_objects = f["code_objects"][:]
                symbols = {strings[s["name"]]: int(s["kernel_object"])
                           for s in f["kernel_symbols"][:]}
            # The code object, seen at a flush while it was loaded, and its two kernels.
            self.assertEqual(len(code_objects), 1)
            uri = strings[code_objects[0]["uri"]]
            self.assertTrue(uri.startswith("file://" + CODE_OBJECT + "#offset=0&size="), uri)
            self.assertEqual(set(symbols), {"stencil", "gate"})
            base, size = int(code_objects[0]["load_base"]), int(code_objects[0]["load_size"])
            self.assertTrue(all(base <= address < base + size for address in symbols.values()))
            kernels = [r for r in rows if r["op"] == 0]
            copies = [r for r in rows if r["op"] == 1]
            self.assertEqual(len(kernels), ITERATIONS)
            self.assertEqual({strings[r["kernel_name"]] for r in kernels}, {"stencil"})
            self.assertTrue(all(r["end_ns"] - r["begin_ns"] >= 40_000 for r in kernels))
            self.assertEqual([int(r["bytes"]) for r in copies], [1 << 20])
            self.assertTrue(all(r["correlation_id"] != 0 for r in rows),
                            "each tied to the call that issued it")

            trace = os.path.join(tmp, "trace.json")
            merged = subprocess.run([MERGE, out, "-o", trace], capture_output=True, text=True,
                                    timeout=120)
            self.assertEqual(merged.returncode, 0, merged.stderr)
            with open(trace) as f:
                events = json.load(f)["traceEvents"]
            threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
                       if e.get("ph") == "M" and e["name"] == "thread_name"}
            slices = [e for e in events if e.get("ph") == "X" and e["name"] == "stencil"]
            self.assertEqual(len(slices), ITERATIONS)
            self.assertTrue(all(threads[(e["pid"], e["tid"])].startswith("GPU 0 queue")
                                for e in slices))
            self.assertIn("stencil", merged.stdout)  # the kernel table of the summary


if __name__ == "__main__":
    unittest.main()
