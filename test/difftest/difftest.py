#!/usr/bin/env python3
"""Differential testing of the compiler: random graphs (gen_graph.py) through
neuron-compile, neuron-run and the CPU oracle (test/e2e/oracle.py).

Each seed picks a graph, a target (trn1, trn2, inf2) and a fallback policy
(error, decompose, host). Outcomes:
  PASS           compiled, ran with --check-order, every result within its
                 tolerance of the oracle's (gen_graph.Graph.tolerances)
  REFUSED        neuron-compile stopped with located diagnostics
                 (FILE:LINE:COL: error: ...) and nothing worse
  FAIL           anything else: a signal, an assertion, LLVM ERROR, a stack
                 dump, a verifier failure ('op' errors), an error without a
                 location, neuron-run failing, results of the wrong type or
                 shape, numbers outside tolerance, a step over the timeout
  GENERATOR-BUG  the graph does not verify, or the oracle cannot run it
A FAIL keeps its folder under --out-dir (seed-N: the graph, commands.sh, the
logs) and a shrunk graph that fails the same way (seed-N/min): first the
shortest prefix of the graph's nodes, then without each node that is not
needed (its value becomes an argument). Exits 1 if any graph failed or hit a
generator bug.
"""

import argparse
import concurrent.futures
import pathlib
import random
import re
import shlex
import shutil
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(HERE.parent / "e2e"))
import gen_graph  # noqa: E402
import oracle  # noqa: E402

TARGETS = ("trn1", "trn2", "inf2")
POLICIES = ("error", "decompose", "host")
TIMEOUT = 120  # seconds per step

CRASH = re.compile(r"LLVM ERROR|Stack dump|PLEASE submit a bug report|"
                   r"Assertion .* failed|UNREACHABLE|Segmentation fault|"
                   r"AddressSanitizer|LeakSanitizer|runtime error:")
# An op's own error ('neuron.x' op ...): a verifier, or an op built wrong.
# TOSA ops are only ever the input's, and their validation is a refusal.
VERIFIER = re.compile(r"failed to verify|verification failed|"
                      r"error: '(?!tosa\.)[\w.]+' op ")
LOCATED = re.compile(r"^\S+:\d+:\d+: error: |^.*\bloc\(.*\): error: ")


def config(seed):
    """The (target, policy) of `seed`, drawn apart from the graph."""
    rng = random.Random(f"difftest-config-{seed}")
    return rng.choice(TARGETS), rng.choice(POLICIES)


class Outcome:
    """A verdict: kind, a one-line reason and the failure's signature (what
    must stay the same while a graph is shrunk)."""

    def __init__(self, kind, reason, signature=None):
        self.kind, self.reason = kind, reason
        self.signature = signature or (kind, reason)


def normalise(line):
    """A diagnostic without locations, types and numbers."""
    line = re.sub(r"^\S+:\d+:\d+: ", "", line.strip())
    line = re.sub(r"(tensor|memref)<[^>]*>", "T", line)
    return re.sub(r"\d+", "N", line)


def first_line(text, pattern):
    """The first line of `text` matching `pattern`, else its first line."""
    lines = text.strip().splitlines() or [""]
    return next((ln for ln in lines if re.search(pattern, ln)), lines[0])


