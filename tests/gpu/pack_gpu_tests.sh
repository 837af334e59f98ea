#!/usr/bin/env bash
# Packs the GPU tests with what they need into one folder, for a machine with an NVIDIA GPU
# that lacks this project's build dependencies (the lent GPU machine):
#
#   bash tests/gpu/pack_gpu_tests.sh BUILD_DIR PACK_DIR
#   PACK_DIR/run.sh                      # on the GPU machine: every GPU test, then a summary
#   BENCH=1 PACK_DIR/run.sh              # ... and the CUDA tracing-overhead benchmark
#   LOAD=1 PACK_DIR/run.sh               # ... and the recorder-under-load benchmark
#   MPI=1 [CALIPER_SRC=DIR] PACK_DIR/run.sh   # ... and MPI latency, beside Caliper if given
#   FIXED=1 [FIXED_ARGS=...] PACK_DIR/run.sh  # ... and a whole job's fixed cost of tracing
#   SAMPLER=1 PACK_DIR/run.sh            # ... and the device-counter sampling benchmark
#
# Carried: the launcher, the recorder and its libroctracer64, the CUDA test programs, the
# report tool, the HDF5 filter plugin and every library these load except the C/C++ runtimes,
# Open MPI's and CUDA's own (those come from the GPU machine).
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR PACK_DIR" >&2
  exit 2
fi
build=$1
pack=$2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
binaries=(bin/rocprof-mpi bin/rocprof-merge tests/cuda_streams tests/cuda_halo_mpi
  tests/cuda_roctracer_client tests/cuda_trace_report tests/roctx_burst tests/rank_file_dump
  tests/mpi_pingpong tests/mpi_job_phases tests/cuda_busy_counters tests/device_profiling_seed)
for binary in "${binaries[@]}"; do
  if [ ! -x "$build/$binary" ]; then
    echo "$0: $build/$binary is missing: build the project first (scripts/build.sh)" >&2
    exit 1
  fi
done
rm -rf "$pack"
mkdir -p "$pack/bin" "$pack/tests" "$pack/lib" "$pack/hdf5-plugins"
cp "$build/bin/rocprof-mpi" "$build/bin/rocprof-merge" "$pack/bin/"
cp "$build/tests/cuda_streams" "$build/tests/cuda_halo_mpi" "$build/tests/cuda_roctracer_client" \
  "$build/tests/cuda_trace_report" "$build/tests/cuda_busy_counters" \
  "$build/tests/device_profiling_seed" "$pack/tests/"
# The recorder-under-load benchmark (bench/recorder_load.py; run with LOAD=1).
cp "$build/tests/roctx_burst" "$build/tests/rank_file_dump" "$pack/tests/"
cp "$here/../bench/recorder_load.py" "$pack/"
# The MPI latency benchmark (bench/mpi_overhead.py; run with MPI=1).
cp "$build/tests/mpi_pingpong" "$pack/tests/"
cp "$here/../bench/mpi_overhead.py" "$pack/"
# A whole job's fixed cost of tracing (bench/job_fixed_cost.py; run with FIXED=1).
cp "$build/tests/mpi_job_phases" "$pack/tests/"
cp "$here/../bench/job_fixed_cost.py" "$pack/"
# What sampling device counters costs (tests/bench/sampler_bench.cpp; run with SAMPLER=1).
if [ -x "$build/tests/sampler_bench" ]; then cp "$build/tests/sampler_bench" "$pack/tests/"; fi
# The overhead benchmark, when built (bench/cuda_overhead.py; run with BENCH=1).
if [ -x "$build/tests/cuda_launch_bench" ] && [ -f "$build/tests/libcupti_minimal.so" ]; then
  cp "$build/tests/cuda_launch_bench" "$build/tests/libcupti_minimal.so" "$pack/tests/"
  cp "$here/../bench/cuda_overhead.py" "$pack/"
fi
cp -P "$build"/lib/librocprof-mpi.so "$build"/lib/librocprof-mpi-pmpi.so "$pack/lib/"
cp -L "$build"/lib/libroctracer64.so.4 "$build"/lib/libroctx64.so.4 \
  "$build"/lib/librocprofiler-register.so.0 "$pack/lib/"
