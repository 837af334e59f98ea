#!/usr/bin/env bash
# Packs what the merge benchmark (merge_throughput.py) needs into one folder, so that it runs
# on another x86-64 Linux machine that has Open MPI 4.x and Python 3 but not this project's
# dependencies: a lent benchmark machine, a cluster's compute node.
#
#   bash tests/bench/pack_merge_bench.sh BUILD_DIR PACK_DIR
#   PACK_DIR/run.sh [REPEATS] [SHAPES...] [merge_throughput.py options]   # on the other machine
#
# The binaries are stripped. The libraries they load are carried too, except the C and C++
# runtimes and Open MPI's own: those come from the other machine, whose mpirun must match
# its libmpi. run.sh keeps the jobs and outputs in $TMPDIR, or /dev/shm if that is unset.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR PACK_DIR" >&2
  exit 2
fi
build=$1
pack=$2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
for binary in bin/rocprof-merge tests/synthetic_job tests/rank_file_dump; do
  if [ ! -x "$build/$binary" ]; then
    echo "$0: $build/$binary is missing: build the project first (scripts/build.sh)" >&2
    exit 1
  fi
done
mkdir -p "$pack/bin" "$pack/tests" "$pack/lib" "$pack/hdf5-plugins"
cp "$build/bin/rocprof-merge" "$pack/bin/"
cp "$build/tests/synthetic_job" "$build/tests/rank_file_dump" "$pack/tests/"
strip "$pack/bin/rocprof-merge" "$pack/tests/synthetic_job" "$pack/tests/rank_file_dump"
cp "$build"/hdf5-plugins/*.so "$pack/hdf5-plugins/"
cp "$here/merge_throughput.py" "$pack/"
# Every library the binaries load, but the runtimes and Open MPI (and what only it loads).
# shellcheck source=../tools/carry_libraries.sh
source "$here/../tools/carry_libraries.sh"
carry_libraries "$pack/lib" "$build/bin/rocprof-merge" "$build/tests/synthetic_job" \
  "$build/tests/rank_file_dump"
cat > "$pack/run.sh" <<'RUN'
#!/usr/bin/env bash
# The merge benchmark from this folder (see pack_merge_bench.sh): arguments as merge_throughput.py's
# after BUILD.
set -euo pipefail
pack="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export LD_LIBRARY_PATH="$pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export HDF5_PLUGIN_PATH="$pack/hdf5-plugins"
export TMPDIR="${TMPDIR:-/dev/shm}"
exec python3 "$pack/merge_throughput.py" "$pack" "$@"
RUN
chmod +x "$pack/run.sh"
echo "packed into $pack ($(du -sh "$pack" | cut -f1)): run $pack/run.sh [REPEATS] [SHAPES...]"
