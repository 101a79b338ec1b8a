#!/usr/bin/env python3
"""Kernels against their bounds (issue #13), side by side in one run.

GEMM sweep (`--gemm`): square 512 to 8192, rectangular, tall-skinny and
sizes that are not multiples of 128, in bf16, fp32 and fp8, on each
target given (default trn2,lnc=1 and trn1). Each row gives the observed
time and the roofline bound: the larger of the tensor engine's time at the
peak of the dtype (from the cost model's cycles per moving column and the
tensor clock) and the minimum bytes (both operands and the result once) at
the logical core's HBM bandwidth; "limit" names which, and "share" is
bound / observed. "reach" is bound / the busiest engine's own work in
the kernel (the tensor engine's busy time, or the DMA engines' over their
count, per physical core): the share the kernel would get with that
engine never idle, so a case below 85% there is held back by the work its
tiling gives the engine (transposes its layout needs, partial tiles,
per-instruction and per-descriptor costs), not by idle time. Cases whose
bound is above 50 us are checked against 85%. With `--tuned` every case is compiled with a tuning cache (each
matmul's best few plans scheduled alone, the fastest kept).

Tuning records (`--tuning`): graphs compiled three ways in one run, each
the fastest of five compiles: without a tuning cache, with a fresh one
(the plans searched and recorded), and again with the records (search
skipped); the last two as ratios to the first.

Depthwise convolution and pooling: the issue's case (3x3, 32 channels,
112x112 output, f32, one image), two more depthwise shapes and a max pool,
compiled with neuron-compile and timed with `neuron-run --timing-only
--profile`. Each row gives the predicted and observed time, the kernel's
bound, and the vector-engine bound: the cost model's time for one
multiply-accumulate instruction per tap (scalar_tensor_tensor, priced as
one tensor_tensor; one max per tap for the pool) on all
partitions of the logical core (one element per partition per cycle at the
vector clock of `--print-target`, the physical cores of a logical core
splitting it), and observed / that bound. With the
corpus (NEURON_CORPUS_DIR or ../shared/corpus beside the checkout) it also
times MobileNet-V2 and EfficientNet-B0 end to end.

Python 3 standard library only. Run from anywhere:
  python3 test/benchmarks/run_kernels.py [--build-dir build] [--target trn2]
  python3 test/benchmarks/run_kernels.py --gemm [--gemm-target trn1 ...] [--tuned]
  python3 test/benchmarks/run_kernels.py --tuning
"""

import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent

# name -> (op, channels, output rows, output columns, kernel size, stride)
WINDOWED = {
    "depthwise 3x3, 32 ch, 112x112": ("depthwise", 32, 112, 112, 3, 1),
    "depthwise 3x3, 144 ch, 56x56, stride 2": ("depthwise", 144, 56, 56, 3, 2),
    "depthwise 5x5, 672 ch, 14x14": ("depthwise", 672, 14, 14, 5, 1),
    "max pool 3x3, 64 ch, 56x56, stride 2": ("maxpool", 64, 56, 56, 3, 2),
}
# Vector-engine operations per tap and output element.
OPS_PER_TAP = {"depthwise": 1, "maxpool": 1}
# (M, K, N): square, the NKI tutorial's rectangle, wide, tall-skinny,
# not multiples of 128.
GEMMS = [(512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048),
         (4096, 4096, 4096), (8192, 8192, 8192), (4096, 8192, 8192),
         (1024, 4096, 16384), (8192, 1024, 1024), (16384, 512, 256),
         (1000, 1000, 1000), (3000, 2000, 1500), (4000, 4000, 4000)]
# dtype (the cost model's peak name) -> (MLIR element type, bytes, result
# type, result bytes)
DTYPES = {"bf16": ("bf16", 2, "bf16", 2),
          "fp32": ("f32", 4, "f32", 4),
          "fp8": ("f8E4M3FN", 1, "f32", 4)}
CORPUS_GRAPHS = {
    "MobileNet-V2": "nelli_torchvision_mobilenet_v2_linalg.mlir",
    "EfficientNet-B0": "nelli_torchvision_efficientnet_b0_linalg.mlir",
}


