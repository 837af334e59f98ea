"""folder_graph.py on this repository (it must be layered and free of loops) and on small
trees made to break each rule, so that the check is seen to fail when it should."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import folder_graph  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class FolderGraphTest(unittest.TestCase):
    def tree(self, files):
        """A repository of `files` ({path: text}) in a temporary folder."""
        tmp = tempfile.TemporaryDirectory(prefix="folder_graph_")
        self.addCleanup(tmp.cleanup)
        for path, text in files.items():
            full = os.path.join(tmp.name, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(text)
        return tmp.name

    def test_this_repository_is_layered_and_has_no_loops(self):
        self.assertEqual(folder_graph.check(ROOT), [])

    def test_merge_folders_including_each_other_are_a_loop(self):
        root = self.tree({
            "merge/events/a.hpp": '#include "merge/causality/b.hpp"\n',
            "merge/causality/b.hpp": '#include "lib/format/c.hpp"\n',
            "merge/causality/b.cpp": '#include "merge/export/d.hpp"\n',
            "merge/export/d.hpp": '#  include "merge/events/a.hpp"\n',
            "lib/format/c.hpp": "",
        })
        problems = folder_graph.check(root)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("folders include each other in a loop: merge/causality -> merge/export "
                      "(merge/causality/b.cpp -> merge/export/d.hpp); merge/export -> "
                      "merge/events", problems[0])
        self.assertIn("merge/events -> merge/causality", problems[0])

    def test_lib_including_merge_or_mpi_breaks_the_layers(self):
        root = self.tree({
            "lib/core/a.cpp": '#include "merge/events/b.hpp"\n#include "mpi/decode/c.hpp"\n',
            "merge/events/b.hpp": "",
            "mpi/decode/c.hpp": '#include "merge/events/b.hpp"\n',
            "cli/main.cpp": '#include "merge/events/b.hpp"\n#include "mpi/decode/c.hpp"\n',
        })
        self.assertEqual(folder_graph.check(root), [
            "lib/ must not include merge/: lib/core/a.cpp -> merge/events/b.hpp",
            "lib/ must not include mpi/: lib/core/a.cpp -> mpi/decode/c.hpp",
            "mpi/ must not include merge/: mpi/decode/c.hpp -> merge/events/b.hpp",
        ])

    def test_system_and_sibling_includes_are_not_edges(self):
        root = self.tree({
            "lib/core/a.cpp": '#include <merge/events/b.hpp>\n#include "a.hpp"\n'
                              '#include "roctracer/roctracer.h"\n',
            "lib/core/a.hpp": "",
        })
        self.assertEqual(folder_graph.check(root), [])


if __name__ == "__main__":
    unittest.main()
