#!/usr/bin/env bash
# The README's main job: install dependencies, build, run the bundled example (it traces its
# own ROC-TX annotations through the roctracer API), then record a program with the recorder
# and print what its rank file holds, and run 4 MPI ranks under the MPI layer.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
build="${ROCPROF_BUILD_DIR:-$root/build}"
"$build/tests/roctracer_sample"

# The recorder: a small program preloaded with librocprof-mpi.so writes its rank file.
out="$(mktemp -d)/trace"
echo
echo "== recording tests/recorder/traced_app under librocprof-mpi.so into $out"
LD_PRELOAD="$build/lib/librocprof-mpi.so" ROCPROF_MPI_OUTPUT_DIR="$out" "$build/tests/traced_app" exit 1000 0
for file in "$out"/*.h5; do
  echo "== $file (rows per table, read back with the format module's reader)"
  "$build/tests/rank_file_dump" "$file"
done

# The MPI layer: 4 ranks of an MPI program under the PMPI wrappers, one rank file each.
mpi_out="$(dirname "$out")/mpi-trace"
echo
echo "== 4 MPI ranks (tests/mpi/mpi_patterns collectives) under librocprof-mpi-pmpi.so into $mpi_out"
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np 4 \
  -x LD_PRELOAD="$build/lib/librocprof-mpi-pmpi.so" -x ROCPROF_MPI_OUTPUT_DIR="$mpi_out" \
  "$build/tests/mpi_patterns" collectives
for file in "$mpi_out"/*.h5; do
  echo "== $file: $("$build/tests/rank_file_dump" "$file" | grep -E '^(mpi_calls|communicators|clock_samples|rank) ' | tr '\n' ' ')"
done

