#!/usr/bin/env bash
# Installs every Debian 12 package rocprof-mpi needs to build and test. Idempotent and quiet
# when everything is present; uses sudo when not run as root. With --main-job: only what
# building and running the README's main job needs (not the programs and Python packages the
# tests use: a browser, LAMMPS, Slurm, gfortran, h5py and the other Python packages). With
# --bench-apps: only the MPI applications tests/bench/real_app_pairs.py runs (not needed by
# the tests).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git python3 binutils clang-format
  libfmt-dev libcli11-dev libprotobuf-dev protobuf-compiler libotf2-trace-dev otf2-tools libzstd-dev zlib1g-dev clang libclang-rt-14-dev libgtest-dev libgmock-dev libbenchmark-dev libabsl-dev
  libopenmpi-dev openmpi-bin libhdf5-dev hdf5-tools libsqlite3-dev sqlite3
  libhsa-runtime-dev libamdhip64-dev librocm-smi-dev
)
if [ "${1:-}" = "--bench-apps" ]; then
  packages=(openmpi-bin hpcc meep-openmpi elk-lapw lammps)
elif [ "${1:-}" != "--main-job" ]; then
  packages+=(
    python3-h5py python3-hdf5plugin python3-pandas python3-plotly python3-networkx python3-ijson python3-psutil
    slurmctld slurmd slurm-client
    chromium fonts-dejavu-core lammps gfortran
  )
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root or install sudo" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
