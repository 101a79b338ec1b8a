#!/usr/bin/env python3
"""Makes the fuzzers' seed corpora from the project's own outputs.

  make_seeds.py --tools BIN --source SRC --out DIR

Writes DIR/<fuzzer>/ for each fuzz target of test/fuzz:
  executable/          executables neuron-compile makes of the example and
                       end-to-end graphs (kernels, loops, host calls, SPMD
                       collectives and launches awaiting them, bf16, several
                       targets, transfers at a start read at run time, shape
                       buckets)
  manifest/            their manifests, as JSON text
  npy/                 the inputs and results neuron-run writes for them
  cache-entry/         the compile cache entries of those compiles
  target-description/  runtime/target/data/*.json
  capabilities/        runtime/target/data/capabilities/*.json
"""

import argparse
import pathlib
import shutil
import struct
import subprocess
import sys

# (name, graph relative to the source folder, neuron-compile options)
GRAPHS = [
    ("mlp", "examples/mlp.mlir", []),
    ("conv_pool_trn1", "test/e2e/Inputs/conv_pool.mlir", ["--target=trn1"]),
    ("host_calls", "test/e2e/Inputs/host_calls.mlir", ["--fallback=host"]),
    ("tp_mlp", "test/e2e/Inputs/mlp_bias.mlir", ["--tensor-parallel=2"]),
    # Launches awaiting the all-reduces before them, inside.
    ("tp_layer", "test/e2e/Inputs/llama_layer.mlir", ["--tensor-parallel=2"]),
    ("pads_inf2", "test/e2e/Inputs/pads.mlir", ["--target=inf2"]),
    ("matmul_bf16", "test/e2e/Inputs/matmul_bf16.mlir", []),
    ("repeated_layers", "test/e2e/Inputs/repeated_layers.mlir", []),
    # Transfers at a start read at run time; a cache updated in place
    # (seed 1's position lies inside the cache).
    ("kv_cache_write", "test/e2e/Inputs/kv_cache_heads.mlir", []),
    # Shape buckets: two programs, a length input, masks.
    ("buckets", "test/e2e/Inputs/attention_dynamic.mlir",
     ["--buckets=16,32"]),
]


def manifest_json(nxe: bytes) -> bytes:
    """The manifest bytes of an executable whose manifest is JSON text
    (runtime/format/FORMAT.md: flags at 12, manifest offset and size at
    24 and 32)."""
    (flags,) = struct.unpack_from("<I", nxe, 12)
    offset, size = struct.unpack_from("<QQ", nxe, 24)
    if flags & 1:
        raise ValueError("CBOR manifest")
    return nxe[offset:offset + size]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", required=True, type=pathlib.Path)
    parser.add_argument("--source", required=True, type=pathlib.Path)
    parser.add_argument("--out", required=True, type=pathlib.Path)
    args = parser.parse_args()

    shutil.rmtree(args.out, ignore_errors=True)
    dirs = {name: args.out / name for name in
            ["executable", "manifest", "npy", "cache-entry",
             "target-description", "capabilities"]}
    for d in dirs.values():
        d.mkdir(parents=True)
    work = args.out / "work"

    for name, graph, options in GRAPHS:
        run = work / name
        run.mkdir(parents=True)
        nxe = run / f"{name}.nxe"
        subprocess.run([str(args.tools / "neuron-compile"),
                        str(args.source / graph), *options, "-o", str(nxe),
                        f"--cache-dir={work / 'cache'}"],
                       check=True, stderr=subprocess.DEVNULL)
        shutil.copy(nxe, dirs["executable"])
        (dirs["manifest"] / f"{name}.json").write_bytes(
            manifest_json(nxe.read_bytes()))
        subprocess.run([str(args.tools / "neuron-run"), str(nxe),
                        "--random-inputs", "--seed=1",
                        f"--output-dir={run}"],
                       check=True, stdout=subprocess.DEVNULL)
        for npy in sorted(run.glob("*.npy")):
            shutil.copy(npy, dirs["npy"] / f"{name}_{npy.name}")
    for entry in sorted((work / "cache").glob("*.nxc")):
        shutil.copy(entry, dirs["cache-entry"])
    shutil.rmtree(work)

    data = args.source / "runtime" / "target" / "data"
    for f in sorted(data.glob("*.json")):
        shutil.copy(f, dirs["target-description"])
    for f in sorted((data / "capabilities").glob("*.json")):
        shutil.copy(f, dirs["capabilities"])
    counts = ", ".join(f"{len(list(d.iterdir()))} {n}"
                       for n, d in dirs.items())
    print(f"fuzz seeds in {args.out}: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
