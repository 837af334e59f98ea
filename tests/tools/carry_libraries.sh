# Sourced by the pack scripts (tests/bench/pack_merge_bench.sh, tests/gpu/pack_gpu_tests.sh):
#   carry_libraries DEST BINARY...
# copies into DEST every shared library the binaries load, except those that must come from
# the machine that runs them: the C and C++ runtimes, Open MPI's own (its mpirun must match
# its libmpi), zlib, and this project's libraries (packed by name).
carry_libraries() {
  local dest=$1
  shift
  ldd "$@" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u | while read -r library; do
    case "$(basename "$library")" in
      libc.so* | libm.so* | libdl.so* | librt.so* | libpthread.so* | libresolv.so* | \
        libgcc_s.so* | libstdc++.so* | libmpi.so* | libopen-pal.so* | libopen-rte.so* | \
        libhwloc.so* | libevent*.so* | libudev.so* | libz.so* | libroctracer64.so* | \
        libroctx64.so* | librocprof-mpi*.so* | librocprofiler-register.so*) ;;
      *) cp -L "$library" "$dest/" ;;
    esac
  done
}
