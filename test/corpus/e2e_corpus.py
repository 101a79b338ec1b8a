#!/usr/bin/env python3
"""Compiles corpus graphs for trn2 with neuron-compile, runs them with
neuron-run on seeded inputs and compares every result with upstream MLIR's
CPU pipeline (test/e2e/oracle.py). Prints one row per graph with its time
and the oracle's worst error / tolerance; exits non-zero on any failure,
except for graphs listed in PENDING.

Graphs whose weights are elided (dense_resource<__elided__>) run on a copy
with seeded weights (test/e2e/materialize_elided.py) in a temporary folder.
"""

import argparse
import array
import ast
import collections
import concurrent.futures
import pathlib
import random
import subprocess
import sys
import tempfile
import time

# One graph: its function, the oracle's tolerance, whether its weights are
# elided, for token-id inputs (shape, vocabulary size) to draw them from
# instead of neuron-run's random integers in [-8, 8), the fallback policy it
# compiles with (neuron-compile's default when None), and whether its 1-D f32 inputs (batch-norm parameters,
# variances among them) take their random values' magnitudes.
Graph = collections.namedtuple(
    "Graph",
    "name function rtol atol elided token_ids fallback positive_vectors",
    defaults=(1e-4, 1e-4, False, None, None, False))

GRAPHS = [
    Graph("tpp_torch_dynamo_mlp3_fp32_linalg", "forward"),
    Graph("heir_mnist_mlp_linalg", "mnist"),
    Graph("heir_torch_softmax_2d_linalg", "main"),
    Graph("buddynext_rmsnorm_tosa", "kernel"),
    Graph("heir_lenet_linalg", "lenet"),
    Graph("buddy_lenet_tosa", "forward"),
    Graph("nelli_torchvision_resnet50_linalg", "forward"),
    Graph("nelli_torchvision_mobilenet_v2_linalg", "forward"),
    Graph("nelli_torchvision_efficientnet_b0_linalg", "forward"),
    # bf16 in and out. Both sides sum the matmuls in f32 (the oracle widens
    # bf16 accumulators, see oracle.py) and round each stored tensor to bf16,
    # whose unit roundoff is 2^-9 (8-bit significand): a rounding that falls
    # the other way moves an element by 2^-8 = 0.4%, and a few such steps
    # through three layers stay within 2e-2 (five bf16 ulps).
    Graph("tpp_torch_dynamo_mlp3_bf16_linalg", "forward", 2e-2, 2e-2),
    # The down projection sums 8960 products whose partial sums reach ~1e4,
    # where f32's spacing is ~1e-3: summed in another order (the oracle
    # sequentially, the device in 128-long PSUM partials) results differ by
    # up to ~0.05 whatever their own size; atol = 0.1 is 1.6e-5 of the
    # result's RMS (6.2e3 on neuron-run's inputs in [-1, 1)).
    Graph("buddynext_ffn_swiglu_tosa", "kernel", 1e-4, 1e-1),
    Graph("buddynext_mhsa_core_tosa", "kernel"),
    Graph("buddynext_mhsa_qkv_tosa", "kernel"),
    Graph("buddy_resnet18_tosa", "forward", elided=True),
    # Token ids: 1x12 in BERT's 30522-word vocabulary.
    Graph("buddy_bert_linalg", "forward", elided=True,
          token_ids=((1, 12), 30522)),
    # TFLite's int8 sine model: its requantisation (i64 multiplies and
    # shifts) runs on the host as native code; integers are exact.
    Graph("heir_tflite_hello_world_i8_linalg", "main", 0.0, 0.0,
          fallback="host"),
    # JAX's ResNet takes its batch-norm variances as inputs: they must be
    # positive (a negative one gives NaN through rsqrt).
    Graph("heir_resnet_jax_linalg", "main", positive_vectors=True),
]

# Graphs expected to compile and run later, each with the work it waits on
# ({"name": "reason"}). A failure at any step is reported as "pending" with
# the reason and does not fail the script; once they pass, their rows read
# like the others and they leave this list. Empty: BERT, the last one, now
# compiles, runs and matches.
PENDING = {}


