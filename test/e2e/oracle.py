#!/usr/bin/env python3
"""The numerical oracle: runs a frontend graph through upstream MLIR's CPU
pipeline (mlir-opt + mlir-runner) on the inputs neuron-run used, and compares
with neuron-run's results.

  oracle.py --graph G.mlir --function F --run-dir DIR --llvm-bin BIN
            --io-lib libNeuronOracleIO.so [--rtol R --atol A]

DIR holds inputI.npy (written by neuron-run --random-inputs, or given to it
with --input=I=FILE) and resultI.npy. The graph's function F must take and
return tensors of f32, bf16, f16, i64, i32, i8 or i1 (of dynamic shape too:
the harness casts the files' shapes to the declared types). A harness
function allocates each input, has libNeuronOracleIO.so (test/e2e/OracleIO.cpp)
fill it from DIR/inputI.npy, calls F, and has the library write each result
to DIR/oracleI.npy; the library checks every file's dtype and shape against
the harness's. Named contractions with a bf16 accumulator sum in f32 and
round once to bf16, as the device and PyTorch do (widen_bf16_accumulators).
Exits non-zero when any element differs by more than
atol + rtol * |expected| (NaN matches only NaN), or when the dtypes or shapes
of the oracle's and neuron-run's results differ.
"""

import argparse
import array
import math
import os
import pathlib
import re
import struct
import subprocess
import sys

# .npy descr -> (manifest dtype, MLIR element type, array typecode). bf16 is
# read as its 16 bits ('H') and widened; f16 through struct's 'e'.
DESCRS = {
    "<f4": ("f32", "f32", "f"),
    "bfloat16": ("bf16", "bf16", "H"),
    "<V2": ("bf16", "bf16", "H"),
    "|V2": ("bf16", "bf16", "H"),
    "<f2": ("f16", "f16", "H"),
    "<i8": ("i64", "i64", "q"),
    "<i4": ("i32", "i32", "i"),
    "<i2": ("i16", "i16", "h"),
    "|i1": ("i8", "i8", "b"),
    "<i1": ("i8", "i8", "b"),
    "|b1": ("i1", "i1", "B"),
}


class Npy:
    """A C-order little-endian .npy file: dtype, shape and raw bytes."""

    def __init__(self, path):
        data = pathlib.Path(path).read_bytes()
        if data[:6] != b"\x93NUMPY":
            raise ValueError(f"{path}: not a .npy file")
        size = 2 if data[6] == 1 else 4
        length = int.from_bytes(data[8:8 + size], "little")
        header = data[8 + size:8 + size + length].decode("latin1")
        descr = re.search(r"'descr':\s*'([^']*)'", header).group(1)
        if descr not in DESCRS or "True" in header:
            raise ValueError(f"{path}: unsupported array: {header.strip()}")
        self.dtype, self.element, code = DESCRS[descr]
        self.shape = [int(d) for d in re.search(r"'shape':\s*\((.*?)\)",
                                                header).group(1).split(",")
                      if d.strip()]
        self.raw = array.array(code)
        self.raw.frombytes(data[8 + size + length:])
        if sys.byteorder != "little":
            self.raw.byteswap()

    def values(self):
        """The elements as Python floats or ints, in C order."""
        if self.dtype == "bf16":
            wide = array.array("I", (h << 16 for h in self.raw))
            return array.array("f", wide.tobytes())
        if self.dtype == "f16":
            return struct.unpack(f"<{len(self.raw)}e", self.raw.tobytes())
        return self.raw

    def tensor_type(self):
        return "tensor<" + "".join(f"{d}x" for d in self.shape) + \
            f"{self.element}>"

    def memref_type(self):
        return "memref<" + "".join(f"{d}x" for d in self.shape) + \
            f"{self.element}>"


def numbered(run_dir, stem):
    """DIR/<stem>I.npy for I = 0, 1, ... in order."""
    paths = run_dir.glob(f"{stem}*.npy")
    return sorted((p for p in paths if p.stem[len(stem):].isdigit()),
                  key=lambda p: int(p.stem[len(stem):]))


