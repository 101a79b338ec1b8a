#!/usr/bin/env python3
"""Schedule-quality suite (issue #5, "Engines in parallel").

Compiles each graph of test/benchmarks/suite/ with neuron-compile and the
synthetic kernel (synthetic.py) with neuron-opt + neuron-translate, times
them with `neuron-run --timing-only --profile`, and reports per benchmark
the predicted, observed and bound times, observed/bound, the prediction
error, the serial-order time, the speed-up over it and the share of the
tensor engine's peak; then the suite's checks, PASS or FAIL each, exiting
non-zero if one fails. With the corpus (NEURON_CORPUS_DIR or
../shared/corpus beside the checkout) it also reports neuron-compile's time
and peak memory on the LLaMA-2-7B and ResNet-50 graphs.

The suite runs on one physical NeuronCore (trn2,lnc=1), where its checks
are defined; `--target=trn2` times a logical core of two (lnc=2), whose
512-column matmul instructions pay the fixed cycles on half the streaming
(about 85% of that core's peak at best).

Python 3 standard library only. Run from anywhere:
  python3 test/benchmarks/run_suite.py [--build-dir build] [--only NAME]
                                       [--target trn2,lnc=1]
"""

import argparse
import json
import math
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

# trn2, one NeuronCore: 128x128 array at 2.4 GHz; the bf16 peak is 79
# TFLOPS, fp32 a quarter of it. Used only when the profile's cost-model
# lines do not give the cycles per moving column.
ARRAY_ROWS = 128
TENSOR_GHZ = 2.4
PEAK_OPS_PER_NS = {"bf16": 79e12 * 1e-9, "f32": 79e12 * 1e-9 / 4}

# name -> (useful FLOPs of its matmuls, their input dtype). FLOPs count
# 2*M*N*K per matmul; graphs without matmuls count 0 (no % of peak).
SUITE = {
    "gemm_4096": (2 * 4096 * 4096 * 4096, "bf16"),
    "gemm_tall_skinny": (2 * 8192 * 1024 * 1024, "bf16"),
    "gemm_decode": (2 * 1 * 4096 * 4096, "bf16"),
    "mlp": (2 * 512 * 1024 * 4096 + 2 * 512 * 4096 * 1024, "bf16"),
    # Q K^T and P V over 8 heads, seq 512, head size 64.
    "attention": (2 * (2 * 8 * 512 * 512 * 64), "f32"),
    "layernorm": (0, "f32"),
    "softmax": (0, "f32"),
}
SYNTHETIC = "synthetic"
SYNTHETIC_TARGET_NS = 5e6
# The synthetic kernel's matmuls: 650 tiles x 34 of [128,128] x [128,512].
SYNTHETIC_FLOPS = (650 * 34 * 2 * 128 * 128 * 512, "bf16")

# Corpus graphs whose compile time and peak memory are reported:
# (label, file, extra neuron-compile options).
CORPUS = [
    ("LLaMA-2-7B (linalg)", "buddy_llama2_7b_linalg.mlir", ["--fallback=host"]),
    ("ResNet-50 (linalg)", "nelli_torchvision_resnet50_linalg.mlir", []),
]

GEOMEAN_LIMIT = 1.15
GEMM_PEAK_MIN = 0.90
SYNTHETIC_TOLERANCE = 0.10
PREDICTION_TOLERANCE = 0.10


def timed(cmd):
    """Runs `cmd`; returns (exit status, output text, wall seconds, peak RSS
    in MiB) of that child alone (os.wait4's rusage)."""
    start = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
    except OSError as error:
        return 127, str(error), 0.0, 0.0
    # Read the output first (a full pipe would block the child), then reap
    # it with wait4 to get its own resource usage.
    out = proc.stdout.read()
    proc.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - start
    # ru_maxrss is KiB on Linux.
    return (proc.returncode, out.decode(errors="replace"), wall,
            usage.ru_maxrss / 1024.0)


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


