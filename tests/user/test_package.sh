#!/usr/bin/env bash
# Installs the build into a scratch prefix, then builds a program against it twice: with
# find_package(rocprofiler-systems COMPONENTS user), and with the plain g++ line.
# Usage: test_package.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/prefix" > /dev/null
cmake -S "$source/package" -B "$scratch/cmake" -DCMAKE_PREFIX_PATH="$scratch/prefix" > /dev/null
cmake --build "$scratch/cmake" > /dev/null
LD_LIBRARY_PATH="$scratch/prefix/lib" "$scratch/cmake/foo"
g++ -I"$scratch/prefix/include" -L"$scratch/prefix/lib" "$source/package/foo.cpp" \
  -o "$scratch/foo_gxx" -lrocprof-sys-user
LD_LIBRARY_PATH="$scratch/prefix/lib" "$scratch/foo_gxx"
