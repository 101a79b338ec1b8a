#!/usr/bin/env bash
# The main job: describe a target, import the bundled example graph and check
# its coverage, then compile it to an executable and run it on the simulated
# device, comparing every result with upstream MLIR's CPU pipeline.
# Usage: examples/demo.sh [TARGET] [GRAPH.mlir FUNCTION]
#   (default trn2.48xlarge, examples/mlp.mlir forward)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${NEURON_BUILD_DIR:-$root/build}
bin=$build/bin
target=${1:-trn2.48xlarge}
graph=${2:-$root/examples/mlp.mlir}
function=${3:-forward}
name=$(basename "$graph" .mlir)
work=$build/examples/$name
rm -rf "$work" && mkdir -p "$work/run"

echo "== neuron-opt --version"
"$bin/neuron-opt" --version | tail -n 1
echo
echo "== target $target"
"$bin/neuron-opt" --print-target="$target"
echo
echo "== $name: import and operator coverage on $target"
"$bin/neuron-opt" "$graph" --neuron-import=summary \
  --neuron-check-coverage="target=$target fallback=host summary" -o /dev/null
echo
echo "== $name: neuron-compile --target=$target -> $work/$name.nxe"
"$bin/neuron-compile" "$graph" --target="$target" -o "$work/$name.nxe"
echo "executable: $(wc -c < "$work/$name.nxe") bytes; coverage report: $work/$name.nxe.coverage.json"
echo
echo "== neuron-run on random inputs (seed 1), checked against mlir-runner"
"$bin/neuron-run" "$work/$name.nxe" --random-inputs --seed=1 --output-dir="$work/run" \
  --profile="$work/profile.json" --trace="$work/trace.json" --timeline="$work/timeline.svg"
echo "profile: $work/profile.json; Perfetto trace: $work/trace.json; timeline: $work/timeline.svg"
python3 "$root/test/e2e/oracle.py" --graph "$graph" --function "$function" \
  --run-dir "$work/run" --llvm-bin /usr/lib/llvm-22/bin --io-lib "$build/lib/libNeuronOracleIO.so" --rtol 1e-4 --atol 1e-4