def peak_from_profile(profile, dtype):
    """The tensor engine's peak (FLOP/ns) for `dtype`: from the cycles per
    moving column in the profile's cost-model lines when present, else the
    hardcoded trn2 figures. Returns (peak, where it came from)."""
    # A logical core at lnc=2 has two physical cores' tensor engines.
    cores = profile.get("cores", {}).get("physical_cores_per_logical_core", 1)
    for line in profile.get("cost_model", []):
        m = re.search(r"([0-9.]+) cycles per moving column \(fp32\), "
                      r"([0-9.]+) \(bf16/fp16\)", line)
        if m:
            cycles = float(m.group(2) if dtype == "bf16" else m.group(1))
            return cores * 2 * ARRAY_ROWS * ARRAY_ROWS * TENSOR_GHZ / cycles, \
                (f"profile cost model (2.4 GHz, 128x128 assumed; "
                 f"{cores} physical cores per logical core)")
    return PEAK_OPS_PER_NS[dtype], "hardcoded trn2 figures"


def summarise(name, profile, flops, dtype, compile_s, compile_mib):
    program = profile["program"]
    kernels = profile.get("kernels", [])
    observed = program["observed_ns"]
    predicted = program.get("predicted_ns")
    bound = program.get("bound_ns")
    serial = sum(k.get("serial_ns") or 0 for k in kernels) or None
    peak, peak_source = peak_from_profile(profile, dtype)
    row = {
        "name": name,
        "compile_s": compile_s,
        "compile_peak_mib": compile_mib,
        "kernels": len(kernels),
        "instructions": sum(k.get("instructions", 0) for k in kernels),
        "predicted_ns": predicted,
        "observed_ns": observed,
        "bound_ns": bound,
        "observed_over_bound": observed / bound if bound else None,
        "prediction_error": (abs(predicted - observed) / observed
                             if predicted is not None and observed else None),
        "serial_ns": serial,
        "speedup_over_serial": serial / observed if serial and observed
        else None,
        "flops": flops,
        "dtype": dtype,
        "peak_flop_per_ns": peak,
        "peak_source": peak_source,
        "tensor_peak_fraction": (flops / observed / peak
                                 if flops and observed else None),
        "kernel_prediction_errors": [
            {"kernel": k["kernel"], "step": k.get("step"),
             "error": (abs(k["predicted_ns"] - k["observed_ns"])
                       / k["observed_ns"]
                       if k.get("predicted_ns") is not None
                       and k.get("observed_ns") else None)}
            for k in kernels],
    }
    return row


def bench_graph(name, args, work):
    source = HERE / "suite" / f"{name}.mlir"
    exe = work / f"{name}.nxe"
    code, log, wall, rss = timed([str(args.bin / "neuron-compile"),
                                  str(source), f"--target={args.target}",
                                  "-o", str(exe)])
    if code:
        return {"name": name, "error": "compile failed: " + log[-400:]}
    return time_executable(name, exe, args, work, wall, rss)


def bench_synthetic(args, work):
    kernel = work / "synthetic.mlir"
    code, log = run([sys.executable, str(HERE / "synthetic.py"), "-o",
                     str(kernel)])
    if code:
        return {"name": SYNTHETIC, "error": "synthetic.py failed: " + log}
    scheduled = work / "synthetic.sched.mlir"
    exe = work / "synthetic.nxe"
    start = time.monotonic()
    code, log, wall1, rss1 = timed(
        [str(args.bin / "neuron-opt"), str(kernel), "--nisa-allocate=buffers=8",
         f"--nisa-schedule=target={args.target} dma-queues=1",
         "--nisa-insert-sync",
         "--nisa-verify-sync", "-o", str(scheduled)])
    if code:
        return {"name": SYNTHETIC, "error": "neuron-opt failed: " + log[-400:]}
    code, log, wall2, rss2 = timed(
        [str(args.bin / "neuron-translate"), str(scheduled),
         "--nisa-to-executable", f"--executable-target={args.target}", "-o",
         str(exe)])
    if code:
        return {"name": SYNTHETIC,
                "error": "neuron-translate failed: " + log[-400:]}
    return time_executable(SYNTHETIC, exe, args, work, wall1 + wall2,
                           max(rss1, rss2))


def time_executable(name, exe, args, work, compile_s, compile_mib):
    profile_path = work / f"{name}.profile.json"
    code, log = run([str(args.bin / "neuron-run"), str(exe), "--timing-only",
                     f"--profile={profile_path}"])
    if code:
        return {"name": name, "error": "neuron-run failed: " + log[-400:]}
    with open(profile_path) as f:
        profile = json.load(f)
    flops, dtype = SYNTHETIC_FLOPS if name == SYNTHETIC else SUITE[name]
    return summarise(name, profile, flops, dtype, compile_s, compile_mib)


