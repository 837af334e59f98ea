#!/usr/bin/env bash
# pack_merge_bench.sh: the packed folder runs the merge benchmark with its own libraries (and
# carries neither the C++ runtime nor Open MPI, which must come from the machine it runs on).
set -euo pipefail
build=$1
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash "$here/pack_merge_bench.sh" "$build" "$work/pack"
if ls "$work/pack/lib" | grep -E '^lib(mpi|open-pal|open-rte|stdc\+\+|c)\.so'; then
  echo "FAIL: the pack carries a library the other machine must provide" >&2
  exit 1
fi
for file in bin/rocprof-merge tests/synthetic_job tests/rank_file_dump run.sh merge_throughput.py; do
  [ -f "$work/pack/$file" ] || { echo "FAIL: no $file" >&2; exit 1; }
done
ls "$work/pack/hdf5-plugins"/*.so >/dev/null
result=$(TMPDIR="$work" "$work/pack/run.sh" 1 8x2000 --procs 1,2 --outputs .pftrace)
echo "$result"
# Both configurations ran and the input was counted (8 ranks of 2000 rows, and their metadata).
echo "$result" | grep -Eq '^ +8x2000 +\.pftrace +1 ' || { echo "FAIL: no serial row" >&2; exit 1; }
echo "$result" | grep -Eq '^ +8x2000 +\.pftrace +2 ' || { echo "FAIL: no 2-process row" >&2; exit 1; }
echo "$result" | grep -Eq '^ +8x2000: 160[0-9]{2} input records' || { echo "FAIL: records" >&2; exit 1; }
# A wrong call says how to call it.
if bash "$here/pack_merge_bench.sh" "$build" 2>"$work/usage"; then exit 1; fi
grep -q usage "$work/usage"
echo "pack_merge_bench: OK"
