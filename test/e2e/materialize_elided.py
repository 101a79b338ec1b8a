#!/usr/bin/env python3
"""Writes a copy of a graph whose elided weights have data, so it can be
compiled, run and checked against the oracle.

  materialize_elided.py GRAPH.mlir -o COPY.mlir [--seed N] [--mlir-opt BIN]

Exporters print `dense_resource<__elided__> : tensor<...>` in place of large
constants (buddy_resnet18_tosa and buddy_bert_linalg in the corpus): a
placeholder with no data. Each occurrence gets its own resource key
(elided0, elided1, ... in file order) and a blob in a
`{-# dialect_resources: { builtin: { ... } } #-}` section appended to the
copy. A blob is MLIR's hex form: "0x", a 4-byte little-endian alignment
(a power of two; the element size here), then the little-endian elements
(the format upstream's AsmParser reads: mlir/test/IR/invalid-file-metadata
and the dense_resource round-trip tests).

Values, seeded from --seed (default 0) in file order:
  * float weights (two or more dimensions larger than 1): uniform in
    +-sqrt(3 / fan_in), fan_in = elements / first dimension (LeCun's
    uniform: about unit gain per layer, so a deep network's output neither
    vanishes, which would leave it independent of its input, nor overflows);
  * float per-channel vectors (at most one dimension larger than 1):
    uniform in [-0.1, 0.1] (biases, means, shifts), except
  * those that reach a square root through adds, reshapes and transposes
    (batch-norm variances: tosa.rsqrt(tosa.add(var, eps))) or are an
    operand of a multiply (batch-norm scales): uniform in [0.5, 1.5], so the
    root is real and the scale near 1;
  * integers: the element's row-major index (0, 1, 2, ...). The only
    elided integers in the corpus are BERT's position ids (1x512xi64),
    gathered from its 512-row position table; the index is the value
    PyTorch registers for them (arange(512)) and is always in range.

The copy goes where -o says (a test's temporary folder), never over the
input. With --mlir-opt the copy is parsed and verified by upstream mlir-opt.
"""

import argparse
import array
import pathlib
import random
import re
import struct
import subprocess
import sys

ELIDED = re.compile(
    r"dense_resource<__elided__>(\s*:\s*)tensor<((?:\d+x)*)(\w+)>")
# Element type -> (bytes, kind).
ELEMENTS = {
    "f64": (8, "float"), "f32": (4, "float"), "f16": (2, "float"),
    "bf16": (2, "float"), "i64": (8, "int"), "i32": (4, "int"),
    "i16": (2, "int"), "i8": (1, "int"),
}
DEFINITION = re.compile(r"^\s*(%[\w.$-]+)\s*=\s*\"?([\w.]+)\"?(.*)$", re.M)
SSA = re.compile(r"%[\w.$-]+")
# Square roots and multiplies whose constant operands get values near 1,
# and the ops their operands are traced back through to the constants.
ROOTS = {"tosa.rsqrt", "math.rsqrt", "math.sqrt"}
MULTIPLIES = {"tosa.mul", "arith.mulf"}
SHAPE_OPS = {"tosa.reshape", "tosa.transpose", "tosa.cast", "tosa.identity"}
ADDS = {"tosa.add", "arith.addf"}


def near_one(text):
    """Indices of the elided occurrences that reach a square root through
    adds and shape ops, or a multiply through shape ops."""
    defs = {}
    for m in DEFINITION.finditer(text):
        # Operands are the SSA names before the type signature.
        rest = m.group(3).split(" : ", 1)[0]
        defs[m.group(1)] = (m.group(2), SSA.findall(rest), m.start(3),
                            m.end(3))
    elided_at = [m.start() for m in ELIDED.finditer(text)]

    def trace(operands, through):
        found, work, seen = set(), list(operands), set()
        while work:
            value = work.pop()
            if value in seen or value not in defs:
                continue
            seen.add(value)
            op, inner, start, end = defs[value]
            found.update(i for i, at in enumerate(elided_at)
                         if start <= at < end)
            if op in through:
                work.extend(inner)
        return found

    found = set()
    for op, operands, _, _ in defs.values():
        if op in ROOTS:
            found |= trace(operands, SHAPE_OPS | ADDS)
        elif op in MULTIPLIES:
            found |= trace(operands, SHAPE_OPS)
    return found