def corpus_dir():
    env = os.environ.get("NEURON_CORPUS_DIR")
    path = pathlib.Path(env) if env else ROOT.parent / "shared" / "corpus"
    return path if path.is_dir() else None


def bench_corpus(args, work):
    corpus = corpus_dir()
    if corpus is None:
        return None, ("corpus not found (set NEURON_CORPUS_DIR or check out "
                      "../shared/corpus): compile-time rows skipped")
    rows = []
    for label, file, options in CORPUS:
        source = corpus / file
        if not source.is_file():
            rows.append({"name": label, "file": file, "error": "missing"})
            continue
        exe = work / (source.stem + ".nxe")
        code, log, wall, rss = timed([str(args.bin / "neuron-compile"),
                                      str(source), "--target=trn2", *options,
                                      "-o", str(exe)])
        row = {"name": label, "file": file, "options": options,
               "compile_s": wall, "compile_peak_mib": rss}
        if code:
            row["error"] = "compile failed: " + log.strip()[-300:]
        rows.append(row)
    return rows, f"corpus: {corpus}"


def fmt_us(ns):
    return "-" if ns is None else f"{ns / 1e3:.1f}"


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def markdown(rows, corpus_rows, corpus_note, checks, geomean):
    out = ["| benchmark | predicted (µs) | observed (µs) | bound (µs) | "
           "obs/bound | \\|pred-obs\\|/obs | serial (µs) | speed-up vs serial "
           "| % tensor peak | compile (s) | compile RSS (MiB) |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['name']} | error: "
                       f"{r['error'].splitlines()[0][:120]} |" + " |" * 9)
            continue
        peak = r["tensor_peak_fraction"]
        peak_cell = f"{100 * peak:.1f}% ({r['dtype']})" if peak else "-"
        out.append(
            f"| {r['name']} | {fmt_us(r['predicted_ns'])} | "
            f"{fmt_us(r['observed_ns'])} | {fmt_us(r['bound_ns'])} | "
            f"{fmt(r['observed_over_bound'], '.3f')} | "
            f"{fmt(r['prediction_error'] and 100 * r['prediction_error'], '.2f')}"
            f"% | {fmt_us(r['serial_ns'])} | "
            f"{fmt(r['speedup_over_serial'], '.2f')}x | "
            f"{peak_cell} | {r['compile_s']:.2f} | {r['compile_peak_mib']:.0f} |")
    out.append("")
    out.append(f"Geometric mean of observed/bound: "
               f"{fmt(geomean, '.3f')}")
    sources = {r["peak_source"] for r in rows if "peak_source" in r}
    if sources:
        out.append(f"Tensor peak from: {', '.join(sorted(sources))}.")
    out.append("")
    out.append("| check | value | result |")
    out.append("|---|---|---|")
    for name, value, ok in checks:
        name = name.replace("|", "\\|")
        out.append(f"| {name} | {value} | {'PASS' if ok else 'FAIL'} |")
    out.append("")
    if corpus_rows is None:
        out.append(corpus_note)
    else:
        out.append(corpus_note)
        out.append("")
        out.append("| corpus graph | options | compile (s) | peak RSS (MiB) "
                   "| status |")
        out.append("|---|---|---:|---:|---|")
        for r in corpus_rows:
            if r.get("error") == "missing":
                out.append(f"| {r['name']} ({r['file']}) | | | | missing |")
                continue
            status = ("ok" if "error" not in r else
                      r["error"].splitlines()[-1][:100].replace("|", "/"))
            out.append(f"| {r['name']} | {' '.join(r['options']) or '-'} | "
                       f"{r['compile_s']:.2f} | {r['compile_peak_mib']:.0f} | "
                       f"{status} |")
    return "\n".join(out) + "\n"


