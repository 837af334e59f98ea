#!/usr/bin/env bash
# The README's test command: install dependencies, build, run every test (including the
# ThreadSanitizer stress test). Ends with ctest's summary. With --quick: the fast suites only
# (labels unit, format, merge, abi, style: the GoogleTest suites and the style checks), for
# the edit-test loop.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
cd "${ROCPROF_BUILD_DIR:-$root/build}"
if [ "${1:-}" = "--quick" ]; then
  ctest --output-on-failure --timeout 300 -j "$(nproc)" -L '^(unit|format|merge|abi|style)$'
else
  ctest --output-on-failure --timeout 900 -j "$(nproc)"
fi
