"""rocprof-merge on damaged input and in hostile places (issue 23): a damaged rank file is one
clear error and leaves nothing behind; outputs appear whole or not at all; temporary files
never follow a planted link; clock offsets of hours either way align; usage errors and
incomplete ranks are told; messages of many threads match."""

import os
import shutil
import subprocess
import tempfile
import unittest

MERGE = os.environ["ROCPROF_TEST_MERGE"]
SYNTHETIC = os.environ["ROCPROF_TEST_SYNTHETIC"]
# h5py reads the merged .h5's zstd-compressed chunks through our filter plugin.
if os.environ.get("ROCPROF_TEST_PLUGIN_DIR"):
    os.environ["HDF5_PLUGIN_PATH"] = os.environ["ROCPROF_TEST_PLUGIN_DIR"]


def damage_string_heap(path):
    """Makes the size of the first object of the file's global heap (the string table's
    strings) absurd: HDF5 crashes reading it (SIGSEGV in H5HG_read)."""
    with open(path, "r+b") as f:
        data = f.read()
        heap = data.find(b"GCOL")  # the collection's signature; its objects follow 16 bytes on
        assert heap >= 0, path
        f.seek(heap + 16 + 8 + 5)  # a high byte of the first object's size
        f.write(b"\x29")


class MergeReliabilityTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="merge_reliability_")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def synthetic(self, name="job", ranks=4, events=2000, *extra):
        path = os.path.join(self.dir, name)
        subprocess.run([SYNTHETIC, path, str(ranks), str(events), *map(str, extra)], check=True,
                       capture_output=True)
        return path

    def merge(self, *args, cwd=None):
        return subprocess.run([MERGE, *args], capture_output=True, text=True, timeout=300,
                              cwd=cwd)

    def leftovers(self, keep):
        return sorted(set(os.listdir(self.dir)) - set(keep))

    def test_a_rank_whose_first_rows_are_damaged_stops_every_parallel_merge(self):
        # Every output in parallel, with rank 3 (the last process's) unreadable from its first
        # API-call rows: the JSON origin, agreed on by all processes before writing, reads
        # them. The process that finds it says why; none waits for the others for ever.
        import h5py
        job = self.synthetic("job", 4, 3000, "--gpu-aware-allreduce")
        damaged = os.path.join(job, "3.h5")
        with h5py.File(damaged, "r") as f:
            chunk = f["api_calls"].id.get_chunk_info(0)
        with open(damaged, "r+b") as f:
            f.seek(chunk.byte_offset + 8)
            f.write(b"\x5a" * (chunk.size - 8))
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        for ext in (".json", ".pftrace", ".h5", ".otf2"):
            with self.subTest(output=ext):
                result = subprocess.run(
                    ["mpirun", "--oversubscribe", "-np", "2", MERGE, job, "-o",
                     os.path.join(self.dir, "out" + ext), "-q"],
                    env=env, capture_output=True, text=True, timeout=120)
                self.assertEqual(result.returncode, 1, result.stderr)
                self.assertIn(f"{damaged}: cannot read rows", result.stderr)
                self.assertIn("table api_calls", result.stderr)
                self.assertNotIn("another merge process failed", result.stderr)
                self.assertEqual(self.leftovers(["job"]), [])

    def test_a_damaged_string_heap_is_one_error_not_a_crash(self):
        # The issue's file: one byte of rank 2's global heap changed, which made HDF5 crash
        # (SIGSEGV in H5HG_read) inside the merge and leave its message spill behind.
        job = self.synthetic("rep", 4, 20000)
        damaged = os.path.join(job, "2.h5")
        damage_string_heap(damaged)
        result = self.merge("rep", "-o", "rep.pftrace", cwd=self.dir)
        self.assertEqual(result.returncode, 1, result.stderr)
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertTrue(lines[0].startswith("rocprof-merge: rep/2.h5: damaged: "), lines[0])
        self.assertIn("--skip-bad", lines[0])
        self.assertEqual(self.leftovers(["rep"]), [])
        # Skipped with --skip-bad (its rank then has no file): the other ranks merge.
        skipped = self.merge("rep", "-o", "rep.pftrace", "--skip-bad", "--allow-missing", "-q",
                             cwd=self.dir)
        self.assertEqual(skipped.returncode, 0, skipped.stderr)
        self.assertIn("rocprof-merge: skipped rep/2.h5: damaged: ", skipped.stderr)
        self.assertEqual(self.leftovers(["rep"]), ["rep.pftrace"])

    def test_skip_bad_leaves_out_a_file_whose_chunk_is_damaged(self):
        # A chunk the check at open does not read (the last of rank 2's MPI calls), its bytes
        # overwritten: the merge finds it halfway and stops, naming the file and --skip-bad.
        # With --skip-bad every chunk is read at the check: the file is left out with a
        # warning, and the merge equals the one of the job without that file, serial and
        # parallel.
        import h5py
        job = self.synthetic("job", 4, 20000)
        damaged = os.path.join(job, "2.h5")
        with h5py.File(damaged, "r") as f:
            calls = f["mpi_calls"].id
            chunk = calls.get_chunk_info(calls.get_num_chunks() - 1)
        without = self.synthetic("without", 4, 20000)
        os.remove(os.path.join(without, "2.h5"))
        reference = os.path.join(self.dir, "reference.pftrace")
        result = self.merge(without, "-o", reference, "--allow-missing", "-q", "--no-summary")
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(damaged, "r+b") as f:
            f.seek(chunk.byte_offset + chunk.size // 2)
            f.write(b"\x5a" * 16)
        out = os.path.join(self.dir, "out.pftrace")
        stopped = self.merge(job, "-o", out, "-q", "--no-summary")
        self.assertEqual(stopped.returncode, 1, stopped.stderr)
        self.assertIn(f"{damaged}: cannot read rows", stopped.stderr)
        self.assertIn("--skip-bad", stopped.stderr)
        self.assertEqual(self.leftovers(["job", "without", "reference.pftrace"]), [])
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        for processes in (1, 2):
            with self.subTest(processes=processes):
                command = [MERGE, job, "-o", out, "--skip-bad", "-q", "--no-summary"]
                if processes > 1:
                    command = ["mpirun", "--oversubscribe", "-np", str(processes)] + command
                skipped = subprocess.run(command, env=env, capture_output=True, text=True,
                                         timeout=300)
                self.assertEqual(skipped.returncode, 0, skipped.stderr)
                self.assertIn(f"rocprof-merge: skipped {damaged}: cannot read rows",
                              skipped.stderr)
                with open(out, "rb") as f, open(reference, "rb") as g:
                    self.assertEqual(f.read(), g.read())

    def test_a_chunk_missing_from_its_index_is_named_not_read_as_zeros(self):
        # The bit-flip run's case: damage in a table's chunk index (a v1 B-tree, which has no
        # checksum) hid its only chunk, and HDF5 read the rows as zeros; the merge went on
        # with exit 0 and a different timeline. Here the index's first key is moved so that
        # the lookup misses the chunk.
        import struct
        import h5py
        job = self.synthetic("job", 4, 2000)
        damaged = os.path.join(job, "1.h5")
        with h5py.File(damaged, "r") as f:
            chunk = f["mpi_calls"].id.get_chunk_info(0).byte_offset
        with open(damaged, "r+b") as f:
            data = f.read()
            at = data.find(b"TREE")
            while at >= 0:
                # Node type 1 (chunks), then level, entries, two siblings; a key (size, filter
                # mask, two offsets) and the first chunk's address.
                if data[at + 4] == 1 and struct.unpack_from("<Q", data, at + 48)[0] == chunk:
                    break
                at = data.find(b"TREE", at + 4)
            self.assertGreaterEqual(at, 0, "no chunk index points at the chunk")
            f.seek(at + 32)
            f.write(struct.pack("<Q", 1 << 40))
        with h5py.File(damaged, "r") as f:  # stock HDF5 indeed reads zeros
            self.assertEqual(int(f["mpi_calls"]["begin_ns"].max()), 0)
        result = self.merge(job, "-o", os.path.join(self.dir, "out.pftrace"), "-q")
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn(f"{damaged}: table mpi_calls claims", result.stderr)
        self.assertIn("is missing (damaged chunk index?)", result.stderr)

    def test_files_that_hdf5_crashes_on_cost_only_themselves(self):
        # Among many files checked by one helper process, the damaged ones are told (the
        # helper that died on one is replaced for the files after it) and the others merge.
        job = self.synthetic("many", 40, 200)
        for rank in (3, 17, 39):
            damage_string_heap(os.path.join(job, f"{rank}.h5"))
        env = dict(os.environ, ROCPROF_MERGE_CHECK_HELPERS="1")
        result = subprocess.run([MERGE, job, "-o", os.path.join(self.dir, "many.json"),
                                 "--skip-bad", "--allow-missing", "-q"], env=env,
                                capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        for rank in (3, 17, 39):
            self.assertIn(f"rocprof-merge: skipped {job}/{rank}.h5: damaged: ", result.stderr)
        self.assertIn("3 of the job's 40 ranks have no file (ranks 3,17,39)", result.stderr)
    def test_two_merges_writing_one_output_leave_a_whole_file(self):
        # Both used to write into one file at once and exit 0, leaving it damaged (short, with
        # a bad tag inside). Each now writes its own staging file and moves it into place.
        job = self.synthetic("job", 4, 20000)
        for extension in (".pftrace", ".json", ".h5"):
            with self.subTest(output=extension):
                alone = os.path.join(self.dir, "alone" + extension)
                self.assertEqual(self.merge(job, "-o", alone, "-q").returncode, 0)
                same = os.path.join(self.dir, "same" + extension)
                merges = [subprocess.Popen([MERGE, job, "-o", same, "-q"],
                                           stderr=subprocess.PIPE, text=True) for _ in range(2)]
                results = [(m.wait(timeout=300), m.stderr.read()) for m in merges]
                for merge in merges:
                    merge.stderr.close()
                self.assertEqual([code for code, _ in results], [0, 0], results)
                if extension == ".h5":
                    import h5py
                    def shapes(path):
                        found = {}
                        with h5py.File(path, "r") as f:
                            f.visititems(lambda name, item: found.__setitem__(
                                name, getattr(item, "shape", None)))
                        return found
                    self.assertEqual(shapes(alone), shapes(same))
                else:
                    with open(alone, "rb") as a, open(same, "rb") as b:
                        self.assertTrue(a.read() == b.read(), "the output differs from a merge's alone")
                self.assertEqual(self.leftovers(["job", "alone" + extension, "same" + extension]),
                                 [])
                os.remove(alone)
                os.remove(same)

    def test_temporary_files_never_follow_a_planted_link(self):
        # A link planted where a temporary file used to be named (OUT.messages.0, and a
        # parallel merge's OUT.messages.1 and OUT.part1): the victim was overwritten. The
        # temporary files are now new files under random names, created exclusively.
        job = self.synthetic("job", 4, 2000)
        victim = os.path.join(self.dir, "victim")
        for extension in (".pftrace", ".json", ".h5"):
            with self.subTest(output=extension):
                with open(victim, "w") as f:
                    f.write("the user's data\n")
                out = os.path.join(self.dir, "out" + extension)
                planted = [out + ".messages.0", out + ".messages.1", out + ".part1"]
                for link in planted:
                    os.symlink(victim, link)
                serial = self.merge(job, "-o", out, "-q")
                self.assertEqual(serial.returncode, 0, serial.stderr)
                env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
                           OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
                parallel = subprocess.run(["mpirun", "--oversubscribe", "-np", "2", MERGE, job,
                                           "-o", out, "-q"], env=env, capture_output=True,
                                          text=True, timeout=300)
                self.assertEqual(parallel.returncode, 0, parallel.stderr)
                with open(victim) as f:
                    self.assertEqual(f.read(), "the user's data\n")
                for link in planted:
                    self.assertTrue(os.path.islink(link), link)
                    os.remove(link)
                # A parallel .h5 is the output and the directory of parts it links.
                linked = ["out.h5.parts"] if extension == ".h5" else []
                self.assertEqual(self.leftovers(["job", "victim", "out" + extension, *linked]),
                                 [])
                os.remove(out)
                for directory in linked:
                    shutil.rmtree(os.path.join(self.dir, directory))

    def test_clock_offsets_of_hours_either_way_align(self):
        # Rank 2's clock samples wrong by 3 hours, either way (the issue's command with both
        # signs): a negative one wrapped around (largest shift 18446733273709544 us, .h5 times
        # near 2^64, JSON times negative). Both now correct by 3 hours and stay in range.
        import h5py
        import json
        hours = 3 * 3600 * 10**9
        for skew in (-hours, hours):
            with self.subTest(skew=skew):
                job = self.synthetic(f"sk{skew}", 4, 20000, 2, skew)
                out = os.path.join(self.dir, f"sk{skew}")
                result = self.merge(job, "-o", out + ".json", "--no-summary")
                self.assertEqual(result.returncode, 0, result.stderr)
                shift = float(result.stdout.split("largest shift ")[1].split(" us")[0])
                self.assertAlmostEqual(shift, hours / 1000, delta=1000)
                with open(out + ".json") as f:
                    events = json.load(f)["traceEvents"]
                times = [e["ts"] for e in events if "ts" in e]
                self.assertGreaterEqual(min(times), 0)
                self.assertLess(max(times), 2 * hours / 1000)
                # Once corrected, the ranks' last compute ranges coincide again.
                last = {}
                for e in events:
                    if e.get("name") == "compute" and e["ph"] == "X":
                        last[e["pid"]] = e["ts"]
                self.assertEqual(sorted(last), [0, 1, 2, 3])
                self.assertLess(max(last.values()) - min(last.values()), 100)
                self.assertEqual(self.merge(job, "-o", out + ".h5", "-q").returncode, 0)
                with h5py.File(out + ".h5", "r") as f:
                    for table in ("mpi_calls", "ranges"):
                        begins = f[table]["begin_ns"][:]
                        self.assertLess(int(begins.max()), 2**62, table)
                        self.assertLess(int(begins.max()) - int(begins.min()), 2 * hours, table)

    def test_usage_errors_are_one_prefixed_line_and_exit_2(self):
        # They exited 106/109/114 with CLI11's text, without the prefix the manual promises.
        job = self.synthetic("job", 2, 200)
        out = os.path.join(self.dir, "out.json")
        for args in ([], [job], [job, "-o"], [job, "-o", out, "--no-such-option"],
                     [job, "-o", out, "--summary-csv"]):
            with self.subTest(args=args):
                result = self.merge(*args)
                self.assertEqual(result.returncode, 2, result.stderr)
                lines = result.stderr.splitlines()
                self.assertEqual(len(lines), 1, result.stderr)
                self.assertTrue(lines[0].startswith("rocprof-merge: "), lines[0])
                self.assertEqual(result.stdout, "")
        helped = self.merge("--help")
        self.assertEqual(helped.returncode, 0, helped.stderr)
        self.assertIn("Usage: rocprof-merge DIR|FILES... -o OUTPUT.pftrace", helped.stdout)
        self.assertEqual(helped.stdout.count("Usage:"), 1)  # ours, not CLI11's as well

    def test_incomplete_files_and_dropped_records_are_told_and_counted(self):
        # The merge said nothing of ranks whose file was never finished (complete = 0) or
        # whose recorder dropped records (records_dropped): one line per cause, and counts in
        # the summary.
        import h5py
        job = self.synthetic("job", 4, 2000)
        healthy = self.merge(job, "-o", os.path.join(self.dir, "healthy.json"))
        self.assertEqual(healthy.returncode, 0, healthy.stderr)
        self.assertNotIn("warning", healthy.stderr)
        self.assertIn("Input: 4 ranks, 0 incomplete rank files, 0 records dropped", healthy.stdout)
        with h5py.File(os.path.join(job, "1.h5"), "r+") as f:
            f.attrs.modify("complete", 0)
        for rank, dropped in ((2, 100), (3, 23)):
            with h5py.File(os.path.join(job, f"{rank}.h5"), "r+") as f:
                f.attrs.modify("records_dropped", dropped)
        result = self.merge(job, "-o", os.path.join(self.dir, "out.json"))
        self.assertEqual(result.returncode, 0, result.stderr)
        warnings = [line for line in result.stderr.splitlines() if "warning" in line]
        self.assertEqual(len(warnings), 2, result.stderr)
        self.assertTrue(warnings[0].startswith(
            "rocprof-merge: warning: 1 of 4 rank files incomplete (rank 1: "), warnings[0])
        self.assertTrue(warnings[1].startswith(
            "rocprof-merge: warning: 123 records dropped by the recorder (ranks 2,3: "),
            warnings[1])
        self.assertIn("Input: 4 ranks, 1 incomplete rank files, 123 records dropped",
                      result.stdout)
        # Told even when quiet: the timeline lacks something.
        quiet = self.merge(job, "-o", os.path.join(self.dir, "out.json"), "-q")
        self.assertEqual(quiet.returncode, 0, quiet.stderr)
        self.assertEqual(len(quiet.stderr.splitlines()), 2, quiet.stderr)

    def traced_threads(self, name, *args):
        """mpi_thread_messages ARGS on 2 ranks under rocprof-mpi --mpi-trace: the trace dir."""
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ROCPROF_MPI_", "LD_PRELOAD"))}
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        traced = subprocess.run(["mpirun", "--oversubscribe", "-np", "2",
                                 os.environ["ROCPROF_TEST_LAUNCHER"], "--mpi-trace", "-d", name,
                                 "--", os.environ["ROCPROF_TEST_THREAD_MESSAGES"],
                                 *map(str, args)],
                                cwd=self.dir, env=env, capture_output=True, text=True,
                                timeout=300)
        self.assertEqual(traced.returncode, 0, traced.stderr)
        return os.path.join(self.dir, name)

    def test_messages_of_threads_sharing_a_stream_match_whatever_thread_sent_them(self):
        # MPI_THREAD_MULTIPLE: 4 threads per rank on one tag, so each (direction, tag) stream
        # carries every thread's messages (8,000 each way), blocking and non-blocking. A
        # rank's file holds its threads' calls block by block: matched in file order, the
        # wrong sends met the receives (receives before their sends, "corrected" by
        # milliseconds). Matched in the order the calls were posted, all 16,000 pair up.
        import bisect
        import collections
        import json
        trace = self.traced_threads("shared", 4, 2000, 1)
        out = os.path.join(self.dir, "shared.json")
        result = self.merge(trace, "-o", out, "--no-summary")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("16000 messages matched; receives before their send: 0 after clock "
                      "alignment, 0 after correction", result.stdout)
        self.assertNotIn("unmatched", result.stderr)
        # The flows drawn pair the same messages: a flow's receive (the call its end lies in)
        # does not end before its send began. Numbered in file order, most did.
        with open(out) as f:
            events = json.load(f)["traceEvents"]
        calls = collections.defaultdict(list)
        for e in events:
            if e["ph"] == "X":
                calls[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e.get("dur", 0)))
        for spans in calls.values():
            spans.sort()
        sent = {e["id"]: e["ts"] for e in events if e["ph"] == "s"}
        backward = 0
        for e in events:
            if e["ph"] != "f":
                continue
            spans = calls[(e["pid"], e["tid"])]
            i = bisect.bisect_right(spans, (e["ts"], float("inf"))) - 1
            while i >= 0 and not spans[i][0] <= e["ts"] <= spans[i][1]:
                i -= 1
            if i >= 0 and spans[i][1] < sent[e["id"]]:
                backward += 1
        self.assertEqual(len(sent), 16000)
        self.assertLess(backward, 16)  # a few: calls that end within a rounding of the send

    def test_every_message_of_many_threads_is_matched_or_told(self):
        # The job: 4 threads a rank, a tag each, 2,000 messages per (direction, tag)
        # stream, 16,000 in all; 4,000 were matched and the rest passed over in silence.
        # Whatever stays unmatched is now said, with why.
        import re
        trace = self.traced_threads("own", 4, 2000, 4)
        result = self.merge(trace, "-o", os.path.join(self.dir, "own.json"), "--no-summary")
        self.assertEqual(result.returncode, 0, result.stderr)
        matched = int(re.search(r"(\d+) messages matched", result.stdout).group(1))
        told = re.search(r"(\d+) messages left unmatched: ", result.stderr)
        self.assertEqual(matched + (int(told.group(1)) if told else 0), 16000,
                         result.stdout + result.stderr)


if __name__ == "__main__":
    unittest.main()