class Checker:
    """Runs one graph through the pipeline in a folder, logging each step."""

    def __init__(self, args):
        self.bin = pathlib.Path(args.bin).resolve()
        self.llvm = pathlib.Path(args.llvm_bin).resolve()
        self.io_lib = pathlib.Path(args.io_lib).resolve()

    def step(self, folder, cmd):
        """Runs `cmd` in `folder`, appends it to the log and commands.sh;
        (exit status or None on timeout, combined output)."""
        cmd = [str(c) for c in cmd]
        with open(folder / "commands.sh", "a") as script:
            script.write(shlex.join(cmd) + "\n")
        for attempt in range(30):
            try:
                done = subprocess.run(cmd, cwd=folder, capture_output=True,
                                      text=True, timeout=TIMEOUT)
                rc, out = done.returncode, done.stdout + done.stderr
                break
            except subprocess.TimeoutExpired:
                rc, out = None, f"timeout after {TIMEOUT} s"
                break
            except OSError:
                # A binary being relinked cannot be run for a moment.
                if attempt == 29:
                    raise
                time.sleep(2)
        with open(folder / "log.txt", "a") as f:
            f.write(f"$ {shlex.join(cmd)}\n{out}[exit {rc}]\n\n")
        return rc, out

    def check(self, graph, keep, seed, target, policy, folder):
        """The outcome of the graph (nodes `keep`) on target/policy, run in
        `folder` (created afresh)."""
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        (folder / "commands.sh").write_text(
            '#!/bin/sh\nset -x\ncd "$(dirname "$0")"\n')
        (folder / "graph.mlir").write_text(graph.render(keep))
        rc, out = self.step(folder, [self.llvm / "mlir-opt", "graph.mlir",
                                     "-o", "/dev/null"])
        if rc != 0:
            return Outcome("GENERATOR-BUG", "mlir-opt: " +
                           first_line(out, "error"))
        rc, out = self.step(folder, [
            self.bin / "neuron-compile", "graph.mlir", f"--target={target}",
            f"--fallback={policy}", "-o", "graph.nxe"])
        if rc != 0:
            return compile_outcome(rc, out)
        rc, out = self.step(folder, [
            self.bin / "neuron-run", "graph.nxe", "--check-order",
            "--random-inputs", f"--seed={seed}", "--output-dir=run"])
        if rc != 0:
            reason = "neuron-run: " + (first_line(out, "error|order") if rc
                                       is not None else out)
            return Outcome("FAIL", reason, ("FAIL", "run", normalise(reason)))
        return self.compare(graph, keep, folder)

    def compare(self, graph, keep, folder):
        """Checks neuron-run's folder against the graph's signature, then runs
        the oracle and compares each result within its own tolerance."""
        args, results = graph.signature(keep)
        run = folder / "run"
        for stem, values in (("input", args), ("result", results)):
            files = oracle.numbered(run, stem)
            got = [(f.element, f.shape) for f in map(oracle.Npy, files)]
            want = [(v.dtype, list(v.shape)) for v in values]
            if got != want:
                reason = f"neuron-run {stem}s {got}, the graph's {want}"
                return Outcome("FAIL", reason, ("FAIL", "signature", stem))
        tolerances = graph.tolerances(keep)
        rtol = max(r for r, _ in tolerances)
        atol = max(a for _, a in tolerances)
        rc, out = self.step(folder, [
            sys.executable, HERE.parent / "e2e" / "oracle.py",
            "--graph", "graph.mlir", "--function", "graph", "--run-dir", "run",
            "--llvm-bin", self.llvm, "--io-lib", self.io_lib,
            "--rtol", rtol, "--atol", atol])
        if "worst error / tolerance" not in out:
            return Outcome("GENERATOR-BUG", "oracle: " +
                           first_line(out, "error"))
        # Each result against its own tolerance (the oracle's run above used
        # the loosest one of the graph).
        worst, bad = 0.0, []
        expected = oracle.numbered(run, "oracle")
        got = oracle.numbered(run, "result")
        if not len(expected) == len(got) == len(tolerances):
            return Outcome("GENERATOR-BUG", f"oracle: {len(expected)} "
                           f"results, neuron-run {len(got)}, graph "
                           f"{len(tolerances)}")
        for i, (want, have, (r, a)) in enumerate(
                zip(expected, got, tolerances)):
            failed, ratio = oracle.compare(oracle.Npy(want).values(),
                                           oracle.Npy(have).values(), a, r)
            worst = max(worst, ratio)
            if failed:
                bad.append(f"result {i} ({results[i].dtype}): {failed} "
                           f"elements outside atol={a:.3g} rtol={r:.3g}, "
                           f"worst {ratio:.3g}x")
        if bad:
            return Outcome("FAIL", "mismatch: " + "; ".join(bad),
                           ("FAIL", "mismatch"))
        return Outcome("PASS", f"{len(results)} results, worst error / "
                       f"tolerance {worst:.3f}")


