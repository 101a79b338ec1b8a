#!/usr/bin/env python3
"""Functional simulation at scale (issue #18), measured side by side in one
run and printed with the tree's version:

- GEMM 4096^3 in f32 and bf16 through `neuron-run` (inputs from .npy
  files, results written; compiled for --target), each the best of
  --repeats runs, against OpenBLAS's sgemm on the same machine in the same
  run (neuron-sgemm-rate, built here), as GFLOP/s and a ratio. The runs
  alternate, so a machine that slows down slows both sides.
- A LLaMA-2-7B decoder layer (hidden 4096, 32 heads, FFN 11008, 128
  tokens, bf16; llama_layer.py), all on the device (its causal mask
  compares iotas of the loop indices), run by `neuron-run`
  and checked against the CPU oracle (test/e2e/oracle.py, about 3 minutes;
  --no-oracle skips it), on inputs of a model's magnitudes
  (llama_layer.py --inputs).
- `neuron-run --timing-only` on the corpus's whole LLaMA-2-7B
  (buddy_llama2_7b_tosa.mlir, --fallback=host): its peak memory.

Then the issue's checks, PASS or FAIL each; exits non-zero when one fails.

The layer's tolerance is atol = rtol = 0.1 on a bf16 result of magnitude
about 1: both sides sum each 4096- or 11008-long product in f32 and round
once to bf16, but in different orders (the device adds 128-long partial
sums in PSUM, the oracle sums in one sequence), so about 7% of Q and K
elements land one bf16 step apart, the attention scores built from them
(magnitude about 20) move by up to 0.3, and the output by up to 0.07. A
layer at hidden 512 matches within 0.02 (test/e2e and the issue note). A
wrong layer is off by the output's own magnitude.

Python 3 standard library only. Run from anywhere:
  python3 test/benchmarks/run_functional.py [--build-dir build]
      [--target trn2] [--repeats 5] [--no-oracle] [--work DIR]
"""

import argparse
import pathlib
import random
import re
import subprocess
import sys
import tempfile

from llama_layer import write_inputs, write_npy
from run_suite import HERE, ROOT, corpus_dir, timed
from run_scale import compile_graph, report_checks, tree_version

LLVM_BIN = pathlib.Path("/usr/lib/llvm-22/bin")
GEMM_N = 4096
LAYER = {"seq": 128, "hidden": 4096, "heads": 32, "ffn": 11008}
LAYER_TOLERANCE = 0.1


def run_exe(args, exe, inputs, out):
    cmd = [str(args.bin / "neuron-run"), str(exe), f"--output-dir={out}"]
    cmd += [f"--input={i}={p}" for i, p in enumerate(inputs)]
    code, log, wall, rss = timed(cmd)
    if code:
        raise RuntimeError(f"neuron-run {exe.name} failed: " + log[-600:])
    return wall, rss


def sgemm_rate(args):
    proc = subprocess.run([str(args.bin / "neuron-sgemm-rate"), str(GEMM_N),
                           "2"], capture_output=True, text=True)
    m = re.search(r"threads (\d+) seconds ([0-9.]+) gflops ([0-9.]+)",
                  proc.stdout)
    if proc.returncode or not m:
        raise RuntimeError("neuron-sgemm-rate failed: " + proc.stdout
                           + proc.stderr)
    return int(m.group(1)), float(m.group(3))


def gemms(args, work):
    """Best-of-repeats GEMM times per dtype and the best sgemm rate."""
    text = (HERE / "suite" / "gemm_4096.mlir").read_text()
    rng = random.Random(18)
    cases = {}
    for dtype in ("f32", "bf16"):
        source = work / f"gemm_{dtype}.mlir"
        source.write_text(text.replace("bf16", dtype))
        exe = work / f"gemm_{dtype}.nxe"
        compile_graph(args, source, exe)
        inputs = [work / f"gemm_{dtype}_in{i}.npy" for i in range(2)]
        for path in inputs:
            write_npy(path, dtype, (GEMM_N, GEMM_N), 126, True, rng)
        cases[dtype] = (exe, inputs, [])
    rates = []
    for _ in range(args.repeats):
        threads, rate = sgemm_rate(args)
        rates.append(rate)
        for dtype, (exe, inputs, walls) in cases.items():
            wall, _ = run_exe(args, exe, inputs, work / f"gemm_{dtype}_run")
            walls.append(wall)
    flops = 2 * GEMM_N ** 3
    return {dtype: flops / min(walls) / 1e9
            for dtype, (_, _, walls) in cases.items()}, \
        {dtype: min(walls) for dtype, (_, _, walls) in cases.items()}, \
        max(rates), threads