# A named contraction whose accumulator (outs) is bf16, on one line as
# MLIR prints it: result, op, ins(...), outs(init : type), result type.
BF16_CONTRACTION = re.compile(
    r"^(?P<indent>\s*)%(?P<result>[\w.$-]+) = "
    r"(?P<op>linalg\.(?:matmul|batch_matmul|matvec|vecmat|batch_matvec"
    r"|batch_vecmat|dot)\b[^\n]*?)outs\((?P<init>%[\w.$#-]+) : "
    r"(?P<type>tensor<[0-9x]*)bf16>\) -> tensor<[0-9x]*bf16>\s*$", re.M)


def widen_bf16_accumulators(graph_text):
    """Makes each named contraction with a bf16 accumulator sum in f32 and
    round once to bf16, as the device does in PSUM and as PyTorch defines a
    bf16 matmul; summed in bf16 as written, a 1024-long dot product stalls
    once the sum's bf16 spacing exceeds twice the terms. Elementwise bf16 ops
    keep their per-op rounding. Returns the text and the number rewritten."""

    def rewrite(m):
        g = m.groupdict()
        narrow, wide = g["type"] + "bf16>", g["type"] + "f32>"
        acc, res = f"%__acc_{g['result']}", f"%__f32_{g['result']}"
        return (f"{g['indent']}{acc} = arith.extf {g['init']} : {narrow} to "
                f"{wide}\n"
                f"{g['indent']}{res} = {g['op']}outs({acc} : {wide}) -> "
                f"{wide}\n"
                f"{g['indent']}%{g['result']} = arith.truncf {res} : {wide} "
                f"to {narrow}")

    return BF16_CONTRACTION.subn(rewrite, graph_text)


def declared_types(graph_text, function):
    """The tensor types `function` declares for its arguments and results,
    or None when its header cannot be read (then the files' types are
    used)."""
    header = re.search(
        r"func\.func\s+(?:public\s+|private\s+)?@" + re.escape(function) +
        r"\((?P<args>.*?)\)\s*(?:->\s*(?P<results>.*?))?\s*(?:attributes|\{)",
        graph_text, re.S)
    if not header:
        return None
    tensor = re.compile(r"tensor<[^>]*>")
    return (tensor.findall(header["args"]),
            tensor.findall(header["results"] or ""))


