#!/usr/bin/env bash
# Configures and builds rocprof-mpi into build/ (or $ROCPROF_BUILD_DIR): everything, or only
# the targets ROCPROF_BUILD_TARGETS names (space-separated; the word `tools` stands for the
# tools and every library they install: what the main job and scripts/install.sh need).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ROCPROF_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
tools="rocprof-mpi-launcher rocprof-merge rocprof-mpi rocprof-mpi-pmpi roctracer64 roctx64 \
rocprofiler-register rocprofiler64v2 rocprofiler-systems-user-library h5zstd_rocprof"
wanted=" ${ROCPROF_BUILD_TARGETS:-} "
read -r -a targets <<<"${wanted/ tools / $tools }"
cmake --build "$build" --parallel "$(nproc)" ${targets[@]:+--target "${targets[@]}"}
