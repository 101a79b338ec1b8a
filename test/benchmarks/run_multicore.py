#!/usr/bin/env python3
"""Many-core benchmark (issues #6, #15): collectives placed, serialised and
decomposed.

Compiles each graph tensor-parallel (`neuron-compile --tensor-parallel=N`)
for 1, 2, 4 and 8 logical cores of trn2 (lnc=2 holds 4 logical cores per
chip, so 8 cores use lnc=1) twice, and times each with `neuron-run
--timing-only --profile`:

- placed: `--collective-chunks=1`, each collective whole where
  neuron-place-collectives put it; beside it the time with every
  collective serialised (its done right after its start);
- decomposed: the default, where neuron-decompose-collectives splits a
  row-parallel matmul and its all-reduce into row chunks when the cost
  models predict it pays (the same program as placed where it does not).

For each: the collectives, their time and the part hidden behind other
work, and the speed-up over one core. Checks that a placed program is never
slower than its serialised one and is faster wherever a collective has
independent work to overlap, and that a decomposition the compiler chose
is not slower than the program it replaced.

Graphs: the suite's MLP, two MLP branches, the e2e tests' attention and
decoder layer, a LLaMA-2-7B-shaped decoder layer at a 2048-token prefill
(test/benchmarks/llama_layer.py, bf16; the structure of the corpus LLaMA),
and, with the corpus present ($NEURON_CORPUS_DIR, else ../shared/corpus),
the corpus LLaMA decoder layer itself (test/corpus/llama_layer.py cuts
layer 0 of buddy_llama2_7b_tosa and shrinks it to 8 heads, FFN 1024; its
40 tokens are fixed by the corpus); without it, that row is skipped with a
note.

Python 3 standard library only:
  python3 test/benchmarks/run_multicore.py [--build-dir build]
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent

GRAPHS = {
    # A bf16 MLP 512x1024 -> 4096 (GELU) -> 1024: one all-reduce at the end,
    # nothing independent to overlap it with.
    "mlp": HERE / "suite" / "mlp.mlir",
    # Two feed-forward branches on one input, summed: the first branch's
    # all-reduce can run under the second branch's arithmetic.
    "parallel_block": HERE / "multicore" / "parallel_block.mlir",
    # Multi-head attention and a LLaMA-style decoder layer (f32, reduced
    # size): heads split across cores, an all-reduce after each row-parallel
    # projection.
    "attention": ROOT / "test" / "e2e" / "Inputs" / "attention_heads.mlir",
    "llama_layer": ROOT / "test" / "e2e" / "Inputs" / "llama_layer.mlir",
}
# Written by test/benchmarks/llama_layer.py into the work folder: one
# LLaMA-2-7B decoder layer (hidden 4096, 32 heads, FFN 11008, bf16) over a
# 2048-token prompt, whose all-reduces (16 MiB each) are bandwidth-bound.
PREFILL = ["--seq", "2048", "--hidden", "4096", "--heads", "32",
           "--ffn", "11008", "--dtype", "bf16"]
# Compile options a graph needs beyond the target and the core count.
OPTIONS = {
    # Its causal mask is computed on i64 positions: host regions.
    "corpus_llama_layer": ["--entry=decoder_layer", "--fallback=host"],
}
CORES = [(1, "trn2"), (2, "trn2"), (4, "trn2"), (8, "trn2,lnc=1")]


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{done.stderr}")
    return done


def corpus_llama_layer(work):
    """The corpus decoder layer written into `work`, or None without the
    corpus."""
    corpus = pathlib.Path(os.environ.get("NEURON_CORPUS_DIR",
                                         ROOT.parent / "shared" / "corpus"))
    source = corpus / "buddy_llama2_7b_tosa.mlir"
    if not source.is_file():
        print(f"note: {source} is absent; skipping the corpus LLaMA layer")
        return None
    layer = work / "corpus_llama_layer.mlir"
    run([sys.executable, ROOT / "test" / "corpus" / "llama_layer.py",
         "--corpus", source, "-o", layer])
    return layer


def profile_of(bin_dir, name, graph, cores, target, work, chunks):
    """The timed profile of `graph` on `cores` cores, compiled with
    --collective-chunks=`chunks` (1: whole; 0: the compiler's choice)."""
    stem = f"{graph.stem}_{cores}_{chunks}"
    exe, profile = work / f"{stem}.nxe", work / f"{stem}.json"
    compile_cmd = [bin_dir / "neuron-compile", graph, f"--target={target}",
                   "-o", exe, f"--collective-chunks={chunks}",
                   *OPTIONS.get(name, [])]
    if cores > 1:
        compile_cmd.append(f"--tensor-parallel={cores}")
    run(compile_cmd)
    run([bin_dir / "neuron-run", exe, "--timing-only", f"--profile={profile}"])
    return json.loads(profile.read_text())


def summary(p):
    """Step time (placed and serialised), collectives, their time and the
    part hidden, from a profile."""
    spmd = p.get("spmd")
    if not spmd:
        total = p["program"]["observed_ns"]
        return {"placed": total, "serialised": total, "collective": 0.0,
                "hidden": 0.0, "collectives": 0}
    colls = spmd["collectives"]
    return {
        "placed": spmd["observed_ns"],
        "serialised": spmd["serialised_ns"],
        "collective": sum(c["observed_ns"] for c in colls),
        "hidden": sum(c["overlap_ns"] for c in colls),
        "collectives": len(colls),
    }


def measure(bin_dir, name, graph, cores, target, work):
    whole = profile_of(bin_dir, name, graph, cores, target, work, 1)
    row = summary(whole)
    row["cores"] = whole.get("cores", {})
    split = summary(profile_of(bin_dir, name, graph, cores, target, work, 0))
    row["decomposed"] = split["placed"]
    row["decomposed_collectives"] = split["collectives"]
    row["decomposed_collective"] = split["collective"]
    row["decomposed_hidden"] = split["hidden"]
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default=str(ROOT / "build"))
    parser.add_argument("--json", help="also write the rows as JSON here")
    args = parser.parse_args()
    bin_dir = pathlib.Path(args.build_dir).resolve() / "bin"
    rows, failures = [], []
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        graphs = dict(GRAPHS)
        prefill = work / "llama7b_prefill_2048.mlir"
        run([sys.executable, HERE / "llama_layer.py", *PREFILL, "-o", prefill])
        graphs["llama7b_prefill_2048"] = prefill
        layer = corpus_llama_layer(work)
        if layer:
            graphs["corpus_llama_layer"] = layer
        for name, graph in graphs.items():
            one = None
            for cores, target in CORES:
                r = measure(bin_dir, name, graph, cores, target, work)
                # The default compile: decomposed where it pays.
                one = one or r["decomposed"]
                r.update(graph=name, n=cores, target=target,
                         speedup=one / r["decomposed"])
                rows.append(r)
                if r["placed"] > r["serialised"] * (1 + 1e-9):
                    failures.append(f"{name} on {cores}: placed slower")
                if r["hidden"] > 0 and not r["placed"] < r["serialised"]:
                    failures.append(f"{name} on {cores}: overlap not faster")
                if r["decomposed"] > r["placed"] * (1 + 1e-9):
                    failures.append(f"{name} on {cores}: decomposed slower")
    print("| graph | cores | target | collectives | placed µs | serialised µs"
          " | collective µs | hidden µs | decomposed µs | collectives"
          " | collective µs | hidden µs | speed-up over 1 core |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['graph']} | {r['n']} | {r['target']} | {r['collectives']}"
              f" | {r['placed'] / 1e3:.1f} | {r['serialised'] / 1e3:.1f}"
              f" | {r['collective'] / 1e3:.1f} | {r['hidden'] / 1e3:.1f}"
              f" | {r['decomposed'] / 1e3:.1f}"
              f" | {r['decomposed_collectives']}"
              f" | {r['decomposed_collective'] / 1e3:.1f}"
              f" | {r['decomposed_hidden'] / 1e3:.1f}"
              f" | {r['speedup']:.2f}x |")
    defs = {(r["target"]): r["cores"] for r in rows if r["cores"]}
    print()
    for target, c in defs.items():
        print(f"{target}: {c.get('logical_cores_per_chip')} logical cores "
              f"per chip, {c.get('physical_cores_per_logical_core')} physical "
              f"per logical ({c.get('lnc_definition')})")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=2))
    print()
    print("checks: " + ("PASS" if not failures else "FAIL: " +
                        "; ".join(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
