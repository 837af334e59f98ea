#!/usr/bin/env bash
# The README's main job: install dependencies, build, and run the bundled MPI example (a
# Jacobi solver with halo exchanges and ROC-TX ranges) on 4 ranks under rocprof-mpi: through
# srun when a local Slurm answers, otherwise through mpirun. Then print what was traced and
# where the rank files are, merge them into one timeline and an HTML report, and print the
# summary and their paths.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ "${ROCPROF_DEMO_SKIP_BUILD:-0}" != 1 ]; then  # the tests run it on their own build
  bash "$root/scripts/install-deps.sh" --main-job
  # Only what the example runs: the tools with the libraries they load, and the example
  # (scripts/test.sh builds everything).
  ROCPROF_BUILD_TARGETS="tools jacobi_mpi" bash "$root/scripts/build.sh"
fi
build="${ROCPROF_BUILD_DIR:-$root/build}"
out="${ROCPROF_DEMO_DIR:-$PWD/rocprof-mpi-demo}"
rm -rf "$out"
trace=(--mpi-trace --marker-trace --output-directory "$out")
app=("$build/tests/jacobi_mpi" 512 300)

if timeout 5 sinfo -h -o %T 2>/dev/null | grep -q idle; then
  echo "== srun -n 4 rocprof-mpi ${trace[*]} -- ${app[*]}"
  srun -n 4 --mpi=pmix "$build/bin/rocprof-mpi" "${trace[@]}" -- "${app[@]}"
else
  echo "== mpirun -np 4 rocprof-mpi ${trace[*]} -- ${app[*]}   (no local Slurm answers)"
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun --oversubscribe -np 4 "$build/bin/rocprof-mpi" "${trace[@]}" -- "${app[@]}"
fi
echo
"$build/bin/rocprof-merge" "$out" -o "$out.pftrace" --report "$out.html"
echo "Timeline: $out.pftrace (open it in https://ui.perfetto.dev)"
echo "Report: $out.html (open it in a browser)"
