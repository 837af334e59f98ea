#!/usr/bin/env bash
# Installs rocprof-mpi into PREFIX (default /opt/rocprof-mpi): the packages it needs to build
# and run, a build of the tools and their libraries, then `cmake --install`. The tree is
# relocatable: bin/, lib/ (found through RUNPATHs relative to each file), include/, the CMake
# package, share/rocprof-mpi/{jobscripts,examples,modulefiles} and the manuals in
# share/doc/rocprof-mpi. Packages instead: `cpack -G "TGZ;DEB"` in the build directory.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="${1:-/opt/rocprof-mpi}"
bash "$root/scripts/install-deps.sh" --main-job
ROCPROF_BUILD_TARGETS="tools" bash "$root/scripts/build.sh"
cmake --install "${ROCPROF_BUILD_DIR:-$root/build}" --prefix "$prefix" >/dev/null
echo "rocprof-mpi is in $prefix: add $prefix/bin to PATH, or load" \
  "$prefix/share/rocprof-mpi/modulefiles/rocprof-mpi.lua"
