#!/usr/bin/env bash
# Configures and builds rocprof-mpi into build/ (or $ROCPROF_BUILD_DIR): everything, or only
# the targets ROCPROF_BUILD_TARGETS names (space-separated; the main job builds what it runs).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ROCPROF_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
read -r -a targets <<<"${ROCPROF_BUILD_TARGETS:-}"
cmake --build "$build" --parallel "$(nproc)" ${targets[@]:+--target "${targets[@]}"}
