"""rocprofiler-register with a test runtime and a test tool: no tool, a tool found each way
(linked, LD_PRELOAD, ROCP_TOOL_LIBRARIES), disabled, re-entrant, too many instances, bad
arguments. Statuses: 0 success, 1 no tools, 2 deadlock, 3 bad length, 4 unsupported,
5 invalid import, 7 too many instances."""

import os
import re
import subprocess
import tempfile
import unittest

APP = os.environ["ROCPROF_TEST_REGISTER_APP"]
APP_WITH_TOOL = os.environ["ROCPROF_TEST_REGISTER_APP_WITH_TOOL"]
TOOL = os.environ["ROCPROF_TEST_REGISTER_TOOL"]
ROCTX_APP = os.environ["ROCPROF_TEST_REGISTER_ROCTX_APP"]


class RegisterTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="register_test_")
        # The profiler library is loaded when a tool is present: its files go here.
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("ROCP", "LD_PRELOAD", "TEST_TOOL"))}
        self.env["ROCPROF_MPI_OUTPUT_DIR"] = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def run_app(self, *args, app=APP, **env):
        result = subprocess.run([app, *args], env=dict(self.env, **env), capture_output=True,
                                text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout

    def statuses(self, out):
        return [int(s) for s in re.findall(r"^status (\d+)", out, re.M)]

    def test_without_a_tool_the_tables_stay_with_the_runtime(self):
        out = self.run_app("twice")
        self.assertEqual(self.statuses(out), [1, 1])
        self.assertNotIn("configure", out)

    def check_tool_configured_once(self, out):
        # Every registration reaches the profiler; the tool is configured once, at the first,
        # and its attempt to register from inside is refused as a deadlock.
        self.assertEqual(self.statuses(out), [0, 0])
        self.assertEqual(out.count("configure version"), 1)
        self.assertIn("re-entered: 2", out)
        self.assertLess(out.index("configure version"), out.index("status 0"))

    def test_a_linked_tool(self):
        self.check_tool_configured_once(self.run_app("twice", app=APP_WITH_TOOL))

    def test_a_preloaded_tool(self):
        self.check_tool_configured_once(self.run_app("twice", LD_PRELOAD=TOOL))

    def test_a_tool_named_by_rocp_tool_libraries(self):
        self.check_tool_configured_once(self.run_app("twice", ROCP_TOOL_LIBRARIES=TOOL))

    def test_configure_result_initialize_then_finalize_at_exit(self):
        out = self.run_app("twice", app=APP_WITH_TOOL)
        lines = out.splitlines()
        # Configured, initialized with the data it returned (and the client id it was given,
        # still valid), then both registrations, then finalized once as the process exits.
        self.assertEqual(lines.count("initialize data 42 client rocprof-mpi"), 1)
        self.assertEqual(lines.count("finalize data 42"), 1)
        order = [next(i for i, l in enumerate(lines) if l.startswith(p))
                 for p in ("configure version", "initialize", "status 0", "finalize")]
        self.assertEqual(order, sorted(order))
        self.assertEqual(lines[-1], "finalize data 42")

    def test_a_tool_may_finalize_itself_early(self):
        out = self.run_app("twice", app=APP_WITH_TOOL, TEST_TOOL_FINALIZE_EARLY="1")
        lines = out.splitlines()
        self.assertEqual(lines.count("finalize data 42"), 1)
        self.assertLess(lines.index("finalize data 42"),
                        next(i for i, l in enumerate(lines) if l.startswith("status 0")))

    def test_a_tool_whose_initialize_fails_is_not_finalized(self):
        out = self.run_app("twice", app=APP_WITH_TOOL, TEST_TOOL_INIT_FAILS="1")
        self.assertIn("initialize data 42", out)
        self.assertNotIn("finalize", out)
        self.assertEqual(self.statuses(out), [0, 0])

    def test_disabled(self):
        out = self.run_app("twice", app=APP_WITH_TOOL, ROCPROFILER_REGISTER_ENABLED="0")
        self.assertEqual(self.statuses(out), [1, 1])
        self.assertNotIn("configure", out)

    def test_at_most_eight_instances(self):
        self.assertEqual(self.statuses(self.run_app("nine")), [1] * 8 + [7])

    def test_bad_arguments(self):
        self.assertEqual(self.statuses(self.run_app("bad")), [3, 4, 5])

    def test_registrations_are_reported(self):
        out = self.run_app("iterate")
        self.assertIn("registered hip version 50200 tables 1", out)

    def test_roctx_registers_itself_so_a_tool_is_found_without_environment(self):
        out = self.run_app(app=ROCTX_APP)
        # When libroctx64 loaded (before main), the tool was configured, once.
        self.assertEqual(out.count("configure version"), 1)
        self.assertLess(out.index("configure version"), out.index("main"))
        self.assertIn("registered roctx version 40100 tables 1", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
