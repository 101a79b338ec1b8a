#!/usr/bin/env python3
"""LLM serving benchmark (issue #15): predicted time to first token (TTFT)
and time per output token (TPOT) of LLaMA-style models on trn2.48xlarge,
beside AWS's published NxD Inference figures.

For each model and tensor-parallel degree:
- prefill: test/benchmarks/llama_layer.py --dynamic writes one decoder layer
  with a variable sequence length; neuron-compile builds it once with shape
  buckets (--buckets, the context-encoding buckets below) and
  --tensor-parallel; `neuron-run --timing-only --length=PROMPT` times the
  bucket holding the prompt. TTFT = layers x that layer's observed time.
- decode: llama_layer.py --decode CACHE writes one decode step with KV
  caches of CACHE positions (one per token-generation bucket the output's
  positions fall in); TPOT = layers x the step's observed time, averaged
  over the output tokens by the bucket each one's position falls in.

Only the decoder layers are timed: the embedding, the final norm, the LM
head, sampling and the host are not (stated in the output). Every figure
is the simulator's observed time on the cost model; the published row is
printed beside it with the ratio, as measured.

A degree is skipped, with the reason, when the layer's weights per logical
core exceed its HBM (trn2: 96 GiB per chip, 4 logical cores per chip at
lnc=2) or the heads cannot be split that many ways. With fewer KV heads
than cores (the 70B shape's 8 above TP=8), every core computes all of
them and keeps the whole KV cache.

Python 3 standard library only:
  python3 test/benchmarks/run_serving.py [--build-dir build]
      [--models 7b,70b] [--tp 1,2,4,8,16,32,64] [--prompts 128,2048,10000]
      [--output 1500]
"""

import argparse
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent

MODELS = {
    "7b": dict(name="LLaMA-2-7B", layers=32, hidden=4096, heads=32,
               kv_heads=32, ffn=11008),
    # Llama-3.3-70B's shape (its vocabulary and RoPE scaling aside).
    "70b": dict(name="Llama-3.3-70B", layers=80, hidden=8192, heads=64,
                kv_heads=8, ffn=28672),
}
TARGET = "trn2.48xlarge"
LOGICAL_CORES = 64          # trn2.48xlarge at lnc=2: 16 chips x 4
HBM_PER_CORE_GIB = 96 / 4   # per logical core at lnc=2
# The published configuration's buckets (NxD Inference's Llama-3.3-70B
# tutorial on trn2.48xlarge).
CONTEXT_BUCKETS = [2048, 4096, 8192, 12288]
TOKEN_BUCKETS = [2048, 4096, 8192, 12800]
PUBLISHED = dict(
    source="AWS NxD Inference, Llama-3.3-70B on trn2.48xlarge "
           "(libraries/nxd-inference/tutorials/trn2-llama3.3-70b-tutorial), "
           "BF16, batch 1, no speculation",
    ttft_ms=814.2, tpot_ms=19.6, tp=64, prompt=10000, output=1500)
DIFFERENCES = [
    "Above 8 cores (the 70B shape's KV heads) every core here computes "
    "all KV heads and keeps the whole KV cache, reading all of it each "
    "step; NxD replicates each KV head only to the cores whose query "
    "heads read it.",
    "NxD uses NKI attention, QKV and MLP kernels (flash attention), fused "
    "QKV, sequence parallelism and on-device sampling; here the compiler's "
    "own tiling: attention scores go through HBM, quadratic in the prompt.",
    "NxD's TTFT and TPOT are P50s of a vLLM server under LLMPerf (10000 "
    "input, 1500 output tokens, one request at a time) on hardware, with "
    "the embedding, LM head, sampling and host time included; here the "
    "decoder layers alone, predicted by the cost model.",
    "Llama-3.3-70B's vocabulary (128256), RoPE scaling and exact weights "
    "play no part: the layers have its shape.",
]


def run(cmd):
    done = subprocess.run([str(c) for c in cmd], capture_output=True,
                          text=True)
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{done.stderr[-3000:]}")
    return done


def observed_us(timing):
    """The observed step time of `neuron-run --timing-only`'s summary."""
    for line in timing.splitlines():
        if line.startswith("total"):
            return float(line.split()[2])
    sys.exit("no total line in:\n" + timing)


def bucket_of(buckets, length):
    return next((b for b in buckets if b >= length), None)


def weights_gib(m):
    d = m["hidden"] // m["heads"]
    attention = 2 * m["hidden"] * m["hidden"] + \
        2 * m["hidden"] * m["kv_heads"] * d
    mlp = 3 * m["hidden"] * m["ffn"]
    return m["layers"] * (attention + mlp) * 2 / 2**30


