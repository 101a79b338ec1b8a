#!/usr/bin/env python3
"""Kernels against their bounds (issue #13), side by side in one run.

Depthwise convolution: the issue's case (3x3, 32 channels, 112x112 output,
f32, one image) and two more shapes, compiled with neuron-compile and
timed with `neuron-run --timing-only --profile`. Each row gives the
predicted and observed time, the kernel's bound, and the vector-engine
bound: the cost model's time for one multiply and one add per
multiply-accumulate on all partitions of the logical core (one element per
partition per cycle at the vector clock of `--print-target`, the physical
cores of a logical core splitting it), and observed / that bound. With the
corpus (NEURON_CORPUS_DIR or ../shared/corpus beside the checkout) it also
times MobileNet-V2 and EfficientNet-B0 end to end.

Python 3 standard library only. Run from anywhere:
  python3 test/benchmarks/run_kernels.py [--build-dir build] [--target trn2]
"""

import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent

# name -> (channels, output rows, output columns, kernel size, stride)
DEPTHWISE = {
    "depthwise 3x3, 32 ch, 112x112": (32, 112, 112, 3, 1),
    "depthwise 3x3, 144 ch, 56x56, stride 2": (144, 56, 56, 3, 2),
    "depthwise 5x5, 672 ch, 14x14": (672, 14, 14, 5, 1),
}
CORPUS_GRAPHS = {
    "MobileNet-V2": "nelli_torchvision_mobilenet_v2_linalg.mlir",
    "EfficientNet-B0": "nelli_torchvision_efficientnet_b0_linalg.mlir",
}


def depthwise_graph(c, oh, ow, k, s):
    h, w = (oh - 1) * s + k, (ow - 1) * s + k
    x, y, f = (f"tensor<1x{c}x{h}x{w}xf32>", f"tensor<1x{c}x{oh}x{ow}xf32>",
               f"tensor<{c}x{k}x{k}xf32>")
    return f"""func.func @dw(%x: {x}, %w: {f}) -> {y} {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : {y}
  %o = linalg.fill ins(%z : f32) outs(%e : {y}) -> {y}
  %r = linalg.depthwise_conv_2d_nchw_chw {{dilations = dense<1> : vector<2xi64>,
      strides = dense<{s}> : vector<2xi64>}} ins(%x, %w : {x}, {f}) outs(%o : {y}) -> {y}
  return %r : {y}
}}
"""


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True)


def timed(bin_dir, graph, target, work):
    exe = work / (graph.stem + ".nxe")
    profile = work / (graph.stem + ".json")
    run([str(bin_dir / "neuron-compile"), str(graph), f"--target={target}",
         "-o", str(exe)])
    run([str(bin_dir / "neuron-run"), str(exe), "--timing-only",
         f"--profile={profile}"])
    return json.loads(profile.read_text())["program"]


def vector_ghz(bin_dir, target):
    """The vector engine's clock, as --print-target gives it."""
    text = run([str(bin_dir / "neuron-opt"),
                f"--print-target={target}"]).stdout
    return float(re.search(r"vector ([0-9.]+) GHz", text).group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default=str(ROOT / "build"))
    parser.add_argument("--target", default="trn2")
    args = parser.parse_args()
    bin_dir = pathlib.Path(args.build_dir).resolve() / "bin"
    ghz = vector_ghz(bin_dir, args.target)
    corpus = pathlib.Path(os.environ.get(
        "NEURON_CORPUS_DIR", ROOT.parent / "shared" / "corpus"))
    partitions = 128

    print(f"target {args.target}; vector engine {ghz} GHz")
    print(f"{'case':42} {'predicted_us':>12} {'observed_us':>12} "
          f"{'bound_us':>9} {'vector_us':>10} {'obs/vector':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        for i, (name, (c, oh, ow, k, s)) in enumerate(DEPTHWISE.items()):
            graph = work / f"dw{i}.mlir"
            graph.write_text(depthwise_graph(c, oh, ow, k, s))
            prog = timed(bin_dir, graph, args.target, work)
            profile = json.loads((work / f"dw{i}.json").read_text())
            cores = profile["cores"]["physical_cores_per_logical_core"]
            macs = c * oh * ow * k * k
            vector_ns = 2 * macs / (partitions * cores) / ghz
            print(f"{name:42} {prog['predicted_ns'] / 1e3:12.1f} "
                  f"{prog['observed_ns'] / 1e3:12.1f} "
                  f"{prog['bound_ns'] / 1e3:9.1f} {vector_ns / 1e3:10.1f} "
                  f"{prog['observed_ns'] / vector_ns:10.2f}")
        if not corpus.is_dir():
            print(f"(no corpus at {corpus}: the models are skipped)")
            return 0
        for name, file in CORPUS_GRAPHS.items():
            prog = timed(bin_dir, corpus / file, args.target, work)
            print(f"{name:42} {prog['predicted_ns'] / 1e3:12.1f} "
                  f"{prog['observed_ns'] / 1e3:12.1f} "
                  f"{prog['bound_ns'] / 1e3:9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