def windowed_graph(op, c, oh, ow, k, s):
    h, w = (oh - 1) * s + k, (ow - 1) * s + k
    x, y, f = (f"tensor<1x{c}x{h}x{w}xf32>", f"tensor<1x{c}x{oh}x{ow}xf32>",
               f"tensor<{c}x{k}x{k}xf32>")
    if op == "maxpool":
        return f"""func.func @pool(%x: {x}) -> {y} {{
  %m = arith.constant 0xFF800000 : f32
  %k = tensor.empty() : tensor<{k}x{k}xf32>
  %e = tensor.empty() : {y}
  %o = linalg.fill ins(%m : f32) outs(%e : {y}) -> {y}
  %r = linalg.pooling_nchw_max {{dilations = dense<1> : vector<2xi64>,
      strides = dense<{s}> : vector<2xi64>}} ins(%x, %k : {x}, tensor<{k}x{k}xf32>)
      outs(%o : {y}) -> {y}
  return %r : {y}
}}
"""
    return f"""func.func @dw(%x: {x}, %w: {f}) -> {y} {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : {y}
  %o = linalg.fill ins(%z : f32) outs(%e : {y}) -> {y}
  %r = linalg.depthwise_conv_2d_nchw_chw {{dilations = dense<1> : vector<2xi64>,
      strides = dense<{s}> : vector<2xi64>}} ins(%x, %w : {x}, {f}) outs(%o : {y}) -> {y}
  return %r : {y}
}}
"""


def gemm_graph(m, k, n, dtype):
    t, _, r, _ = DTYPES[dtype]
    a, b, c = (f"tensor<{m}x{k}x{t}>", f"tensor<{k}x{n}x{t}>",
               f"tensor<{m}x{n}x{r}>")
    return f"""func.func @gemm(%a: {a}, %b: {b}) -> {c} {{
  %z = arith.constant 0.0 : {r}
  %e = tensor.empty() : {c}
  %o = linalg.fill ins(%z : {r}) outs(%e : {c}) -> {c}
  %r = linalg.matmul ins(%a, %b : {a}, {b}) outs(%o : {c}) -> {c}
  return %r : {c}
}}
"""


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True)


def timed(bin_dir, graph, target, work, tuned=False, entry=None):
    exe = work / (graph.stem + ".nxe")
    profile = work / (graph.stem + ".json")
    tuning = [f"--tuning-cache={work / 'tuning'}"] if tuned else []
    entries = [f"--entry={entry}"] if entry else []
    run([str(bin_dir / "neuron-compile"), str(graph), f"--target={target}",
         "-o", str(exe)] + tuning + entries)
    run([str(bin_dir / "neuron-run"), str(exe), "--timing-only",
         f"--profile={profile}"])
    return json.loads(profile.read_text())


def engine_ghz(bin_dir, target, engine):
    """An engine's clock ("vector", "tensor"), as --print-target gives it."""
    text = run([str(bin_dir / "neuron-opt"),
                f"--print-target={target}"]).stdout
    return float(re.search(engine + r" ([0-9.]+) GHz", text).group(1))


def tuning_times(bin_dir, target):
    """Compile times without tuning, searching, and reading the records."""
    graphs = [HERE / "suite" / name for name in
              ("mlp.mlir", "gemm_4096.mlir", "attention.mlir")]
    print(f"{'graph':24} {'untuned_s':>10} {'search_s':>9} {'records_s':>10} "
          f"{'search/untuned':>15} {'records/untuned':>16}")
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        for graph in graphs:
            def best(extra, fresh=False):
                times = []
                for _ in range(5):
                    if fresh:
                        shutil.rmtree(work / "tuning", ignore_errors=True)
                    start = time.perf_counter()
                    run([str(bin_dir / "neuron-compile"), str(graph),
                         f"--target={target}", "-o", str(work / "x.nxe")]
                        + extra)
                    times.append(time.perf_counter() - start)
                return min(times)
            tuning = [f"--tuning-cache={work / 'tuning'}"]
            untuned = best([])
            search = best(tuning, fresh=True)
            records = best(tuning)
            print(f"{graph.name:24} {untuned:10.3f} {search:9.3f} "
                  f"{records:10.3f} {search / untuned:15.2f} "
                  f"{records / untuned:16.2f}")


