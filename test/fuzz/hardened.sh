#!/usr/bin/env bash
# The hardened part of CI (issue #17): configures an instrumented build with
# clang-22 (AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer;
# cmake/NeuronHardening.cmake) beside the main one, builds only the runtime,
# its unit tests and the fuzz targets, runs the unit tests under the
# sanitizers, then every fuzzer for SECONDS on seeds made by the main
# build's tools (fuzz-smoke). Last, a ThreadSanitizer build of the
# runtime's unit tests runs them on 8 simulator threads (more than the
# host's cores and than some instructions have pieces of work).
#
#   test/fuzz/hardened.sh [SECONDS]   (default 30; the main build in build/)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
seconds=${1:-30}
build=${NEURON_HARDENED_BUILD_DIR:-$root/build-hardened}
main_bin=${NEURON_BUILD_DIR:-$root/build}/bin

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
  -DNEURON_SANITIZE=address,undefined -DNEURON_FUZZERS=ON \
  -DNEURON_FUZZ_SEED_TOOLS="$main_bin" -DNEURON_FUZZ_SECONDS="$seconds" \
  > /dev/null
cmake --build "$build" --target check-neuron-runtime
cmake --build "$build" --target fuzz-smoke

tsan=${NEURON_TSAN_BUILD_DIR:-$root/build-tsan}
cmake -S "$root" -B "$tsan" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit -DNEURON_SANITIZE=thread \
  > /dev/null
cmake --build "$tsan" --target NeuronRuntimeSimTests
NEURON_SIM_THREADS=8 TSAN_OPTIONS=halt_on_error=1 \
  "$tsan/test/unit/NeuronRuntimeSimTests" --gtest_brief=1
