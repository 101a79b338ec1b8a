#!/usr/bin/env bash
# The main job: describe a target and import the bundled example graph into
# the neuron dialect, reporting which compute ops reached neuron.
# Usage: examples/demo.sh [TARGET] [GRAPH.mlir]   (default trn2.48xlarge, examples/mlp.mlir)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
opt=${NEURON_BUILD_DIR:-$root/build}/bin/neuron-opt
target=${1:-trn2.48xlarge}
graph=${2:-$root/examples/mlp.mlir}

echo "== neuron-opt --version"
"$opt" --version | tail -n 1
echo
echo "== target $target"
"$opt" --print-target="$target"
echo
echo "== import of $(basename "$graph") (neuron-import)"
"$opt" "$graph" --neuron-import=summary 2>&1