def run(cmd):
    """(exit status, output) of `cmd`; a command that cannot start or runs
    past 20 minutes is a failure like any other."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=1200)
    except (OSError, subprocess.TimeoutExpired) as error:
        return 1, str(error)
    return proc.returncode, proc.stdout + proc.stderr


def write_token_ids(path, shape, vocabulary, seed):
    """A seeded i64 .npy of ids uniform in [0, vocabulary)."""
    rng = random.Random(seed)
    count = 1
    for d in shape:
        count *= d
    ids = array.array("q", (rng.randrange(vocabulary) for _ in range(count)))
    if sys.byteorder != "little":
        ids.byteswap()
    dims = "".join(f"{d}, " for d in shape).rstrip(" ")
    header = f"{{'descr': '<i8', 'fortran_order': False, 'shape': ({dims}), }}"
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little")
                     + header.encode("latin1") + ids.tobytes())


def make_vectors_positive(out):
    """Replaces each 1-D f32 input out/inputI.npy by its absolute values;
    returns neuron-run's --input flags for every input."""
    flags = []
    for path in sorted(out.glob("input*.npy"),
                       key=lambda p: int(p.stem[len("input"):])):
        data = bytearray(path.read_bytes())
        length = int.from_bytes(data[8:10], "little")
        header = ast.literal_eval(data[10:10 + length].decode())
        if header["descr"] == "<f4" and len(header["shape"]) == 1:
            values = array.array("f", data[10 + length:])
            values = array.array("f", (abs(v) for v in values))
            data[10 + length:] = values.tobytes()
            path.write_bytes(bytes(data))
        flags.append(f"--input={path.stem[len('input'):]}={path}")
    return flags


def check(graph, args, tmp):
    """Compiles, runs and checks one graph: the row's cells (compile, run,
    oracle), and whether a step failed."""
    source = args.corpus / f"{graph.name}.mlir"
    out = tmp / graph.name
    out.mkdir()
    exe = tmp / f"{graph.name}.nxe"
    if graph.elided:
        copy = tmp / f"{graph.name}.weights.mlir"
        code, log = run([sys.executable,
                         str(args.e2e / "materialize_elided.py"), str(source),
                         "-o", str(copy), "--mlir-opt",
                         str(args.llvm_bin / "mlir-opt")])
        if code:
            return ["FAILED", log.strip()[-300:]], True
        source = copy
    fallback = [f"--fallback={graph.fallback}"] if graph.fallback else []
    code, log = run([str(args.bin / "neuron-compile"), str(source),
                     "--target=trn2", *fallback, "-o", str(exe)])
    if code:
        return ["FAILED", log.strip()[-300:]], True
    cells = ["ok"]
    inputs = ["--random-inputs", "--seed=1"]
    if graph.token_ids:
        write_token_ids(out / "input0.npy", *graph.token_ids, seed=1)
        inputs.append(f"--input=0={out / 'input0.npy'}")
    code, log = run([str(args.bin / "neuron-run"), str(exe), *inputs,
                     f"--output-dir={out}"])
    if not code and graph.positive_vectors:
        code, log = run([str(args.bin / "neuron-run"), str(exe),
                         *make_vectors_positive(out), f"--output-dir={out}"])
    if code:
        return cells + ["FAILED", log.strip()[-300:]], True
    cells.append("ok")
    code, log = run([sys.executable, str(args.e2e / "oracle.py"), "--graph",
                     str(source), "--function", graph.function, "--run-dir",
                     str(out), "--llvm-bin", str(args.llvm_bin), "--io-lib",
                     str(args.io_lib), "--rtol", str(graph.rtol), "--atol",
                     str(graph.atol)])
    lines = log.strip().splitlines()
    worst = [l.split(": ")[1] for l in lines if l.startswith("worst error")]
    if code or not worst:
        return cells + ["FAILED", log.strip()[-300:]], True
    return cells + [f"{lines[-1]} (worst {worst[0]})"], False


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bin", required=True, type=pathlib.Path)
    parser.add_argument("--llvm-bin", required=True, type=pathlib.Path)
    parser.add_argument("--corpus", required=True, type=pathlib.Path)
    parser.add_argument("--e2e", required=True, type=pathlib.Path,
                        help="test/e2e (oracle.py, materialize_elided.py)")
    parser.add_argument("--io-lib", required=True, type=pathlib.Path)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("graphs", nargs="*", help="only these graphs")
    args = parser.parse_args()
    graphs = [g for g in GRAPHS if not args.graphs or g.name in args.graphs]

    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:

        def timed(graph):
            begin = time.monotonic()
            cells, failed = check(graph, args, pathlib.Path(tmp))
            if failed and graph.name in PENDING:
                cells[cells.index("FAILED")] = "pending"
                cells[-1] = f"({PENDING[graph.name]}) " + cells[-1]
            return cells, failed, time.monotonic() - begin

        print(f"{'graph':40} {'compile':8} {'run':5} oracle")
        failed = pending = 0
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for graph, (cells, bad, seconds) in zip(
                    graphs, pool.map(timed, graphs)):
                pending += "pending" in cells
                failed += bad and "pending" not in cells
                widths = [8, 5]
                row = [graph.name.ljust(40)] + [
                    c.ljust(w) for c, w in zip(cells, widths)] + \
                    cells[len(widths):]
                print(" ".join(row) + f" [{seconds:.1f}s]", flush=True)
    print(f"{len(graphs)} graphs, {failed} failed, {pending} pending "
          f"({time.monotonic() - start:.0f}s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
