# Finds every dependency from Debian 12 packages; a missing one stops configure with the
# package to install (scripts/install-deps.sh installs them all).

function(rocprof_require found what package)
  if(NOT ${found})
    message(FATAL_ERROR "rocprof-mpi needs ${what}: install the Debian package '${package}' "
                        "(or run scripts/install-deps.sh)")
  endif()
endfunction()

find_package(Threads REQUIRED)

find_package(Protobuf QUIET)
find_program(ROCPROF_PROTOC protoc)
if(Protobuf_FOUND AND ROCPROF_PROTOC)
  set(ROCPROF_PROTOBUF_FOUND TRUE)
endif()
rocprof_require(ROCPROF_PROTOBUF_FOUND "protobuf (library and protoc)" "libprotobuf-dev protobuf-compiler")

find_package(CLI11 CONFIG QUIET)
rocprof_require(CLI11_FOUND "CLI11" "libcli11-dev")

find_package(fmt CONFIG QUIET)
rocprof_require(fmt_FOUND "fmt" "libfmt-dev")

find_package(GTest CONFIG QUIET)
if(NOT GTest_FOUND)
  find_package(GTest QUIET)
endif()
rocprof_require(GTest_FOUND "GoogleTest" "libgtest-dev")

# Abseil's hash maps: the merge looks a message stream up for every send and receive.
find_package(absl CONFIG QUIET)
rocprof_require(absl_FOUND "Abseil" "libabsl-dev")

find_package(benchmark CONFIG QUIET)
rocprof_require(benchmark_FOUND "Google Benchmark" "libbenchmark-dev")

find_package(MPI QUIET COMPONENTS C)
rocprof_require(MPI_C_FOUND "an MPI implementation (Open MPI)" "libopenmpi-dev")

set(HDF5_PREFER_PARALLEL OFF)
find_package(HDF5 QUIET COMPONENTS C)
rocprof_require(HDF5_FOUND "HDF5 (serial)" "libhdf5-dev")

find_package(PkgConfig QUIET)
rocprof_require(PKG_CONFIG_FOUND "pkg-config" "pkg-config")
pkg_check_modules(ZSTD QUIET IMPORTED_TARGET libzstd)
rocprof_require(ZSTD_FOUND "zstd" "libzstd-dev")
pkg_check_modules(OTF2 QUIET IMPORTED_TARGET otf2)
rocprof_require(OTF2_FOUND "OTF2" "libotf2-trace-dev")
find_program(ROCPROF_OTF2_PRINT otf2-print)
rocprof_require(ROCPROF_OTF2_PRINT "otf2-print" "otf2-tools")
find_package(SQLite3 QUIET)
rocprof_require(SQLite3_FOUND "SQLite" "libsqlite3-dev")
find_program(ROCPROF_SQLITE3 sqlite3)
rocprof_require(ROCPROF_SQLITE3 "the sqlite3 shell" "sqlite3")
find_package(ZLIB QUIET)
rocprof_require(ZLIB_FOUND "zlib" "zlib1g-dev")

find_path(ROCPROF_HSA_INCLUDE_DIR hsa/hsa_api_trace.h)
find_library(ROCPROF_HSA_LIBRARY hsa-runtime64)
if(ROCPROF_HSA_INCLUDE_DIR AND ROCPROF_HSA_LIBRARY)
  set(ROCPROF_HSA_FOUND TRUE)
endif()
rocprof_require(ROCPROF_HSA_FOUND "the ROCm HSA runtime headers and library" "libhsa-runtime-dev")

find_path(ROCPROF_HIP_INCLUDE_DIR hip/amd_detail/hip_prof_str.h)
find_library(ROCPROF_HIP_LIBRARY amdhip64)
if(ROCPROF_HIP_INCLUDE_DIR AND ROCPROF_HIP_LIBRARY)
  set(ROCPROF_HIP_FOUND TRUE)
endif()
rocprof_require(ROCPROF_HIP_FOUND "the HIP runtime headers and library (HIP 5.2)" "libamdhip64-dev")

# Debian's python3 (the one with python3-h5py); generators use the standard library only.
if(EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python used by generators and tests")
endif()
find_package(Python3 QUIET COMPONENTS Interpreter)
rocprof_require(Python3_Interpreter_FOUND "Python 3" "python3")

# CUDA's headers (CUPTI and the runtime's parameter structures) for the CUDA backend. Only
# headers: CUPTI is loaded at run time, so no CUDA library is linked or needed to run.
find_path(ROCPROF_CUPTI_INCLUDE_DIR cupti.h
  HINTS $ENV{CUDA_HOME}/include /usr/local/cuda/include /usr/local/cuda/extras/CUPTI/include)
if(ROCPROF_CUPTI_INCLUDE_DIR)
  message(STATUS "CUDA backend: CUPTI headers in ${ROCPROF_CUPTI_INCLUDE_DIR}")
else()
  message(STATUS "CUDA backend: no CUPTI headers found; built without it")
endif()
