#!/usr/bin/env bash
# The README's test command: install dependencies, build, run every test (including the
# ThreadSanitizer stress test). Ends with ctest's summary.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
cd "${ROCPROF_BUILD_DIR:-$root/build}"
ctest --output-on-failure --timeout 900 -j "$(nproc)"
