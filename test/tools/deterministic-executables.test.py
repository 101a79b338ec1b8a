"""Compiles each graph three times (threads; --mlir-disable-threading;
threads to another folder) and reports any executables that differ."""

import filecmp
import subprocess
import sys

out, inputs, examples = sys.argv[1:4]
graphs = [
    (f"{examples}/mlp.mlir", []),
    (f"{inputs}/repeated_layers.mlir", []),
    (f"{inputs}/conv_pool.mlir", ["--target=trn1"]),
    (f"{inputs}/host_calls.mlir", ["--fallback=host"]),
    (f"{inputs}/mlp_bias.mlir", ["--tensor-parallel=4"]),
    (f"{inputs}/llama_layer.mlir", ["--target=inf2"]),
]
for i, (graph, options) in enumerate(graphs):
    paths = [f"{out}/{folder}/g{i}.nxe" for folder in "abc"]
    for path, extra in zip(paths, [[], ["--mlir-disable-threading"], []]):
        subprocess.run(["neuron-compile", graph, *options, *extra, "-o", path],
                       check=True, stderr=subprocess.DEVNULL)
    for path in paths[1:]:
        if not filecmp.cmp(paths[0], path, shallow=False):
            print(f"{graph} {' '.join(options)}: {paths[0]} and {path} differ")
print(f"{len(graphs)} graphs: identical in 3 compiles each")
