#!/usr/bin/env bash
# The main job: describe a target, import the bundled example graph into the
# neuron dialect, and check its operator coverage on that target.
# Usage: examples/demo.sh [TARGET] [GRAPH.mlir]   (default trn2.48xlarge, examples/mlp.mlir)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${NEURON_BUILD_DIR:-$root/build}
opt=$build/bin/neuron-opt
target=${1:-trn2.48xlarge}
graph=${2:-$root/examples/mlp.mlir}
report=$build/examples/coverage-$(basename "$graph" .mlir).json
mkdir -p "$(dirname "$report")"

echo "== neuron-opt --version"
"$opt" --version | tail -n 1
echo
echo "== target $target"
"$opt" --print-target="$target"
echo
echo "== $(basename "$graph"): import (neuron-import) and coverage on $target"
"$opt" "$graph" --neuron-import=summary \
  --neuron-check-coverage="target=$target fallback=host summary report=$report" 2>&1
echo
echo "coverage report: $report"
