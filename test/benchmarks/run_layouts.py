#!/usr/bin/env python3
"""Image layouts, first layers, broadcasts and reductions ahead of kept axes,
side by side in one run.

TFLite, TOSA and JAX graphs keep images NHWC and filters HWCF or OHWI;
image networks start with a large filter over 3 channels; exporters write
softmax and norms as elementwise ops reading broadcasts; torch-mlir's
reductions sum over leading axes. Each case here is compiled
with neuron-compile and timed with `neuron-run --timing-only` on trn2
(lnc=2) and trn1, printing the observed time; with `--base-build-dir`, the
same with a second build (another commit's) and the ratio base / this.
With the corpus (NEURON_CORPUS_DIR or ../shared/corpus beside the
checkout) it also times its TOSA ResNet-18, whose elided weights
test/e2e/materialize_elided.py fills.

  python3 test/benchmarks/run_layouts.py [--build-dir build]
                                         [--base-build-dir OTHER/build]

Python 3 standard library only.
"""

import argparse
import pathlib
import subprocess
import sys
import tempfile

from run_kernels import ROOT, timed
from run_suite import corpus_dir

INPUTS = ROOT / "test" / "e2e" / "Inputs"
TARGETS = ["trn2", "trn1"]

ZP = '%zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>'

# name -> graph text, a file of test/e2e/Inputs holding one function, or
# (file, the function to compile).
CASES = {
    "NHWC to NCHW 2x56x56x64 f32": """
func.func @f(%a: tensor<2x56x56x64xf32>) -> tensor<2x64x56x56xf32> {
  %e = tensor.empty() : tensor<2x64x56x56xf32>
  %r = linalg.transpose ins(%a : tensor<2x56x56x64xf32>)
      outs(%e : tensor<2x64x56x56xf32>) permutation = [0, 3, 1, 2]
  return %r : tensor<2x64x56x56xf32>
}""",
    "conv NHWC/HWCF 3x3/2 2x57x57x48->80": """
func.func @f(%x: tensor<2x57x57x48xf32>, %w: tensor<3x3x48x80xf32>) -> tensor<2x28x28x80xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x28x28x80xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<2x28x28x80xf32>) -> tensor<2x28x28x80xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<2x57x57x48xf32>, tensor<3x3x48x80xf32>) outs(%o : tensor<2x28x28x80xf32>) -> tensor<2x28x28x80xf32>
  return %r : tensor<2x28x28x80xf32>
}""",
    "TOSA conv 3x3 1x28x28x128->128": f"""
func.func @f(%x: tensor<1x28x28x128xf32>, %w: tensor<128x3x3x128xf32>, %b: tensor<128xf32>) -> tensor<1x28x28x128xf32> {{
  {ZP}
  %r = tosa.conv2d %x, %w, %b, %zp, %zp {{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}}
      : (tensor<1x28x28x128xf32>, tensor<128x3x3x128xf32>, tensor<128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x28x28x128xf32>
  return %r : tensor<1x28x28x128xf32>
}}""",
    "TOSA block (Inputs/nhwc_block.mlir)": INPUTS / "nhwc_block.mlir",
    "torch stem 7x7/2 1x3x224x224->64": """
func.func @f(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 3, 3] high[0, 0, 3, 3] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x3x224x224xf32> to tensor<1x3x230x230xf32>
  %e = tensor.empty() : tensor<1x64x112x112xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %w : tensor<1x3x230x230xf32>, tensor<64x3x7x7xf32>) outs(%o : tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32>
  return %r : tensor<1x64x112x112xf32>
}""",
    "TOSA softmax, log-sum-exp 6x200x384": (INPUTS / "row_broadcasts.mlir",
                                            "lse"),
    "TOSA depthwise 3x3 1x56x56x96 + clamp": f"""
func.func @f(%x: tensor<1x56x56x96xf32>, %w: tensor<3x3x96x1xf32>, %b: tensor<96xf32>) -> tensor<1x56x56x96xf32> {{
  {ZP}
  %c = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}}
      : (tensor<1x56x56x96xf32>, tensor<3x3x96x1xf32>, tensor<96xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x56x56x96xf32>
  %r = tosa.clamp %c {{max_val = 6.0 : f32, min_val = 0.0 : f32}} : (tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
  return %r : tensor<1x56x56x96xf32>
}}""",
    "TOSA avg pool 2x2/2 1x28x28x64": f"""
func.func @f(%x: tensor<1x28x28x64xf32>) -> tensor<1x14x14x64xf32> {{
  {ZP}
  %r = tosa.avg_pool2d %x, %zp, %zp {{acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>}}
      : (tensor<1x28x28x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x14x14x64xf32>
  return %r : tensor<1x14x14x64xf32>
}}""",
    "TOSA global sum 1x7x7x1280": """
func.func @f(%x: tensor<1x7x7x1280xf32>) -> tensor<1x1x1x1280xf32> {
  %s = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<1x7x7x1280xf32>) -> tensor<1x1x7x1280xf32>
  %r = tosa.reduce_sum %s {axis = 2 : i32} : (tensor<1x1x7x1280xf32>) -> tensor<1x1x1x1280xf32>
  return %r : tensor<1x1x1x1280xf32>
}""",
    "reductions (Inputs/reductions.mlir)": INPUTS / "reductions.mlir",
}


def observed_us(bin_dir, graph, target, work, entry=None):
    return timed(bin_dir, graph, target, work,
                 entry=entry)["program"]["observed_ns"] / 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default=str(ROOT / "build"))
    parser.add_argument("--base-build-dir",
                        help="a second build to time beside this one")
    args = parser.parse_args()
    bins = [pathlib.Path(args.build_dir).resolve() / "bin"]
    if args.base_build_dir:
        bins.append(pathlib.Path(args.base_build_dir).resolve() / "bin")
    header = f"{'case':40} {'target':7} {'observed_us':>12}"
    if len(bins) > 1:
        header += f" {'base_us':>10} {'base/this':>10}"
    print(header)
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        cases = dict(CASES)
        corpus = corpus_dir()
        if corpus:
            cases["TOSA ResNet-18 (corpus)"] = work / "resnet18.mlir"
            subprocess.run([sys.executable, str(INPUTS.parent /
                                                "materialize_elided.py"),
                            str(corpus / "buddy_resnet18_tosa.mlir"),
                            "-o", str(work / "resnet18.mlir")],
                           check=True, capture_output=True, text=True)
        else:
            print("(no corpus: set NEURON_CORPUS_DIR or check out "
                  "../shared/corpus; ResNet-18 is skipped)")
        for name, case in cases.items():
            graph, entry = case if isinstance(case, tuple) else (case, None)
            if isinstance(case, str):
                graph = work / "g.mlir"
                graph.write_text(case)
            for target in TARGETS:
                times = [observed_us(b, graph, target, work, entry)
                         for b in bins]
                line = f"{name:40} {target:7} {times[0]:12.1f}"
                if len(times) > 1:
                    line += f" {times[1]:10.1f} {times[1] / times[0]:10.2f}"
                print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
