#!/usr/bin/env python3
"""The compile cache's hit time against the cold compile, side by side in one
run, per graph: neuron-compile without a cache, the first compile with
--cache-dir (a miss: compile and store) and the second (a hit), each the
best of --repeat runs, with the hit's share of the cold compile. Graphs: the
bundled example MLP, and from the corpus (when there) ResNet-50,
EfficientNet-B0 and LLaMA-2-7B (TOSA, weights as arguments).

Python 3 standard library only. Run from anywhere:
  python3 test/benchmarks/compile_cache.py [--build-dir build] [--repeat 3]
"""

import argparse
import pathlib
import shutil
import sys
import tempfile

from run_suite import ROOT, corpus_dir, timed
from run_scale import tree_version

# (file, flags, name)
GRAPHS = [("examples/mlp.mlir", [], "mlp (example)")]
CORPUS = [("nelli_torchvision_resnet50_linalg.mlir", ["--entry=forward"],
           "resnet50"),
          ("nelli_torchvision_efficientnet_b0_linalg.mlir",
           ["--entry=forward"], "efficientnet-b0"),
          ("buddy_llama2_7b_tosa.mlir",
           ["--entry=subgraph0", "--fallback=host"], "llama2-7b (tosa)")]


def best(args, cmd, repeat, before=None):
    """The best wall time of `cmd` over `repeat` runs (`before` runs first
    each time, untimed)."""
    times = []
    for _ in range(repeat):
        if before:
            before()
        code, log, wall, _ = timed(cmd)
        if code:
            raise RuntimeError(f"{cmd[1]} failed: {log[-400:]}")
        times.append(wall)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", type=pathlib.Path,
                        default=ROOT / "build")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--target", default="trn2")
    args = parser.parse_args()
    compile_bin = str(args.build_dir / "bin" / "neuron-compile")

    graphs = [(ROOT / path, flags, name) for path, flags, name in GRAPHS]
    corpus = corpus_dir()
    if corpus:
        graphs += [(corpus / f, e, n) for f, e, n in CORPUS]
    else:
        print("corpus not found (set NEURON_CORPUS_DIR): corpus rows skipped")

    print(f"neuron-mlir {tree_version()}, target {args.target}, "
          f"best of {args.repeat}\n")
    print("| graph | cold compile | miss (compile + store) | hit | hit / cold |"
          "\n|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as work:
        work = pathlib.Path(work)
        cache = work / "cache"
        for path, flags, name in graphs:
            cmd = [compile_bin, str(path), f"--target={args.target}", *flags,
                   "-o", str(work / "out.nxe")]
            cached = cmd + [f"--cache-dir={cache}"]
            cold = best(args, cmd, args.repeat)
            miss = best(args, cached, args.repeat,
                        before=lambda: shutil.rmtree(cache, True))
            hit = best(args, cached, args.repeat)
            print(f"| {name} | {cold * 1e3:.0f} ms | {miss * 1e3:.0f} ms | "
                  f"{hit * 1e3:.0f} ms | {hit / cold:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