cp -L "$build"/lib/librocprofiler64v2.so "$pack/lib/librocprofiler64.so.2"
strip "$pack"/bin/* "$pack"/tests/cuda_trace_report "$pack"/lib/*.so*
cp "$build"/hdf5-plugins/*.so "$pack/hdf5-plugins/"
cp "$here/gpu_check.py" "$here/check_cuda_trace.py" "$here/check_cuda_mpi.py" \
  "$here/check_roctracer_client.py" "$here/check_pytorch.py" "$here/torch_program.py" \
  "$here/check_device_counters.py" "$here/check_counters_timeline.py" "$pack/"
# shellcheck source=../tools/carry_libraries.sh
source "$here/../tools/carry_libraries.sh"
carry_libraries "$pack/lib" "$build/bin/rocprof-mpi" "$build/bin/rocprof-merge" \
  "$build/tests/cuda_trace_report" "$build/tests/rank_file_dump" "$build/lib/librocprof-mpi.so" \
  "$build/lib/libroctracer64.so.4" "$build/lib/librocprofiler64v2.so"
if [ -x "$pack/tests/sampler_bench" ]; then carry_libraries "$pack/lib" "$pack/tests/sampler_bench"; fi
cat > "$pack/run.sh" <<'RUN'
#!/usr/bin/env bash
# Every GPU test from this folder (see pack_gpu_tests.sh). Exit 0 when all pass.
set -uo pipefail
pack="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export LD_LIBRARY_PATH="$pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export HDF5_PLUGIN_PATH="$pack/hdf5-plugins"
work="${TMPDIR:-/tmp}/rocprof-gpu-tests"
status=0
echo "== gpu.cuda_trace"
python3 "$pack/check_cuda_trace.py" "$pack/bin/rocprof-mpi" "$pack/tests/cuda_streams" \
  "$pack/tests/cuda_trace_report" "$work/cuda_trace" "${KERNELS:-50}" || status=1
echo "== gpu.cuda_mpi"
python3 "$pack/check_cuda_mpi.py" "$pack/bin/rocprof-mpi" "$pack/bin/rocprof-merge" \
  "$pack/tests/cuda_halo_mpi" "$pack/tests/cuda_trace_report" "$work/cuda_mpi" \
  "${ITERATIONS:-20}" || status=1
echo "== gpu.roctracer_client"
python3 "$pack/check_roctracer_client.py" "$pack/bin/rocprof-mpi" \
  "$pack/tests/cuda_roctracer_client" "$pack/tests/cuda_trace_report" \
  "$work/roctracer_client" || status=1
echo "== gpu.device_counters"
python3 "$pack/check_device_counters.py" "$pack/tests/cuda_busy_counters" \
  "$pack/tests/device_profiling_seed" || status=1
echo "== gpu.counters_timeline"
python3 "$pack/check_counters_timeline.py" "$pack/bin/rocprof-mpi" "$pack/bin/rocprof-merge" \
  "$pack/tests/cuda_busy_counters" "$pack/tests/cuda_halo_mpi" "$work/counters_timeline" || status=1
if [ -n "${SAMPLER:-}" ]; then
  echo "== bench: sampling device counters"
  "$pack/tests/sampler_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true ||
    status=1
fi
echo "== gpu.pytorch"
python3 "$pack/check_pytorch.py" "$pack/bin/rocprof-mpi" "$pack/bin/rocprof-merge" \
  "$pack/torch_program.py" "$work/pytorch"
case $? in 0 | 77) ;; *) status=1 ;; esac
if [ -n "${LOAD:-}" ]; then
  echo "== bench: the recorder under load"
  python3 "$pack/recorder_load.py" "$pack/bin/rocprof-mpi" "$pack/tests/roctx_burst" \
    "$pack/tests/rank_file_dump" --repeats "${REPEATS:-3}" ${LOAD_ARGS:-} || status=1
fi
if [ -n "${MPI:-}" ]; then
  echo "== bench: MPI latency under tracing"
  caliper=()
  if [ -n "${CALIPER_SRC:-}" ]; then
    # The peer, built here (its source is carried in an ignored folder, never committed).
    cali_build="${TMPDIR:-/tmp}/caliper-build"
    # Without our LD_LIBRARY_PATH: that machine's cmake needs its own libraries.
    # PMPI wrappers (not GOTCHA): they take effect when the library is preloaded.
    if env -u LD_LIBRARY_PATH cmake -S "$CALIPER_SRC" -B "$cali_build" -DWITH_MPI=On -DWITH_GOTCHA=Off \
      -DCMAKE_BUILD_TYPE=Release >"$cali_build.log" 2>&1 &&
      env -u LD_LIBRARY_PATH cmake --build "$cali_build" -j 16 >>"$cali_build.log" 2>&1; then
      caliper=(--caliper "$(find "$cali_build" -name 'libcaliper.so' | head -1)")
    else
      echo "Caliper did not build (see $cali_build.log); measuring without it"
      tail -5 "$cali_build.log"
    fi
  fi
  python3 "$pack/mpi_overhead.py" "$pack" "${REPEATS:-5}" \
    "${caliper[@]}" || status=1
fi
if [ -n "${FIXED:-}" ]; then
  echo "== bench: a job's fixed cost of tracing"
  # shellcheck disable=SC2086 # FIXED_ARGS: options, split on purpose
  python3 "$pack/job_fixed_cost.py" "$pack" ${FIXED_ARGS:---bind} || status=1
fi
if [ -n "${BENCH:-}" ] && [ -f "$pack/cuda_overhead.py" ]; then
  echo "== bench: CUDA tracing overhead"
  python3 "$pack/cuda_overhead.py" "$pack/bin/rocprof-mpi" "$pack/tests/cuda_launch_bench" \
    "$pack/tests/libcupti_minimal.so" "${REPEATS:-5}" || status=1
fi
# Rank files and merged traces, for a look on the machine that packed this.
if [ -n "${OUT:-}" ]; then
  for test in cuda_trace cuda_mpi; do
    for file in "$work/$test"/trace/*.h5; do cp "$file" "$OUT/$test-$(basename "$file")"; done
  done
  cp "$work"/cuda_mpi/halo.pftrace "$work"/pytorch/torch.pftrace "$OUT/" 2>/dev/null || true
fi
exit $status
RUN
chmod +x "$pack/run.sh"
echo "packed into $pack ($(du -sh "$pack" | cut -f1)): run $pack/run.sh on the GPU machine"
