#!/usr/bin/env python3
"""Scale figures of rolled kernels (issue #12), measured side by side in one
run and printed with the tree's version and the target.

- GEMM 8192^3 bf16 (the suite's gemm_4096 at 8192): neuron-compile's time
  and peak memory, the executable's size; `neuron-run --timing-only`'s
  time, peak memory, dynamic instructions and their rate.
- EfficientNet-B0 and MobileNet-V2 from the corpus: neuron-compile's time
  and peak memory, the executable's size beside its constants'.
- LLaMA-2-7B TOSA from the corpus: neuron-compile's time against the floor
  of lowering the same file with upstream mlir-opt
  (--tosa-to-linalg-pipeline --tosa-to-tensor --tosa-to-arith
  --canonicalize), as a ratio.

Then the issue's checks, PASS or FAIL each; exits non-zero when one fails.
The corpus rows need NEURON_CORPUS_DIR or ../shared/corpus beside the
checkout and are skipped, saying so, without it.

Python 3 standard library only. Run from anywhere:
  python3 test/benchmarks/run_scale.py [--build-dir build] [--target trn2]
"""

import argparse
import pathlib
import re
import subprocess
import sys
import tempfile

from run_suite import HERE, ROOT, corpus_dir, timed

MIB = 1024 * 1024
LLVM_BIN = pathlib.Path("/usr/lib/llvm-22/bin")
TOSA_FLOOR = ["--tosa-to-linalg-pipeline", "--tosa-to-tensor",
              "--tosa-to-arith", "--canonicalize"]


def tree_version():
    proc = subprocess.run(["git", "-C", str(ROOT), "describe", "--always",
                           "--dirty"], capture_output=True, text=True)
    return proc.stdout.strip() or "unknown"


def report_checks(checks):
    """Prints (label, measured value, passed) checks as a table; returns the
    exit status: 1 when one failed."""
    print("\n| check | value | result |\n|---|---|---|")
    for label, value, ok in checks:
        print(f"| {label} | {value} | {'PASS' if ok else 'FAIL'} |")
    return 0 if all(ok for _, _, ok in checks) else 1


def compile_graph(args, source, exe, *extra):
    code, log, wall, rss = timed([str(args.bin / "neuron-compile"),
                                  str(source), f"--target={args.target}",
                                  *extra, "-o", str(exe)])
    if code:
        raise RuntimeError(f"neuron-compile {source.name} failed: "
                           + log[-400:])
    return wall, rss, exe.stat().st_size


def constant_bytes(args, exe):
    proc = subprocess.run([str(args.bin / "neuron-run"), str(exe),
                           "--describe"], capture_output=True, text=True)
    m = re.search(r"(\d+) constants of (\d+) bytes", proc.stdout)
    if not m:
        raise RuntimeError("neuron-run --describe: no constants line:\n"
                           + proc.stdout + proc.stderr)
    return int(m.group(2))


def square_gemm(args, work, n):
    """The suite's GEMM at n^3: its executable, compile time and memory."""
    text = (HERE / "suite" / "gemm_4096.mlir").read_text()
    source = work / f"gemm_{n}.mlir"
    source.write_text(text.replace("4096", str(n)))
    exe = work / f"gemm_{n}.nxe"
    return (exe, *compile_graph(args, source, exe))


def timing_only(args, exe, repeats=5):
    """The fastest of `repeats` runs of neuron-run --timing-only: seconds,
    peak MiB, static and dynamic instructions of its kernel."""
    best = None
    for _ in range(repeats):
        code, log, wall, rss = timed([str(args.bin / "neuron-run"), str(exe),
                                      "--timing-only"])
        if code:
            raise RuntimeError("neuron-run --timing-only failed: "
                               + log[-400:])
        # The kernel's row: step kernel instructions executed ...
        m = re.search(r"^0\s+\S+\s+(\d+)\s+(\d+)\s", log, re.M)
        if not m:
            raise RuntimeError("no kernel row in the timing summary:\n" + log)
        if best is None or wall < best[0]:
            best = (wall, rss, int(m.group(1)), int(m.group(2)))
    return best


def gemm(args, work):
    exe, wall, rss, size = square_gemm(args, work, 8192)
    run_s, run_mib, static, dynamic = timing_only(args, exe)
    # The process's fixed cost (loading the executable and the target, the
    # report): the same run on a small GEMM.
    small, *_ = square_gemm(args, work, 256)
    startup_s, *_ = timing_only(args, small)
    return {"compile_s": wall, "compile_mib": rss, "exe_bytes": size,
            "instructions": static, "dynamic": dynamic, "run_s": run_s,
            "run_mib": run_mib, "startup_s": startup_s}


def corpus_graph(args, work, corpus, name):
    source = corpus / f"{name}.mlir"
    exe = work / f"{name}.nxe"
    wall, rss, size = compile_graph(args, source, exe)
    return {"compile_s": wall, "compile_mib": rss, "exe_bytes": size,
            "constant_bytes": constant_bytes(args, exe)}


