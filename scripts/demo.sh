#!/usr/bin/env bash
# The README's main job: install dependencies, build, and run the bundled example, which
# traces its own ROC-TX annotations through the roctracer API and prints what it recorded.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
exec "${ROCPROF_BUILD_DIR:-$root/build}/tests/roctracer_sample"
