#!/usr/bin/env python3
"""Runs every libFuzzer target of test/fuzz for a while (fuzz-smoke).

  run_fuzzers.py --bin BIN --seeds SEEDS --regressions REG --work WORK
                 [--seconds S] [--only NAME ...]

Each neuron-fuzz-NAME runs for S seconds on WORK/corpus/NAME (kept between
runs: new inputs go there), SEEDS/NAME and REG/NAME, with a 10 s limit per
input and 2 GiB of memory. Prints one line per fuzzer with its executions,
coverage (edges, features) and corpus size; a crash, leak, timeout or
out-of-memory input is written to WORK/artifacts/ and fails the run.
"""

import argparse
import pathlib
import re
import subprocess
import sys

FUZZERS = ["executable", "manifest", "npy", "cache-entry",
           "target-description", "capabilities"]


def run(args, name) -> bool:
    """Runs one fuzzer; prints its summary; True when it found nothing."""
    corpus = args.work / "corpus" / name
    artifacts = args.work / "artifacts"
    corpus.mkdir(parents=True, exist_ok=True)
    artifacts.mkdir(parents=True, exist_ok=True)
    dirs = [corpus] + [d / name for d in (args.seeds, args.regressions)
                       if (d / name).is_dir()]
    command = [str(args.bin / f"neuron-fuzz-{name}"),
               f"-max_total_time={args.seconds}", "-timeout=10",
               "-rss_limit_mb=2048", "-print_final_stats=1",
               f"-artifact_prefix={artifacts}/{name}-"] + [str(d) for d in dirs]
    result = subprocess.run(command, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            errors="replace")
    log = result.stdout
    (args.work / f"{name}.log").write_text(log)
    runs = re.findall(r"stat::number_of_executed_units: (\d+)", log)
    cov = re.findall(r"cov: (\d+) ft: (\d+) corp: (\d+)", log)
    summary = (f"neuron-fuzz-{name}: {args.seconds} s, "
               f"{runs[-1] if runs else '?'} runs")
    if cov:
        summary += (f", {cov[-1][0]} edges, {cov[-1][1]} features, "
                    f"corpus {cov[-1][2]}")
    if result.returncode == 0:
        print(summary + ", nothing found")
        return True
    found = re.findall(r"Test unit written to (\S+)", log)
    print(summary + f": FAILED (exit {result.returncode}); "
          f"input: {found[-1] if found else '?'}; log: {args.work}/{name}.log")
    print("\n".join(log.splitlines()[-40:]))
    return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, type=pathlib.Path)
    parser.add_argument("--seeds", required=True, type=pathlib.Path)
    parser.add_argument("--regressions", required=True, type=pathlib.Path)
    parser.add_argument("--work", required=True, type=pathlib.Path)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--only", nargs="*", choices=FUZZERS)
    args = parser.parse_args()
    ok = all([run(args, name) for name in (args.only or FUZZERS)])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