def llama(args, work, corpus):
    source = corpus / "buddy_llama2_7b_tosa.mlir"
    wall, rss, size = compile_graph(args, source, work / "llama.nxe",
                                    "--fallback=host")
    code, log, floor, floor_rss = timed(
        [str(args.llvm_bin / "mlir-opt"), str(source), *TOSA_FLOOR, "-o",
         str(work / "llama.linalg.mlir")])
    if code:
        raise RuntimeError("mlir-opt floor failed: " + log[-400:])
    return {"compile_s": wall, "compile_mib": rss, "floor_s": floor,
            "floor_mib": floor_rss}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", type=pathlib.Path,
                        default=ROOT / "build")
    parser.add_argument("--target", default="trn2")
    parser.add_argument("--llvm-bin", type=pathlib.Path, default=LLVM_BIN)
    args = parser.parse_args()
    args.bin = args.build_dir / "bin"
    corpus = corpus_dir()

    print(f"tree {tree_version()}, target {args.target}")
    checks = []
    with tempfile.TemporaryDirectory(prefix="neuron-scale-") as tmp:
        work = pathlib.Path(tmp)
        g = gemm(args, work)
        print("\n| graph | neuron-compile (s) | peak RSS (MiB) | executable "
              "(MiB) | constants (MiB) |")
        print("|---|---:|---:|---:|---:|")
        print(f"| GEMM 8192^3 bf16 | {g['compile_s']:.2f} | "
              f"{g['compile_mib']:.0f} | {g['exe_bytes'] / MIB:.3f} | 0 |")
        checks += [
            ("GEMM 8192^3 executable < 1 MiB",
             f"{g['exe_bytes'] / MIB:.3f} MiB", g["exe_bytes"] < MIB),
            ("GEMM 8192^3 compile < 1 s", f"{g['compile_s']:.2f} s",
             g["compile_s"] < 1),
            ("GEMM 8192^3 compile < 300 MiB", f"{g['compile_mib']:.0f} MiB",
             g["compile_mib"] < 300)]
        graphs = {}
        if corpus:
            for name, label in [
                    ("nelli_torchvision_efficientnet_b0_linalg",
                     "EfficientNet-B0"),
                    ("nelli_torchvision_mobilenet_v2_linalg", "MobileNet-V2")]:
                c = corpus_graph(args, work, corpus, name)
                graphs[label] = c
                print(f"| {label} | {c['compile_s']:.2f} | "
                      f"{c['compile_mib']:.0f} | {c['exe_bytes'] / MIB:.2f} "
                      f"| {c['constant_bytes'] / MIB:.2f} |")
                over = c["exe_bytes"] - c["constant_bytes"]
                checks += [
                    (f"{label} compile < 5 s", f"{c['compile_s']:.2f} s",
                     c["compile_s"] < 5),
                    (f"{label} compile < 600 MiB",
                     f"{c['compile_mib']:.0f} MiB", c["compile_mib"] < 600),
                    (f"{label} executable <= constants + 2 MiB",
                     f"{over / MIB:.2f} MiB over", over <= 2 * MIB)]
            l = llama(args, work, corpus)
            ratio = l["compile_s"] / l["floor_s"]
            print(f"\nLLaMA-2-7B TOSA (--fallback=host): neuron-compile "
                  f"{l['compile_s']:.2f} s ({l['compile_mib']:.0f} MiB), "
                  f"mlir-opt floor {l['floor_s']:.2f} s "
                  f"({l['floor_mib']:.0f} MiB): {ratio:.1f}x the floor")
            checks.append(("LLaMA-2-7B TOSA within 5x the floor",
                           f"{ratio:.1f}x", ratio <= 5))
        else:
            print("\n(corpus not found: set NEURON_CORPUS_DIR or put "
                  "../shared/corpus beside the checkout; the corpus rows "
                  "are skipped)")

        whole = g["dynamic"] / g["run_s"]
        rate = g["dynamic"] / max(g["run_s"] - g["startup_s"], 1e-9)
        print(f"\nneuron-run --timing-only on GEMM 8192^3 (fastest of 5): "
              f"{g['instructions']} instructions, {g['dynamic']} executed, "
              f"{g['run_s'] * 1e3:.1f} ms, {g['run_mib']:.0f} MiB: "
              f"{whole / 1e6:.1f} M instructions/s over the whole process; "
              f"less its fixed cost ({g['startup_s'] * 1e3:.1f} ms on a "
              f"256^3 GEMM), {rate / 1e6:.1f} M/s simulated")
        checks += [
            ("timing-only simulates >= 5 M dynamic instructions/s",
             f"{rate / 1e6:.1f} M/s", rate >= 5e6),
            ("timing-only < 200 MiB", f"{g['run_mib']:.0f} MiB",
             g["run_mib"] < 200)]

    return report_checks(checks)


if __name__ == "__main__":
    sys.exit(main())