def harness(graph_text, function, inputs, results):
    """The graph plus a @__oracle_main that loads the inputs, calls
    `function` and stores its results, inside the graph's own module when it
    has one."""
    lines = []
    for element in sorted({a.element for a in inputs}):
        lines.append(f"func.func private @neuron_oracle_load_{element}"
                     f"(i64, memref<*x{element}>) "
                     "attributes {llvm.emit_c_interface}")
    for element in sorted({r.element for r in results}):
        lines.append(f"func.func private @neuron_oracle_store_{element}"
                     f"(i64, memref<*x{element}>) "
                     "attributes {llvm.emit_c_interface}")
    lines.append("func.func @__oracle_main() {")
    count = max(len(inputs), len(results))
    for i in range(count):
        lines.append(f"  %__index{i} = arith.constant {i} : i64")
    for i, a in enumerate(inputs):
        memref = a.memref_type()
        unranked = f"memref<*x{a.element}>"
        lines += [
            f"  %__in{i} = memref.alloc() : {memref}",
            f"  %__inu{i} = memref.cast %__in{i} : {memref} to {unranked}",
            f"  call @neuron_oracle_load_{a.element}(%__index{i}, %__inu{i})"
            f" : (i64, {unranked}) -> ()",
            f"  %__arg{i} = bufferization.to_tensor %__in{i} restrict : "
            f"{memref} to {a.tensor_type()}"]
    # A function of dynamic shapes (a variable length) is called on the
    # files' static tensors through casts, both ways.
    declared = declared_types(graph_text, function)
    dynamic = (declared is not None and
               len(declared[0]) == len(inputs) and
               len(declared[1]) == len(results) and
               any("?" in t for t in declared[0] + declared[1]))
    arg_types = [a.tensor_type() for a in inputs]
    result_types = [r.tensor_type() for r in results]
    args = [f"%__arg{i}" for i in range(len(inputs))]
    if dynamic:
        for i, (static, wanted) in enumerate(zip(arg_types, declared[0])):
            lines.append(f"  %__cast{i} = tensor.cast %__arg{i} : {static} "
                         f"to {wanted}")
            args[i] = f"%__cast{i}"
        arg_types, call_types = declared[0], declared[1]
    else:
        call_types = result_types
    names = ", ".join(f"%__call{i}" for i in range(len(results)))
    lines.append(f"  {names} = call @{function}({', '.join(args)}) : "
                 f"({', '.join(arg_types)}) -> ({', '.join(call_types)})")
    for i, r in enumerate(results):
        memref = r.memref_type()
        unranked = f"memref<*x{r.element}>"
        lines.append(f"  %__r{i} = tensor.cast %__call{i} : {call_types[i]} "
                     f"to {r.tensor_type()}")
        lines += [
            f"  %__out{i} = bufferization.to_buffer %__r{i} read_only : "
            f"{r.tensor_type()} to {memref}",
            f"  %__outu{i} = memref.cast %__out{i} : {memref} to {unranked}",
            f"  call @neuron_oracle_store_{r.element}(%__index{i}, "
            f"%__outu{i}) : (i64, {unranked}) -> ()"]
    lines += ["  return", "}"]
    body = "\n".join(lines)
    # Resource blobs ({-# ... #-}) follow the module: keep them after it.
    code, marker, resources = graph_text.partition("{-#")
    if re.search(r"^\s*module\b", code, re.M):
        end = code.rstrip().rfind("}")
        code = code[:end] + body + "\n}\n"
    else:
        code = code + "\n" + body + "\n"
    return code + marker + resources


def run_oracle(args, inputs, results):
    """Lowers and runs the harness; DIR/oracleI.npy afterwards, or None."""
    graph, widened = widen_bf16_accumulators(
        pathlib.Path(args.graph).read_text())
    if widened:
        print(f"{widened} bf16 contractions accumulate in f32")
    text = harness(graph, args.function, inputs, results)
    pipeline = []
    if "tosa." in text:
        pipeline += ["--tosa-to-linalg-pipeline", "--tosa-to-tensor",
                     "--tosa-to-arith", "--canonicalize"]
    pipeline += [
        "--convert-elementwise-to-linalg",
        "--one-shot-bufferize=bufferize-function-boundaries "
        "function-boundary-type-conversion=identity-layout-map",
        "--buffer-deallocation-pipeline", "--convert-bufferization-to-memref",
        "--convert-linalg-to-loops", "--convert-scf-to-cf",
        "--expand-strided-metadata", "--lower-affine",
        # What has no LLVM intrinsic (math.erf in BERT's GELU) calls libm.
        "--convert-math-to-llvm", "--convert-math-to-libm",
        "--convert-to-llvm",
        "--reconcile-unrealized-casts"]
    lowered = subprocess.run([str(args.llvm_bin / "mlir-opt"), *pipeline],
                             input=text, capture_output=True, text=True)
    if lowered.returncode:
        print(lowered.stderr[-2000:])
        return None
    for stale in numbered(args.run_dir, "oracle"):
        stale.unlink()
    # The graph's own harness functions (@main of the Buddy files) stay in
    # the module and need the runner utilities to link.
    libs = args.llvm_bin.parent / "lib"
    run = subprocess.run(
        [str(args.llvm_bin / "mlir-runner"), "-e", "__oracle_main",
         "--entry-point-result=void",
         f"--shared-libs={libs}/libmlir_runner_utils.so,"
         f"{libs}/libmlir_c_runner_utils.so,{args.io_lib}"],
        input=lowered.stdout, capture_output=True, text=True,
        env=runner_environment(args.run_dir))
    if run.returncode:
        print(run.stderr[-2000:])
        return None
    return [Npy(p) for p in numbered(args.run_dir, "oracle")]