def compile_outcome(rc, out):
    """The outcome of a neuron-compile that exited with `rc`."""
    if rc is None:
        return Outcome("FAIL", "neuron-compile: " + out,
                       ("FAIL", "timeout"))
    if rc < 0 or CRASH.search(out):
        line = first_line(out, CRASH.pattern) if CRASH.search(out) else \
            f"killed by signal {-rc}"
        return Outcome("FAIL", "neuron-compile crashed: " + line.strip(),
                       ("FAIL", "crash", normalise(line)))
    if VERIFIER.search(out):
        line = first_line(out, VERIFIER.pattern)
        return Outcome("FAIL", "verifier: " + line.strip(),
                       ("FAIL", "verifier", normalise(line)))
    errors = [ln for ln in out.splitlines() if "error:" in ln]
    unlocated = [ln for ln in errors if not LOCATED.search(ln)]
    if unlocated or not errors:
        line = unlocated[0] if unlocated else first_line(out, ".")
        return Outcome("FAIL", "refusal without location: " + line.strip(),
                       ("FAIL", "unlocated", normalise(line)))
    return Outcome("REFUSED", re.sub(r"^\S+:\d+:\d+: error: ", "",
                                     errors[0])[:160], ("REFUSED",))


def minimise(checker, graph, seed, target, policy, signature, folder):
    """The smallest set of nodes found that fails with `signature`: the
    shortest failing prefix, then without each node in turn. The last
    failing trial's folder is renamed to `folder`."""
    trial = folder.with_name(folder.name + "-trial")

    def same(keep):
        outcome = checker.check(graph, keep, seed, target, policy, trial)
        if outcome.signature != signature:
            return False
        shutil.rmtree(folder, ignore_errors=True)
        trial.rename(folder)
        return True

    keep = set(range(len(graph.nodes)))
    for n in range(1, len(graph.nodes)):
        if same(set(range(n))):
            keep = set(range(n))
            break
    for i in sorted(keep, reverse=True):
        if len(keep) > 1 and same(keep - {i}):
            keep = keep - {i}
    shutil.rmtree(trial, ignore_errors=True)
    return keep


def run_seed(checker, seed, out_dir, deadline):
    """Generates, checks and (on FAIL) shrinks the graph of `seed`; returns
    (seed, target, policy, outcome or None if past the deadline, seconds)."""
    target, policy = config(seed)
    if deadline is not None and time.monotonic() > deadline:
        return seed, target, policy, None, 0.0
    start = time.monotonic()
    graph = gen_graph.generate(seed)
    folder = out_dir / f"seed-{seed}"
    outcome = checker.check(graph, None, seed, target, policy, folder)
    elapsed = time.monotonic() - start
    if outcome.kind in ("PASS", "REFUSED"):
        shutil.rmtree(folder, ignore_errors=True)
    elif outcome.kind == "FAIL":
        keep = minimise(checker, graph, seed, target, policy,
                        outcome.signature, folder / "min")
        where = folder / "min" if len(keep) < len(graph.nodes) else folder
        outcome.reason += (f" [reproducer: {where}, {len(keep)} of "
                           f"{len(graph.nodes)} nodes]")
    return seed, target, policy, outcome, elapsed


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--seeds", required=True,
                        help="A:B runs seeds A to B-1")
    parser.add_argument("--time-budget", type=float,
                        help="start no new graph after this many seconds")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out-dir", default="difftest-out")
    parser.add_argument("--bin", required=True,
                        help="neuron-compile and neuron-run (build/bin)")
    parser.add_argument("--llvm-bin", required=True)
    parser.add_argument("--io-lib", required=True,
                        help="libNeuronOracleIO.so (build/lib)")
    args = parser.parse_args()
    first, last = map(int, args.seeds.split(":"))
    out_dir = pathlib.Path(args.out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    checker = Checker(args)
    deadline = (time.monotonic() + args.time_budget
                if args.time_budget else None)
    counts = {k: 0 for k in ("PASS", "REFUSED", "FAIL", "GENERATOR-BUG")}
    skipped, seconds = 0, 0.0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        runs = pool.map(lambda s: run_seed(checker, s, out_dir, deadline),
                        range(first, last))
        for seed, target, policy, outcome, elapsed in runs:
            if outcome is None:
                skipped += 1
                continue
            counts[outcome.kind] += 1
            seconds += elapsed
            print(f"seed {seed:4d} {target:4s} {policy:9s} "
                  f"{outcome.kind:13s} {outcome.reason}", flush=True)
    done = sum(counts.values())
    print(f"{done} graphs: {counts['PASS']} passed, {counts['REFUSED']} "
          f"refused, {counts['FAIL']} failed, {counts['GENERATOR-BUG']} "
          f"generator bugs" + (f", {skipped} not run (time budget)"
                               if skipped else "") +
          f"; {seconds / max(done, 1):.2f} s per graph")
    return 1 if counts["FAIL"] or counts["GENERATOR-BUG"] else 0


if __name__ == "__main__":
    sys.exit(main())
