#!/usr/bin/env python3
"""The numerical oracle: runs a frontend graph through upstream MLIR's CPU
pipeline (mlir-opt + mlir-runner) on the inputs neuron-run used, and compares
with neuron-run's results.

  oracle.py --graph G.mlir --function F --run-dir DIR --llvm-bin BIN
            [--rtol R --atol A]

DIR holds inputI.npy (written by neuron-run --random-inputs) and resultI.npy.
The graph's function F must take and return static f32 tensors. The inputs
are embedded as dense constants in a harness that calls F and prints each
result with printMemrefF32. Exits non-zero when any element differs by more
than atol + rtol * |expected|.
"""

import argparse
import pathlib
import re
import struct
import subprocess
import sys


def read_npy(path):
    """float32 .npy (v1/v2, C order) -> (shape, [floats])."""
    data = pathlib.Path(path).read_bytes()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file")
    major = data[6]
    header_len_size = 2 if major == 1 else 4
    header_len = int.from_bytes(data[8:8 + header_len_size], "little")
    start = 8 + header_len_size
    header = data[start:start + header_len].decode("latin1")
    if "'<f4'" not in header or "True" in header:
        raise ValueError(f"{path}: expected a C-order float32 array: {header}")
    shape = tuple(int(d) for d in re.search(r"\((.*?)\)", header).group(1)
                  .replace(" ", "").split(",") if d)
    body = data[start + header_len:]
    count = len(body) // 4
    return shape, list(struct.unpack(f"<{count}f", body[:count * 4]))


def tensor_type(shape):
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


def harness(graph_text, function, inputs, num_results):
    """The graph plus a @__oracle_main calling `function` on the inputs,
    inside the graph's own module when it has one."""
    lines = []
    if "@printMemrefF32" not in graph_text:
        lines.append("func.func private @printMemrefF32(tensor<*xf32>)")
    lines.append("func.func @__oracle_main() {")
    args = []
    for i, (shape, values) in enumerate(inputs):
        literal = ", ".join(repr(v) for v in values)
        lines.append(f"  %in{i} = arith.constant dense<[{literal}]> : "
                     f"tensor<{len(values)}xf32>")
        shaped = f"%arg{i}"
        lines.append(f"  {shaped} = tensor.reshape %in{i}(%shape{i}) : "
                     f"(tensor<{len(values)}xf32>, tensor<{len(shape)}xindex>)"
                     f" -> {tensor_type(shape)}")
        dims = ", ".join(str(d) for d in shape)
        lines.insert(len(lines) - 1,
                     f"  %shape{i} = arith.constant dense<[{dims}]> : "
                     f"tensor<{len(shape)}xindex>")
        args.append((shaped, tensor_type(shape)))
    results = ", ".join(f"%r{i}" for i in range(num_results))
    arg_list = ", ".join(a for a, _ in args)
    arg_types = ", ".join(t for _, t in args)
    lines.append(f"  {results} = call @{function}({arg_list}) : "
                 f"({arg_types}) -> (RESULT_TYPES)")
    for i in range(num_results):
        lines.append(f"  %u{i} = tensor.cast %r{i} : RESULT_TYPE_{i} to "
                     "tensor<*xf32>")
        lines.append(f"  call @printMemrefF32(%u{i}) : (tensor<*xf32>) -> ()")
    lines.append("  return")
    lines.append("}")
    body = "\n".join(lines)
    # Resource blobs ({-# ... #-}) follow the module: keep them after it.
    code, marker, resources = graph_text.partition("{-#")
    if re.search(r"^\s*module\b", code, re.M):
        end = code.rstrip().rfind("}")
        code = code[:end] + body + "\n}\n"
    else:
        code = code + "\n" + body + "\n"
    return code + marker + resources


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--graph", required=True)
    parser.add_argument("--function", required=True)
    parser.add_argument("--run-dir", required=True, type=pathlib.Path)
    parser.add_argument("--llvm-bin", required=True, type=pathlib.Path)
    parser.add_argument("--rtol", type=float, default=1e-5)
    parser.add_argument("--atol", type=float, default=1e-5)
    args = parser.parse_args()

    inputs = [read_npy(p) for p in sorted(args.run_dir.glob("input*.npy"),
                                          key=lambda p: int(p.stem[5:]))]
    results = [read_npy(p) for p in sorted(args.run_dir.glob("result*.npy"),
                                           key=lambda p: int(p.stem[6:]))]
    text = harness(pathlib.Path(args.graph).read_text(), args.function,
                   inputs, len(results))
    types = [tensor_type(shape) for shape, _ in results]
    text = text.replace("RESULT_TYPES", ", ".join(types))
    for i, t in enumerate(types):
        text = text.replace(f"RESULT_TYPE_{i}", t)

    pipeline = []
    if "tosa." in text:
        pipeline += ["--tosa-to-linalg-pipeline", "--tosa-to-tensor",
                     "--tosa-to-arith", "--canonicalize"]
    pipeline += [
        "--one-shot-bufferize=bufferize-function-boundaries "
        "function-boundary-type-conversion=identity-layout-map",
        "--buffer-deallocation-pipeline", "--convert-bufferization-to-memref",
        "--convert-linalg-to-loops", "--convert-scf-to-cf",
        "--expand-strided-metadata", "--lower-affine", "--convert-to-llvm",
        "--reconcile-unrealized-casts"]
    lowered = subprocess.run([str(args.llvm_bin / "mlir-opt"), *pipeline],
                             input=text, capture_output=True, text=True)
    if lowered.returncode:
        print(lowered.stderr[-2000:])
        return 1
    libs = args.llvm_bin.parent / "lib"
    run = subprocess.run(
        [str(args.llvm_bin / "mlir-runner"), "-e", "__oracle_main",
         "--entry-point-result=void",
         f"--shared-libs={libs}/libmlir_runner_utils.so,"
         f"{libs}/libmlir_c_runner_utils.so"],
        input=lowered.stdout, capture_output=True, text=True)
    if run.returncode:
        print(run.stderr[-2000:])
        return 1
    # Each printMemrefF32 prints a header line then the nested values.
    blocks = re.split(r"Unranked Memref[^\n]*\n", run.stdout)[1:]
    worst = 0.0
    failed = 0
    for i, (block, (shape, got)) in enumerate(zip(blocks, results)):
        expected = [float(v) for v in
                    re.findall(r"-?(?:nan|inf|\d+\.?\d*(?:e[-+]?\d+)?)", block)]
        if len(expected) != len(got):
            print(f"result {i}: oracle printed {len(expected)} values, "
                  f"neuron-run wrote {len(got)}")
            return 1
        for e, g in zip(expected, got):
            err = abs(e - g)
            worst = max(worst, err / (args.atol + args.rtol * abs(e)))
            failed += err > args.atol + args.rtol * abs(e)
        print(f"result {i}: {len(got)} values, shape {list(shape)}")
    print(f"worst error / tolerance: {worst:.3f}")
    print(f"{failed} elements outside atol={args.atol} rtol={args.rtol}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
