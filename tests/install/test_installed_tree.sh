#!/usr/bin/env bash
# The installed tree (issue 47): `cmake --install` into a scratch prefix, moved elsewhere (it
# must not care where it lies), then
#   - no installed program or library names the build tree, and each finds its libraries;
#   - the bundled example, built against the installed headers and libraries, traced by the
#     installed rocprof-mpi and merged by the installed rocprof-merge with nothing of the
#     build tree on any path (env -i);
#   - --help names the installed manual;
#   - the packages CPack makes (.tar.gz, .deb) hold the tree.
# Usage: test_installed_tree.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}
cmake --install "$build" --prefix "$scratch/installed" >/dev/null
mv "$scratch/installed" "$scratch/moved"
prefix=$scratch/moved
clean=(env -i PATH=/usr/bin:/bin HOME="$scratch" OMPI_ALLOW_RUN_AS_ROOT=1
  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)

checked=0
for file in "$prefix"/bin/* "$prefix"/lib/*.so* "$prefix"/lib/rocprof-mpi/hdf5-plugins/*.so; do
  [ -L "$file" ] && continue
  # Outputs held first: with pipefail, grep -q ending a pipe early would fail it.
  dynamic=$(readelf -d "$file")
  if grep -qF "$build" <<<"$dynamic"; then fail "$file names the build tree"; fi
  libraries=$("${clean[@]}" ldd "$file")
  if grep -q "not found" <<<"$libraries"; then
    fail "$file: $(grep "not found" <<<"$libraries" | head -3)"
  fi
  checked=$((checked + 1))
done
[ "$checked" -ge 9 ] || fail "only $checked programs and libraries installed"

cd "$scratch"
mpicxx -O2 -I"$prefix/include" "$prefix/share/rocprof-mpi/examples/jacobi_mpi.cpp" -o jacobi \
  -L"$prefix/lib" -lroctx64 -Wl,-rpath,"$prefix/lib"
"${clean[@]}" mpirun --oversubscribe -np 4 "$prefix/bin/rocprof-mpi" --mpi-trace \
  --marker-trace -d out -- ./jacobi 64 20 >traced.out 2>&1 || fail "traced run: $(tail -5 traced.out)"
[ "$(ls out | tr '\n' ' ')" = "0.h5 1.h5 2.h5 3.h5 " ] || fail "rank files: $(ls out)"
"${clean[@]}" "$prefix/bin/rocprof-merge" out -o job.pftrace --report job.html >merge.out 2>&1 ||
  fail "merge: $(tail -5 merge.out)"
grep -q "Input: 4 ranks, 0 incomplete rank files" merge.out || fail "merge said: $(tail -3 merge.out)"
[ -s job.pftrace ] && [ -s job.html ] || fail "no timeline or report"
help=$("${clean[@]}" "$prefix/bin/rocprof-merge" --help)
grep -qF "More: $prefix/share/doc/rocprof-mpi/ROCPROF_MERGE.md" <<<"$help" ||
  fail "--help names no installed manual"
[ -f "$prefix/share/rocprof-mpi/jobscripts/merge.sbatch" ] || fail "no job scripts"
[ -f "$prefix/share/rocprof-mpi/modulefiles/rocprof-mpi.lua" ] || fail "no module file"

(cd "$build" && cpack -G "TGZ;DEB" -B "$scratch/packages" >"$scratch/cpack.out" 2>&1) ||
  fail "cpack: $(tail -5 "$scratch/cpack.out")"
tar -tzf "$scratch"/packages/rocprof-mpi-*.tar.gz >"$scratch/tgz.list"
grep -q "bin/rocprof-merge$" "$scratch/tgz.list" || fail "the .tar.gz holds no rocprof-merge"
dpkg-deb -c "$scratch"/packages/rocprof-mpi_*.deb >"$scratch/deb.list"
grep -q "/opt/rocprof-mpi/bin/rocprof-mpi$" "$scratch/deb.list" || fail "the .deb holds no rocprof-mpi"
depends=$(dpkg-deb -f "$scratch"/packages/rocprof-mpi_*.deb Depends)
grep -q "libhdf5" <<<"$depends" || fail "the .deb depends on no HDF5: $depends"
echo "installed tree: $checked programs and libraries, example traced and merged, packages made"