def layer(args, work):
    source = work / "llama_layer.mlir"
    subprocess.run([sys.executable, str(HERE / "llama_layer.py"), "-o",
                    str(source)] + [f"--{k}={v}" for k, v in LAYER.items()],
                   check=True)
    exe = work / "llama_layer.nxe"
    compile_s, _, _ = compile_graph(args, source, exe)
    run_dir = work / "llama_layer_run"
    inputs = write_inputs(run_dir, LAYER["seq"], LAYER["hidden"],
                          LAYER["heads"], LAYER["ffn"], seed=7)
    wall, rss = run_exe(args, exe, inputs, run_dir)
    result = {"compile_s": compile_s, "run_s": wall, "run_mib": rss,
              "oracle": None}
    if args.no_oracle:
        return result
    proc = subprocess.run(
        [sys.executable, str(ROOT / "test" / "e2e" / "oracle.py"),
         "--graph", str(source), "--function", "decoder_layer",
         "--run-dir", str(run_dir), "--llvm-bin", str(LLVM_BIN),
         "--io-lib", str(args.build / "lib" / "libNeuronOracleIO.so"),
         "--rtol", str(LAYER_TOLERANCE), "--atol", str(LAYER_TOLERANCE)],
        capture_output=True, text=True)
    result["oracle"] = (proc.returncode == 0, (proc.stdout + proc.stderr)
                        .strip().splitlines()[-2:])
    return result


def timing_only_memory(args, work, corpus):
    exe = work / "llama_corpus.nxe"
    compile_graph(args, corpus / "buddy_llama2_7b_tosa.mlir", exe,
                  "--fallback=host")
    code, log, wall, rss = timed([str(args.bin / "neuron-run"), str(exe),
                                  "--timing-only"])
    if code:
        raise RuntimeError("neuron-run --timing-only failed: " + log[-600:])
    return wall, rss


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", default=str(ROOT / "build"))
    parser.add_argument("--target", default="trn2")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-oracle", action="store_true",
                        help="skip the layer's oracle run (about 3 minutes)")
    parser.add_argument("--work", help="keep the files here")
    args = parser.parse_args()
    args.build = pathlib.Path(args.build_dir).resolve()
    args.bin = args.build / "bin"
    subprocess.run(["cmake", "--build", str(args.build), "--target",
                    "neuron-sgemm-rate", "neuron-compile", "neuron-run",
                    "NeuronOracleIO"], check=True, stdout=subprocess.DEVNULL)

    checks = []
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(args.work or tmp)
        work.mkdir(parents=True, exist_ok=True)
        print(f"neuron-mlir {tree_version()}: functional simulation at scale"
              f" on {args.target} (best of {args.repeats})\n")
        # First, while this process is small: a child's peak resident size
        # counts what it shared with this process before it started.
        corpus = corpus_dir()
        timing_only = timing_only_memory(args, work, corpus) if corpus \
            else None
        rates, walls, sgemm, threads = gemms(args, work)
        print("| case | neuron-run s | GFLOP/s | share of sgemm |")
        print("|---|---:|---:|---:|")
        print(f"| OpenBLAS sgemm {GEMM_N}^3 ({threads} threads) | "
              f"{2 * GEMM_N ** 3 / sgemm / 1e9:.2f} | {sgemm:.1f} | 100% |")
        for dtype in ("f32", "bf16"):
            print(f"| GEMM {GEMM_N}^3 {dtype} | {walls[dtype]:.2f} | "
                  f"{rates[dtype]:.1f} | {rates[dtype] / sgemm:.0%} |")
        checks.append((f"GEMM {GEMM_N}^3 f32 >= 30% of sgemm",
                       f"{rates['f32'] / sgemm:.0%}",
                       rates["f32"] >= 0.3 * sgemm))
        checks.append(("bf16 within 2x of f32",
                       f"{rates['f32'] / rates['bf16']:.2f}x",
                       rates["bf16"] * 2 >= rates["f32"]))

        l = layer(args, work)
        print(f"\nLLaMA-2-7B decoder layer ({LAYER['seq']} tokens, bf16): "
              f"compile {l['compile_s']:.2f} s, neuron-run {l['run_s']:.1f} s"
              f" at {l['run_mib']:.0f} MiB")
        checks.append(("LLaMA-2-7B layer runs in < 60 s",
                       f"{l['run_s']:.1f} s", l["run_s"] < 60))
        if l["oracle"] is not None:
            ok, lines = l["oracle"]
            print("oracle: " + "; ".join(lines))
            checks.append(("LLaMA-2-7B layer matches the oracle",
                           lines[-1] if lines else "no output", ok))


        if timing_only:
            wall, rss = timing_only
            print(f"\nneuron-run --timing-only on the corpus LLaMA-2-7B: "
                  f"{wall:.2f} s, {rss:.0f} MiB peak")
            checks.append(("--timing-only on LLaMA-2-7B < 300 MiB",
                           f"{rss:.0f} MiB", rss < 300))
        else:
            print("\ncorpus not found (NEURON_CORPUS_DIR or ../shared/corpus)"
                  ": the --timing-only memory row is skipped")

    return report_checks(checks)


if __name__ == "__main__":
    sys.exit(main())
