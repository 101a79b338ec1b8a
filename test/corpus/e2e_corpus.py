#!/usr/bin/env python3
"""Compiles corpus graphs for trn2 with neuron-compile, runs them with
neuron-run on seeded random inputs and, where the graph is small enough to
embed its inputs as literals, compares every result with upstream MLIR's CPU
pipeline (test/e2e/oracle.py). Prints one row per graph; exits non-zero on
any failure.
"""

import argparse
import pathlib
import subprocess
import sys
import tempfile

# (file, function, oracle?) — the attention and SwiGLU graphs hold tens of
# MB of f32 inputs, too large to embed in an oracle harness; they are
# compiled and run only.
GRAPHS = [
    ("tpp_torch_dynamo_mlp3_fp32_linalg", "forward", True),
    ("heir_mnist_mlp_linalg", "mnist", True),
    ("heir_torch_softmax_2d_linalg", "main", True),
    ("buddynext_rmsnorm_tosa", "kernel", True),
    ("heir_lenet_linalg", "lenet", True),
    ("buddy_lenet_tosa", "forward", True),
    ("nelli_torchvision_resnet50_linalg", "forward", True),
    ("nelli_torchvision_mobilenet_v2_linalg", "forward", True),
    ("nelli_torchvision_efficientnet_b0_linalg", "forward", True),
    ("tpp_torch_dynamo_mlp3_bf16_linalg", "forward", False),
    ("buddynext_ffn_swiglu_tosa", "kernel", False),
    ("buddynext_mhsa_core_tosa", "kernel", False),
    ("buddynext_mhsa_qkv_tosa", "kernel", False),
]


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
    return proc.returncode, proc.stdout + proc.stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bin", required=True, type=pathlib.Path)
    parser.add_argument("--llvm-bin", required=True)
    parser.add_argument("--corpus", required=True, type=pathlib.Path)
    parser.add_argument("--oracle", required=True)
    args = parser.parse_args()
    failed = 0
    print(f"{'graph':40} {'compile':8} {'run':5} oracle")
    with tempfile.TemporaryDirectory() as tmp:
        for name, function, oracle in GRAPHS:
            graph = args.corpus / f"{name}.mlir"
            exe = pathlib.Path(tmp) / f"{name}.nxe"
            out = pathlib.Path(tmp) / name
            out.mkdir()
            row = [name.ljust(40)]
            code, log = run([str(args.bin / "neuron-compile"), str(graph),
                             "--target=trn2", "-o", str(exe)])
            row.append("ok".ljust(8) if code == 0 else "FAILED  ")
            if code == 0:
                code, log = run([str(args.bin / "neuron-run"), str(exe),
                                 "--random-inputs", "--seed=1",
                                 f"--output-dir={out}"])
                row.append("ok".ljust(5) if code == 0 else "FAILED")
            if code == 0 and oracle:
                code, log = run([sys.executable, args.oracle, "--graph",
                                 str(graph), "--function", function,
                                 "--run-dir", str(out), "--llvm-bin",
                                 args.llvm_bin, "--rtol", "1e-4", "--atol",
                                 "1e-4"])
                row.append(log.strip().splitlines()[-1] if code == 0
                           else "FAILED")
            elif code == 0:
                row.append("(compiled and run; no oracle)")
            if code != 0:
                failed += 1
                row.append(log.strip()[-300:])
            print(" ".join(row))
    print(f"{len(GRAPHS)} graphs, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
