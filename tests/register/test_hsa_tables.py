"""HSA API tracing through the runtime's API table, with a simulated HSA runtime (the real
HsaApiTable of Debian's hsa_api_trace.h; no GPU). The table reaches the tracer through
rocprofiler-register or HSA_TOOLS_LIB's OnLoad; a roctracer tool then sees every call, in
order, with its arguments and result, and the recorder writes them to the rank file."""

import json
import os
import re
import subprocess
import tempfile
import unittest

APP = os.environ["ROCPROF_TEST_SIM_HSA_APP"]
TOOL = os.environ["ROCPROF_TEST_HSA_TRACE_TOOL"]
ROCTRACER = os.environ["ROCPROF_TEST_ROCTRACER"]
MERGE = os.environ["ROCPROF_TEST_MERGE"]
HSA_TRACE_HEADER = "/usr/include/hsa/hsa_api_trace.h"

# The calls the program makes after hsa_init (the first hsa_init runs before any tool has the
# table, as in the ROCm runtime), with their nesting: agent info is asked from inside the
# agent iteration's callback.
EXPECTED = [
    ("enter", "hsa_system_get_info"), ("exit", "hsa_system_get_info"),
    ("enter", "hsa_iterate_agents"),
    ("enter", "hsa_agent_get_info"), ("exit", "hsa_agent_get_info"),
    ("enter", "hsa_agent_get_info"), ("exit", "hsa_agent_get_info"),
    ("exit", "hsa_iterate_agents"),
    ("enter", "hsa_signal_store_relaxed"), ("exit", "hsa_signal_store_relaxed"),
    ("enter", "hsa_signal_load_relaxed"), ("exit", "hsa_signal_load_relaxed"),
    ("enter", "hsa_amd_memory_async_copy_rect"), ("exit", "hsa_amd_memory_async_copy_rect"),
    ("enter", "hsa_ext_image_get_capability"), ("exit", "hsa_ext_image_get_capability"),
    ("enter", "hsa_shut_down"), ("exit", "hsa_shut_down"),
]
# Entries the simulated runtime fills in its tables (the others stay empty and untouched).
IMPLEMENTED = 9


def core_table_members():
    """Function members of CoreApiTable in declaration order, by a plain text scan."""
    with open(HSA_TRACE_HEADER, encoding="utf-8") as f:
        text = f.read()
    body = re.search(r"struct\s+CoreApiTable\s*\{(.*?)\n\};", text, re.S).group(1)
    return re.findall(r"decltype\((\w+)\)", body)


class HsaTableTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="hsa_tables_")
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("ROCP", "LD_PRELOAD", "HSA_", "SIM_HSA"))}
        self.env["ROCPROF_MPI_OUTPUT_DIR"] = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def run_app(self, **env):
        result = subprocess.run([APP], env=dict(self.env, **env), capture_output=True,
                                text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout

    @staticmethod
    def app_lines(out):
        return [line for line in out.splitlines()
                if line.startswith("app: ") and not line.startswith("app: wrapped")]

    @staticmethod
    def wrapped(out):
        return int(re.search(r"^app: wrapped (\d+)$", out, re.M).group(1))

    @staticmethod
    def tool_calls(out):
        return re.findall(r"^tool: (enter|exit) (\w+) corr (\d+)(.*)$", out, re.M)

    def check_traced(self, out, expected=EXPECTED):
        calls = self.tool_calls(out)
        self.assertEqual([(phase, name) for phase, name, _, _ in calls], expected)
        # Enter and exit of one call share a correlation id; different calls never do.
        open_calls, ids = [], set()
        for phase, name, corr, _ in calls:
            if phase == "enter":
                self.assertNotIn(corr, ids)
                ids.add(corr)
                open_calls.append((name, corr))
            else:
                self.assertEqual(open_calls.pop(), (name, corr))
        detail = {(phase, name): rest for phase, name, _, rest in calls}
        if ("enter", "hsa_system_get_info") in detail:
            # HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY is 3 in hsa.h; the result is HSA_STATUS_SUCCESS.
            self.assertEqual(detail[("enter", "hsa_system_get_info")].strip(), "attribute 3")
            self.assertIn("status 0", detail[("exit", "hsa_system_get_info")])
        if ("exit", "hsa_signal_load_relaxed") in detail:
            self.assertIn("result 7", detail[("exit", "hsa_signal_load_relaxed")])
        if ("enter", "hsa_amd_memory_async_copy_rect") in detail:
            # The copy of the pointed-to range taken before the call.
            self.assertIn("range 4x5x6", detail[("enter", "hsa_amd_memory_async_copy_rect")])
        agents = [rest for phase, name, _, rest in calls
                  if (phase, name) == ("enter", "hsa_agent_get_info")]
        if agents:
            self.assertEqual([a.strip() for a in agents], ["agent 1", "agent 2"])

    def test_without_a_tool_the_table_is_untouched(self):
        out = self.run_app()
        self.assertEqual(self.wrapped(out), 0)
        self.assertEqual(self.tool_calls(out), [])
        self.assertIn("app: iterate 0 agents 2", out)
        self.assertIn("app: signal 7", out)

    def test_a_tool_found_through_rocprofiler_register_sees_every_call(self):
        plain = self.run_app()
        out = self.run_app(ROCP_TOOL_LIBRARIES=TOOL)
        self.assertEqual(self.wrapped(out), IMPLEMENTED)
        self.check_traced(out)
        # The tool was configured before the first traced call, once.
        self.assertEqual(out.count("tool: configure"), 1)
        self.assertLess(out.index("tool: configure"), out.index("tool: enter"))
        # What the program got from the runtime did not change.
        self.assertEqual(self.app_lines(out), self.app_lines(plain))

    def test_a_preloaded_tool(self):
        out = self.run_app(LD_PRELOAD=TOOL)
        self.assertEqual(self.wrapped(out), IMPLEMENTED)
        self.check_traced(out)

    def test_hsa_tools_lib_onload_without_rocprofiler_register(self):
        out = self.run_app(HSA_TOOLS_LIB=ROCTRACER, SIM_HSA_NO_REGISTER="1", LD_PRELOAD=TOOL,
                           HSA_TRACE_TOOL_AT_LOAD="1")
        self.assertNotIn("tool: configure", out)
        self.assertEqual(self.wrapped(out), IMPLEMENTED)
        self.check_traced(out)

    def test_both_ways_at_once_wrap_the_table_once(self):
        # The table handed over twice (OnLoad, then rocprofiler-register) is wrapped once: each
        # call is reported once, not twice.
        out = self.run_app(HSA_TOOLS_LIB=ROCTRACER, ROCP_TOOL_LIBRARIES=TOOL)
        self.assertEqual(self.wrapped(out), IMPLEMENTED)
        self.check_traced(out)

    def test_a_smaller_runtime_table_is_wrapped_only_where_it_has_entries(self):
        # An older runtime whose core table ends before hsa_iterate_agents: only the entries
        # inside its declared size are wrapped, nothing past it is read or written.
        members = core_table_members()
        cut = members.index("hsa_iterate_agents")
        version_bytes, pointer_bytes = 16, 8
        out = self.run_app(ROCP_TOOL_LIBRARIES=TOOL,
                           SIM_HSA_CORE_TABLE_BYTES=str(version_bytes + pointer_bytes * cut))
        kept = {"hsa_init", "hsa_shut_down", "hsa_system_get_info"} & set(members[:cut])
        # Plus the AMD extension and image extension entries, whose tables are whole.
        self.assertEqual(self.wrapped(out), len(kept) + 2)
        visible = {"hsa_system_get_info", "hsa_shut_down", "hsa_amd_memory_async_copy_rect",
                   "hsa_ext_image_get_capability"}
        self.check_traced(out, [call for call in EXPECTED if call[1] in visible])
        self.assertIn("app: iterate 0 agents 2", out)

    def test_the_recorder_writes_the_calls_to_the_rank_file(self):
        out = self.run_app(ROCP_TOOL_LIBRARIES=TOOL, ROCPROF_MPI_DOMAINS="hsa_api")
        self.check_traced(out)
        files = [f for f in os.listdir(self.tmp.name) if f.endswith(".h5")]
        self.assertEqual(len(files), 1, files)
        merged = os.path.join(self.tmp.name, "t.json")
        result = subprocess.run([MERGE, os.path.join(self.tmp.name, files[0]), "-o", merged,
                                 "-q"], capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(merged, encoding="utf-8") as f:
            trace = json.load(f)
        events = trace["traceEvents"] if isinstance(trace, dict) else trace
        calls = sorted((e["ts"], e["name"]) for e in events
                       if e.get("ph") == "X" and e.get("name", "").startswith("hsa_"))
        entered = [name for phase, name in EXPECTED if phase == "enter"]
        # Calls start in program order (a nested call starts after its parent).
        self.assertEqual([name for _, name in calls], entered)
        # The summary of a process without MPI says so rather than print an empty table.
        summary = subprocess.run([MERGE, os.path.join(self.tmp.name, files[0]), "-o",
                                  os.path.join(self.tmp.name, "s.json")],
                                 capture_output=True, text=True, timeout=120)
        self.assertEqual(summary.returncode, 0, summary.stderr)
        self.assertIn("MPI: no MPI calls recorded in 1 process", summary.stdout)
        self.assertNotIn("imbalance", summary.stdout)


if __name__ == "__main__":
    unittest.main()