def gemm_sweep(bin_dir, targets, tuned=False):
    """Prints the sweep; the number of checked cases below 85%."""
    misses = 0
    print(f"{'target':14} {'M x K x N':20} {'dtype':5} {'observed_us':>12} "
          f"{'bound_us':>9} {'limit':>6} {'share':>6} {'reach':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        for target in targets:
            ghz = engine_ghz(bin_dir, target, "tensor")
            for dtype in DTYPES:
                for m, k, n in GEMMS:
                    graph = work / f"g{m}_{k}_{n}_{dtype}.mlir"
                    graph.write_text(gemm_graph(m, k, n, dtype))
                    profile = timed(bin_dir, graph, target, work, tuned)
                    prog = profile["program"]
                    cores = profile["cores"]["physical_cores_per_logical_core"]
                    model = " ".join(profile["cost_model"])
                    cycles = dict(zip(("fp32", "bf16", "fp8"), map(float, re.search(
                        r"([0-9.]+) cycles per moving column \(fp32\), "
                        r"([0-9.]+) \(bf16/fp16\), ([0-9.]+) \(fp8", model).groups())))
                    hbm = float(re.search(r"([0-9.]+) B/ns of HBM", model).group(1))
                    engines = int(re.search(r"DMA: ([0-9]+) engines per physical core",
                                            model).group(1))
                    busy = {e: sum(kern["busy_ns"][e] for kern in profile["kernels"])
                            for e in ("tensor", "dma")}
                    busiest = max(busy["tensor"], busy["dma"] / engines) / cores
                    _, eb, _, rb = DTYPES[dtype]
                    peak_per_ns = 2 * 128 * 128 * ghz * cores / cycles[dtype]
                    compute = 2 * m * n * k / peak_per_ns
                    memory = ((m * k + k * n) * eb + m * n * rb) / hbm
                    bound = max(compute, memory)
                    share = bound / prog["observed_ns"]
                    checked = bound > 50e3
                    mark = "" if not checked else (" ok" if share >= 0.85 else " BELOW")
                    misses += checked and share < 0.85
                    print(f"{target:14} {f'{m}x{k}x{n}':20} {dtype:5} "
                          f"{prog['observed_ns'] / 1e3:12.1f} {bound / 1e3:9.1f} "
                          f"{'tensor' if compute >= memory else 'hbm':>6} "
                          f"{share:6.1%} {bound / busiest:6.1%}{mark}")
    return misses


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default=str(ROOT / "build"))
    parser.add_argument("--target", default="trn2")
    parser.add_argument("--gemm", action="store_true",
                        help="run the GEMM sweep instead")
    parser.add_argument("--gemm-target", action="append",
                        help="a target of the sweep (default trn2,lnc=1 "
                             "and trn1)")
    parser.add_argument("--tuned", action="store_true",
                        help="compile the sweep with a tuning cache")
    parser.add_argument("--tuning", action="store_true",
                        help="time compiles with and without tuning records")
    args = parser.parse_args()
    bin_dir = pathlib.Path(args.build_dir).resolve() / "bin"
    if args.tuning:
        tuning_times(bin_dir, args.target)
        return 0
    if args.gemm:
        misses = gemm_sweep(bin_dir, args.gemm_target or ["trn2,lnc=1", "trn1"],
                            args.tuned)
        print(f"{misses} case(s) above 50 us below 85% of their bound")
        return 1 if misses else 0
    ghz = engine_ghz(bin_dir, args.target, "vector")
    corpus = pathlib.Path(os.environ.get(
        "NEURON_CORPUS_DIR", ROOT.parent / "shared" / "corpus"))
    partitions = 128

    print(f"target {args.target}; vector engine {ghz} GHz")
    print(f"{'case':42} {'predicted_us':>12} {'observed_us':>12} "
          f"{'bound_us':>9} {'vector_us':>10} {'obs/vector':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        for i, (name, (op, c, oh, ow, k, s)) in enumerate(WINDOWED.items()):
            graph = work / f"dw{i}.mlir"
            graph.write_text(windowed_graph(op, c, oh, ow, k, s))
            profile = timed(bin_dir, graph, args.target, work)
            prog = profile["program"]
            cores = profile["cores"]["physical_cores_per_logical_core"]
            ops = OPS_PER_TAP[op] * c * oh * ow * k * k
            vector_ns = ops / (partitions * cores) / ghz
            print(f"{name:42} {prog['predicted_ns'] / 1e3:12.1f} "
                  f"{prog['observed_ns'] / 1e3:12.1f} "
                  f"{prog['bound_ns'] / 1e3:9.1f} {vector_ns / 1e3:10.1f} "
                  f"{prog['observed_ns'] / vector_ns:10.2f}")
        if not corpus.is_dir():
            print(f"(no corpus at {corpus}: the models are skipped)")
            return 0
        for name, file in CORPUS_GRAPHS.items():
            prog = timed(bin_dir, corpus / file, args.target, work)["program"]
            print(f"{name:42} {prog['predicted_ns'] / 1e3:12.1f} "
                  f"{prog['observed_ns'] / 1e3:12.1f} "
                  f"{prog['bound_ns'] / 1e3:9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
