#!/usr/bin/env bash
# Installs what neuron-mlir needs (Debian packages only) and configures the build.
# Idempotent: packages already present are not reinstalled, apt-get update runs
# at most once, and an existing build folder is reconfigured in place.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${NEURON_BUILD_DIR:-$root/build}

packages=(
  cmake ninja-build ccache g++ python3
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22
  libabsl-dev libgtest-dev libgmock-dev nlohmann-json3-dev libbenchmark-dev
  libopenblas-dev pkg-config libopenmpi-dev openmpi-bin
  pybind11-dev python3-dev python3-numpy python3-pytest
  clang-22 libclang-rt-22-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd=sudo
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