def runner_environment(run_dir):
    """mlir-runner's environment: the run folder for the IO library, and for
    an IO library built with sanitizers (NEURON_SANITIZER_RUNTIME names their
    runtime) that runtime preloaded, without leak checks of mlir-runner's
    own allocations."""
    env = dict(os.environ, NEURON_ORACLE_DIR=str(run_dir))
    runtime = os.environ.get("NEURON_SANITIZER_RUNTIME")
    if runtime:
        options = [o for o in [os.environ.get("ASAN_OPTIONS")] if o]
        env.update(LD_PRELOAD=runtime,
                   ASAN_OPTIONS=":".join(options + ["detect_leaks=0"]))
    return env


def compare(expected, got, atol, rtol):
    """(elements outside tolerance, worst error / tolerance). An element
    fails when |e - g| > atol + rtol * |e|; NaN matches only NaN."""
    failed = 0
    worst = 0.0
    # Elements within min(worst, 1) of their tolerance change neither
    # figure: one multiply-compare skips them (and lets NaN through).
    bound = 0.0
    for e, g in zip(expected, got):
        err = abs(e - g)
        tol = atol + rtol * abs(e)
        if err <= bound * tol:
            continue
        if math.isfinite(err) and math.isfinite(tol):
            ratio = err / tol if tol else math.inf
        elif e == g or (e != e and g != g):  # equal infinities, two NaNs
            continue
        else:
            ratio = math.inf
        if ratio > 1:
            failed += 1
        if ratio > worst:
            worst = ratio
            bound = min(worst, 1.0)
    return failed, worst


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--graph", required=True)
    parser.add_argument("--function", required=True)
    parser.add_argument("--run-dir", required=True, type=pathlib.Path)
    parser.add_argument("--llvm-bin", required=True, type=pathlib.Path)
    parser.add_argument("--io-lib", required=True, type=pathlib.Path,
                        help="libNeuronOracleIO.so (build/lib)")
    parser.add_argument("--rtol", type=float, default=1e-5)
    parser.add_argument("--atol", type=float, default=1e-5)
    args = parser.parse_args()
    args.run_dir = args.run_dir.resolve()
    args.io_lib = args.io_lib.resolve()
    if not args.io_lib.is_file():
        print(f"oracle: no IO library at {args.io_lib} "
              "(build the NeuronOracleIO target)")
        return 1

    inputs = [Npy(p) for p in numbered(args.run_dir, "input")]
    results = [Npy(p) for p in numbered(args.run_dir, "result")]
    if not results:
        print(f"oracle: no result*.npy in {args.run_dir}")
        return 1
    oracle = run_oracle(args, inputs, results)
    if oracle is None:
        return 1
    if len(oracle) != len(results):
        print(f"oracle: the harness wrote {len(oracle)} results, "
              f"neuron-run {len(results)}")
        return 1
    worst = 0.0
    failed = 0
    for i, (want, have) in enumerate(zip(oracle, results)):
        if (want.dtype, want.shape) != (have.dtype, have.shape):
            print(f"result {i}: oracle {want.dtype}{want.shape}, "
                  f"neuron-run {have.dtype}{have.shape}")
            return 1
        bad, ratio = compare(want.values(), have.values(), args.atol,
                             args.rtol)
        failed += bad
        worst = max(worst, ratio)
        print(f"result {i}: {len(have.raw)} values, shape {have.shape}"
              + ("" if have.dtype == "f32" else f", {have.dtype}"))
    print(f"worst error / tolerance: {worst:.3f}")
    print(f"{failed} elements outside atol={args.atol} rtol={args.rtol}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