def evaluate(rows):
    """The suite's checks: (name, value text, passed)."""
    ok_rows = [r for r in rows if "error" not in r]
    ratios = [r["observed_over_bound"] for r in ok_rows
              if r["observed_over_bound"]]
    geomean = (math.exp(sum(math.log(x) for x in ratios) / len(ratios))
               if ratios else None)
    checks = []
    for r in rows:
        if "error" in r:
            checks.append((f"{r['name']} compiles and runs", "error", False))
    if ratios:
        checks.append((f"geomean observed/bound <= {GEOMEAN_LIMIT}",
                       f"{geomean:.3f}", geomean <= GEOMEAN_LIMIT))
    by_name = {r["name"]: r for r in ok_rows}
    if "gemm_4096" in by_name:
        peak = by_name["gemm_4096"]["tensor_peak_fraction"]
        checks.append((f"gemm_4096 >= {GEMM_PEAK_MIN:.0%} of tensor peak",
                       f"{100 * peak:.1f}%", peak >= GEMM_PEAK_MIN))
    if SYNTHETIC in by_name:
        observed = by_name[SYNTHETIC]["observed_ns"]
        off = abs(observed - SYNTHETIC_TARGET_NS) / SYNTHETIC_TARGET_NS
        checks.append((f"synthetic within {SYNTHETIC_TOLERANCE:.0%} of 5 ms",
                       f"{observed / 1e6:.3f} ms ({100 * off:.1f}% off)",
                       off <= SYNTHETIC_TOLERANCE))
    worst = None
    for r in ok_rows:
        for k in r["kernel_prediction_errors"]:
            if k["error"] is None:
                continue
            if worst is None or k["error"] > worst[1]:
                worst = (f"{r['name']}/{k['kernel']}", k["error"])
    if worst is not None:
        checks.append((f"every kernel |pred-obs|/obs <= "
                       f"{PREDICTION_TOLERANCE:.0%}",
                       f"worst {100 * worst[1]:.2f}% ({worst[0]})",
                       worst[1] <= PREDICTION_TOLERANCE))
    return checks, geomean


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--target", default="trn2,lnc=1",
                        help="the target of every benchmark (default: one "
                             "physical trn2 core)")
    parser.add_argument("--build-dir", default=str(ROOT / "build"),
                        type=pathlib.Path,
                        help="build folder holding bin/ (default: build)")
    parser.add_argument("--work-dir", type=pathlib.Path,
                        help="keep executables and profiles here (default: a "
                             "temporary folder, removed afterwards)")
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="run only this benchmark (repeatable); "
                             "'corpus' for the corpus compile rows")
    parser.add_argument("--json", metavar="FILE", type=pathlib.Path,
                        help="also write the results as JSON")
    args = parser.parse_args()
    args.bin = args.build_dir.resolve() / "bin"
    for tool in ["neuron-compile", "neuron-run", "neuron-opt",
                 "neuron-translate"]:
        if not os.access(args.bin / tool, os.X_OK):
            print(f"run_suite.py: {args.bin / tool} is missing",
                  file=sys.stderr)
            return 2

    names = list(SUITE) + [SYNTHETIC]
    wanted = set(args.only or [])
    unknown = wanted - set(names) - {"corpus"}
    if unknown:
        print(f"run_suite.py: unknown benchmark(s) {sorted(unknown)}; "
              f"known: {names + ['corpus']}", file=sys.stderr)
        return 2

    if args.work_dir:
        args.work_dir.mkdir(parents=True, exist_ok=True)
        work = args.work_dir
    else:
        work = pathlib.Path(tempfile.mkdtemp(prefix="neuron-bench-"))
    try:
        rows = []
        for name in names:
            if wanted and name not in wanted:
                continue
            print(f"running {name} ...", file=sys.stderr, flush=True)
            rows.append(bench_synthetic(args, work) if name == SYNTHETIC
                        else bench_graph(name, args, work))
        corpus_rows, corpus_note = None, "corpus rows not requested (--only)"
        if not wanted or "corpus" in wanted:
            print("compiling corpus graphs ...", file=sys.stderr, flush=True)
            corpus_rows, corpus_note = bench_corpus(args, work)
    finally:
        if not args.work_dir:
            shutil.rmtree(work, ignore_errors=True)

    checks, geomean = evaluate(rows)
    sys.stdout.write(markdown(rows, corpus_rows, corpus_note, checks,
                              geomean))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"benchmarks": rows, "geomean_observed_over_bound":
                       geomean, "checks": [{"check": c, "value": v,
                                            "pass": ok}
                                           for c, v, ok in checks],
                       "corpus": corpus_rows, "corpus_note": corpus_note},
                      f, indent=2)
    return 0 if all(ok for _, _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
