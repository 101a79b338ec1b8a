#!/usr/bin/env python3
"""Checks operator coverage on every corpus file for trn1, trn2, inf2 and trn3.

For each file and target it imports the graph and runs neuron-check-coverage
with each policy:
  error      every unsupported op is an error diagnostic: their number must
             equal the report's `unsupported` count and its entries;
  decompose  must not crash (errors for what stays unsupported are fine);
  host       must leave no unsupported op (exit 0, report says 0).
It prints the coverage percentage per file and target for each policy and
exits non-zero on any failure.
"""

import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

TARGETS = ["trn1", "trn2", "inf2", "trn3"]
POLICIES = ["error", "decompose", "host"]


def run(neuron_opt, path, target, policy, report):
    pipeline = (f"--neuron-check-coverage=target={target} fallback={policy} "
                f"report={report}")
    return subprocess.run(
        [neuron_opt, str(path), "--neuron-import", pipeline, "-o", "/dev/null"],
        capture_output=True, text=True, timeout=900)


def check(proc, report_path, policy):
    """Returns (coverage percent or None, problem or None)."""
    if proc.returncode < 0 or "Stack dump" in proc.stderr:
        return None, f"crashed (exit {proc.returncode})"
    try:
        report = json.loads(pathlib.Path(report_path).read_text())
    except (OSError, ValueError) as error:
        return None, f"no readable report ({error}); stderr: {proc.stderr[-300:]}"
    totals = report["totals"]
    errors = proc.stderr.count("is not supported on")
    if errors != totals["unsupported"] or errors != len(report["unsupported"]):
        return None, (f"{errors} diagnostics but the report counts "
                      f"{totals['unsupported']} ({len(report['unsupported'])} entries)")
    if policy == "error" and (proc.returncode != 0) != (errors > 0):
        return None, f"exit {proc.returncode} with {errors} unsupported ops"
    if policy == "host" and (proc.returncode != 0 or totals["unsupported"]):
        first = proc.stderr.strip().splitlines()[:1]
        return None, f"host left {totals['unsupported']} unsupported: {first}"
    return totals["coverage_percent"], None


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--neuron-opt", required=True)
    parser.add_argument("--corpus", required=True, type=pathlib.Path)
    args = parser.parse_args()

    files = sorted(args.corpus.glob("*.mlir"))
    if not files:
        print(f"no .mlir files in {args.corpus}")
        return 1
    print(f"{'file':44} {'target':6} " +
          " ".join(f"{p:>9}" for p in POLICIES) + "  (% of ops on the device)")
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        report = pathlib.Path(tmp) / "report.json"
        for path in files:
            for target in TARGETS:
                cells = []
                for policy in POLICIES:
                    report.unlink(missing_ok=True)
                    proc = run(args.neuron_opt, path, target, policy, report)
                    percent, problem = check(proc, report, policy)
                    if problem:
                        failures.append(f"{path.stem} {target} {policy}: {problem}")
                        cells.append("FAILED")
                    else:
                        cells.append(f"{percent:.1f}")
                print(f"{path.stem:44} {target:6} " +
                      " ".join(f"{c:>9}" for c in cells))
    for failure in failures:
        print(f"FAILED: {failure}")
    print(f"{len(files) * len(TARGETS)} file-target pairs checked, "
          f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