class Runner:
    def __init__(self, build, work):
        self.bin = build / "bin"
        self.work = work

    def compile(self, graph, out, *options):
        done = run([self.bin / "neuron-compile", graph, f"--target={TARGET}",
                    "-o", out, *options])
        if "partitioning failed" in done.stderr or \
                "nothing of the graph could be split" in done.stderr:
            reason = re.search(r"warning: neuron-compile: (.*)", done.stderr)
            return reason[1] if reason else "not partitioned"
        return None

    def layer(self, key, m, *args):
        path = self.work / f"{key}.mlir"
        run([sys.executable, HERE / "llama_layer.py", "--hidden", m["hidden"],
             "--heads", m["heads"], "--ffn", m["ffn"], *args, "-o", path])
        return path

    def time(self, nxe, *options):
        return observed_us(run([self.bin / "neuron-run", nxe, "--timing-only",
                                *options]).stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", default=ROOT / "build",
                        type=pathlib.Path)
    parser.add_argument("--models", default="7b,70b")
    parser.add_argument("--tp", default="1,2,4,8,16,32,64")
    parser.add_argument("--prompts", default="128,2048,10000")
    parser.add_argument("--output", type=int, default=1500)
    args = parser.parse_args()
    prompts = [int(p) for p in args.prompts.split(",")]
    degrees = [int(t) for t in args.tp.split(",")]
    for p in prompts:
        if not bucket_of(CONTEXT_BUCKETS, p) or \
                not bucket_of(TOKEN_BUCKETS, p + args.output - 1):
            sys.exit(f"prompt {p} + output {args.output} exceeds the "
                     f"buckets {CONTEXT_BUCKETS} / {TOKEN_BUCKETS}")

    print(f"target {TARGET} (lnc=2, {LOGICAL_CORES} logical cores, "
          f"{HBM_PER_CORE_GIB:g} GiB HBM per logical core); bf16; batch 1; "
          f"decoder layers only")
    print(f"context-encoding buckets {CONTEXT_BUCKETS}, token-generation "
          f"buckets {TOKEN_BUCKETS}; {args.output} output tokens\n")
    header = (f"{'model':<15}{'TP':>4}{'prompt':>8}{'bucket':>8}"
              f"{'layer us':>12}{'TTFT ms':>11}{'step us':>10}"
              f"{'TPOT ms':>10}{'tok/s':>8}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        runner = Runner(args.build_dir, pathlib.Path(tmp))
        for key in args.models.split(","):
            m = MODELS[key]
            for tp in degrees:
                gib = weights_gib(m) / tp
                if tp > LOGICAL_CORES:
                    continue
                if gib > HBM_PER_CORE_GIB:
                    rows.append(f"{m['name']:<15}{tp:>4}  skipped: "
                                f"{gib:.1f} GiB of weights per logical "
                                f"core, more than {HBM_PER_CORE_GIB:g} GiB")
                    continue
                if tp > 1 and m["heads"] % tp:
                    rows.append(f"{m['name']:<15}{tp:>4}  skipped: "
                                f"{m['heads']} heads cannot be split {tp} "
                                f"ways")
                    continue
                parallel = [f"--tensor-parallel={tp}"] if tp > 1 else []
                prefill = runner.layer(f"{key}_prefill", m, "--dynamic",
                                       "--kv-heads", m["kv_heads"])
                nxe = runner.work / f"{key}_tp{tp}_prefill.nxe"
                failed = runner.compile(
                    prefill, nxe, "--buckets=" +
                    ",".join(map(str, CONTEXT_BUCKETS)), *parallel)
                if failed:
                    rows.append(f"{m['name']:<15}{tp:>4}  skipped: {failed}")
                    continue
                steps = {}
                for p in prompts:
                    layer_us = runner.time(nxe, f"--length={p}")
                    # Each output token's position picks its cache bucket.
                    weights = {}
                    for pos in range(p, p + args.output):
                        b = bucket_of(TOKEN_BUCKETS, pos + 1)
                        weights[b] = weights.get(b, 0) + 1
                    for b in weights:
                        if b not in steps:
                            step = runner.layer(
                                f"{key}_decode{b}", m, "--decode", b,
                                "--kv-heads", m["kv_heads"])
                            out = runner.work / f"{key}_tp{tp}_d{b}.nxe"
                            runner.compile(step, out, *parallel)
                            steps[b] = runner.time(out)
                    step_us = sum(steps[b] * n for b, n in weights.items()) \
                        / args.output
                    ttft = m["layers"] * layer_us / 1000
                    tpot = m["layers"] * step_us / 1000
                    rows.append(
                        f"{m['name']:<15}{tp:>4}{p:>8}"
                        f"{bucket_of(CONTEXT_BUCKETS, p):>8}"
                        f"{layer_us:>12.1f}{ttft:>11.1f}{step_us:>10.1f}"
                        f"{tpot:>10.2f}{1000 / tpot:>8.1f}")
                    if key == "70b" and p == PUBLISHED["prompt"]:
                        rows.append(
                            f"{'  vs NxD':<15}{PUBLISHED['tp']:>4}{p:>8}"
                            f"{'':>8}{'':>12}{PUBLISHED['ttft_ms']:>11.1f}"
                            f"{'':>10}{PUBLISHED['tpot_ms']:>10.2f}"
                            f"{1000 / PUBLISHED['tpot_ms']:>8.1f}"
                            f"   ratio TTFT {ttft / PUBLISHED['ttft_ms']:.1f}x,"
                            f" TPOT {tpot / PUBLISHED['tpot_ms']:.2f}x")
                print(f"{m['name']} TP={tp}: done", file=sys.stderr,
                      flush=True)
    print(header)
    print("\n".join(rows))
    print(f"\npublished: {PUBLISHED['source']}: TTFT {PUBLISHED['ttft_ms']} "
          f"ms, TPOT {PUBLISHED['tpot_ms']} ms at TP={PUBLISHED['tp']}, "
          f"{PUBLISHED['prompt']} input and {PUBLISHED['output']} output "
          f"tokens")
    print("configuration differences:")
    for d in DIFFERENCES:
        print(f"- {d}")


if __name__ == "__main__":
    main()