def float_range(dims, near_one):
    """The interval a float constant of shape `dims` is drawn from."""
    if near_one:
        return 0.5, 1.5
    if sum(1 for d in dims if d > 1) < 2:
        return -0.1, 0.1
    fan_in = 1
    for d in dims[1:]:
        fan_in *= d
    bound = (3.0 / fan_in) ** 0.5
    return -bound, bound


def blob(element, dims, rng, near_one):
    """The hex blob of seeded elements of type `element` and shape `dims`."""
    count = 1
    for d in dims:
        count *= d
    size, kind = ELEMENTS[element]
    if kind == "int":
        code = {8: "q", 4: "i", 2: "h", 1: "b"}[size]
        limit = 1 << (8 * size - 1)
        data = array.array(code, (i % limit for i in range(count)))
    else:
        low, high = float_range(dims, near_one)
        values = array.array("f" if element != "f64" else "d",
                             (rng.uniform(low, high) for _ in range(count)))
        if element == "f16":
            data = array.array("H", struct.unpack(
                f"<{count}H", struct.pack(f"<{count}e", *values)))
        elif element == "bf16":
            # Round to nearest even on the f32 bits (the values are finite).
            bits = array.array("I", values.tobytes())
            data = array.array("H", ((b + 0x7FFF + ((b >> 16) & 1)) >> 16
                                     for b in bits))
        else:
            data = values
    if sys.byteorder != "little":
        data.byteswap()
    return "0x" + size.to_bytes(4, "little").hex().upper() + \
        data.tobytes().hex().upper()


def materialize(text, seed):
    """(the copy's text, number of constants given data)."""
    if "{-#" in text:
        raise ValueError("the graph already has a resource section; merging "
                         "into it is not supported")
    scales = near_one(text)
    rng = random.Random(seed)
    blobs = []

    def replace(m):
        index = len(blobs)
        dims, element = m.group(2), m.group(3)
        if element not in ELEMENTS:
            raise ValueError(f"elided constant {index}: element type "
                             f"{element} is not supported")
        shape = [int(d) for d in dims.split("x")[:-1]]
        blobs.append(f"      elided{index}: \""
                     f"{blob(element, shape, rng, index in scales)}\"")
        return f"dense_resource<elided{index}>{m.group(1)}tensor<{dims}" \
               f"{element}>"

    body = ELIDED.sub(replace, text)
    if not blobs:
        return text, 0
    section = "{-#\n  dialect_resources: {\n    builtin: {\n" + \
        ",\n".join(blobs) + "\n    }\n  }\n#-}\n"
    return body.rstrip("\n") + "\n\n" + section, len(blobs)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("graph", type=pathlib.Path)
    parser.add_argument("-o", dest="output", required=True,
                        type=pathlib.Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mlir-opt", help="verify the copy with this binary")
    args = parser.parse_args()
    if args.output.resolve() == args.graph.resolve():
        print("materialize_elided: refusing to overwrite the input graph")
        return 1
    try:
        text, count = materialize(args.graph.read_text(), args.seed)
    except ValueError as error:
        print(f"materialize_elided: {args.graph}: {error}")
        return 1
    args.output.write_text(text)
    if args.mlir_opt:
        check = subprocess.run([args.mlir_opt, str(args.output), "-o",
                                "/dev/null"], capture_output=True, text=True)
        if check.returncode:
            print(f"materialize_elided: mlir-opt rejects {args.output}:\n"
                  + check.stderr[-2000:])
            return 1
    print(f"{count} elided constants given data in {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
