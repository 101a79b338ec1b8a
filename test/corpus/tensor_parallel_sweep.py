#!/usr/bin/env python3
"""Compiles every corpus graph with `neuron-compile --tensor-parallel=N` and
says, per graph, how it came out: `spmd R` (partitioned, R ranks),
`one-core` (nothing split, or the one-core fallback; the compiler's warning
says why), `elided` (the executable needs weights the exporter elided,
as the one-core build does) or `FAIL` (a crash, or any other error: its
first line). Ends with the number of failures; exits non-zero if any.

  tensor_parallel_sweep.py --bin BUILD/bin --corpus DIR [--cores 2]
"""

import argparse
import pathlib
import subprocess
import sys
import tempfile

ELIDED = "refers to resource '__elided__', which has no data"


def outcome(bin_dir, graph, cores, work):
    exe = work / (graph.stem + ".nxe")
    done = subprocess.run(
        [bin_dir / "neuron-compile", graph, f"--tensor-parallel={cores}",
         "--fallback=host", "-o", exe], capture_output=True, text=True)
    errors = [l for l in done.stderr.splitlines() if ": error: " in l]
    if done.returncode < 0:
        return f"FAIL: signal {-done.returncode}"
    if done.returncode != 0:
        if errors and all(ELIDED in e for e in errors):
            return "elided"
        return "FAIL: " + (errors[0] if errors else done.stderr[-200:])
    described = subprocess.run([bin_dir / "neuron-run", exe, "--describe"],
                               capture_output=True, text=True).stdout
    for line in described.splitlines():
        if "SPMD on" in line:
            return "spmd " + line.split("SPMD on ")[1].split()[0]
    return "one-core"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", type=pathlib.Path, required=True)
    parser.add_argument("--corpus", type=pathlib.Path, required=True)
    parser.add_argument("--cores", type=int, default=2)
    args = parser.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for graph in sorted(args.corpus.glob("*.mlir")):
            result = outcome(args.bin, graph, args.cores, pathlib.Path(tmp))
            failures += result.startswith("FAIL")
            print(f"{graph.stem}: {result}")
    print(f"failures: {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
