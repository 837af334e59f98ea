#!/usr/bin/env bash
# A bounded run of the rank file fuzzer, seeded with fresh rank files: a synthetic job's and
# the recorder's (a traced program under LD_PRELOAD). The corpus lives in a temporary
# directory, removed afterwards; a crash's input is kept in the working directory.
# Usage: run_rank_file_fuzz.sh FUZZER SYNTHETIC_JOB TRACED_APP LIBROCPROF_MPI LIB_DIR SECONDS
set -euo pipefail
fuzzer=$1 synthetic=$2 app=$3 recorder=$4 lib_dir=$5 seconds=$6
work=$(mktemp -d /tmp/rank_file_fuzz_run.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus" "$work/seeds" "$work/recorded"
"$synthetic" "$work/synthetic" 2 100 >/dev/null
cp "$work/synthetic/0.h5" "$work/seeds/synthetic_0.h5"
cp "$work/synthetic/1.h5" "$work/seeds/synthetic_1.h5"
env -u ROCPROF_MPI_OUTPUT_FILE LD_PRELOAD="$recorder" LD_LIBRARY_PATH="$lib_dir" \
  ROCPROF_MPI_OUTPUT_DIR="$work/recorded" "$app" exit 300 0 >/dev/null
for file in "$work"/recorded/*.h5; do cp "$file" "$work/seeds/recorder_$(basename "$file")"; done
ls "$work/seeds"
"$fuzzer" -max_total_time="$seconds" -max_len=262144 -rss_limit_mb=2048 -timeout=60 \
  -print_final_stats=1 "$work/corpus" "$work/seeds"
