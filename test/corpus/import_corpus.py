#!/usr/bin/env python3
"""Imports each corpus file with `neuron-opt --neuron-import=summary`.

Prints one row per file: compute ops raised to neuron, compute ops left, the
share raised, and `ok` or the reason it failed. A file fails on a non-zero
exit (crash, verifier error) or, for the files the foundation issue names,
when fewer than 95% of its compute ops were raised. Exits non-zero if any
file failed.
"""

import argparse
import pathlib
import re
import subprocess
import sys

# Files whose compute ops must reach neuron at >= 95% (issue 2).
REQUIRED = re.compile(
    r"mlp|softmax|rmsnorm|swiglu|mhsa|bert|resnet|llama")
THRESHOLD = 0.95
REMARK = re.compile(r"raised (\d+) of (\d+) compute ops to neuron")


def import_file(neuron_opt, path):
    proc = subprocess.run(
        [neuron_opt, str(path), "--neuron-import=summary", "-o", "/dev/null"],
        capture_output=True, text=True, timeout=600)
    raised = total = 0
    for match in REMARK.finditer(proc.stderr):
        raised += int(match.group(1))
        total += int(match.group(2))
    return proc, raised, total


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--neuron-opt", required=True)
    parser.add_argument("--corpus", required=True, type=pathlib.Path)
    args = parser.parse_args()

    files = sorted(args.corpus.glob("*.mlir"))
    if not files:
        print(f"no .mlir files in {args.corpus}")
        return 1
    print(f"{'file':48} {'raised':>7} {'left':>6} {'share':>7}  result")
    failed = 0
    for path in files:
        proc, raised, total = import_file(args.neuron_opt, path)
        share = raised / total if total else 1.0
        if proc.returncode != 0:
            errors = [l for l in proc.stderr.splitlines() if "error" in l]
            result = f"FAILED (exit {proc.returncode}): " + \
                (errors[0] if errors else proc.stderr.strip()[-200:])
        elif REQUIRED.search(path.stem) and share < THRESHOLD:
            result = f"FAILED: under {THRESHOLD:.0%}"
        else:
            result = "ok"
        failed += result != "ok"
        print(f"{path.stem:48} {raised:7} {total - raised:6} {share:7.1%}  "
              f"{result}")
    print(f"{len(files)} files imported, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
