#!/usr/bin/env python3
"""Cuts decoder layer 0 out of the corpus's whole LLaMA-2-7B forward pass
(buddy_llama2_7b_tosa.mlir) and shrinks it, for tests that need a real
frontend's decoder layer at a size that compiles and runs in seconds.

  llama_layer.py --corpus buddy_llama2_7b_tosa.mlir -o OUT.mlir
                 [--heads 8] [--ffn 1024]

The corpus function @subgraph0 takes the embedding table, the token ids and
11 weights per layer, and its body starts with the position ids, the
embedding gather, the causal mask and then layer 0, whose last op is the
residual add that the next layer's RMSNorm squares. OUT holds

  func.func @decoder_layer(%hidden: tensor<1x40xHxf32>, %arg2, ..., %arg12)
      -> tensor<1x40xHxf32>

with the body from the start up to and including that residual add, minus
the embedding gather: the gathered hidden state becomes the argument
%hidden. Attention heads 32 -> --heads, hidden 4096 -> heads * 128, FFN
11008 -> --ffn; head dim 128, seq 40 and the RoPE tables' 2048 rows stay, so
the RoPE half-split at 64 and the 1/sqrt(128) scale stay right.

The corpus is read at test time and never copied into the project. Any
departure from the structure above is an error naming what was expected and
what was found (exit status 1).
"""

import argparse
import collections
import pathlib
import re
import sys

HEAD_DIM = 128
HEADS = 32
HIDDEN = HEADS * HEAD_DIM
FFN = 11008

# Layer 0's weights, %arg2..%arg12, in the corpus's order and types.
LAYER0_ARGS = [
    ("%arg2", "tensor<4096xf32>"),           # attention RMSNorm weight
    ("%arg3", "tensor<4096x4096xf32>"),      # wq
    ("%arg4", "tensor<4096x4096xf32>"),      # wk
    ("%arg5", "tensor<4096x4096xf32>"),      # wv
    ("%arg6", "tensor<1x1x2048x128xf32>"),   # RoPE cos
    ("%arg7", "tensor<1x1x2048x128xf32>"),   # RoPE sin
    ("%arg8", "tensor<4096x4096xf32>"),      # wo
    ("%arg9", "tensor<4096xf32>"),           # FFN RMSNorm weight
    ("%arg10", "tensor<11008x4096xf32>"),    # gate
    ("%arg11", "tensor<11008x4096xf32>"),    # up
    ("%arg12", "tensor<4096x11008xf32>"),    # down
]
GATHER_ARGS = {"%arg0": "tensor<32000x4096xf32>", "%arg1": "tensor<1x40xi64>"}
HIDDEN_TYPE = "tensor<1x40x4096xf32>"
MARKER = "// end of last decoder block, begin of new decoder block."

SSA = r"%[\w$.\-]+"
SSA_RE = re.compile(SSA)
DEF_RE = re.compile(rf"^\s*({SSA}(?:\s*,\s*{SSA})*)\s*=")
BLOCK_ARG_RE = re.compile(rf"({SSA})\s*:")
ARG_RE = re.compile(r"(%arg\d+): (tensor<[^>]*>)")
TENSOR_RE = re.compile(r"tensor<((?:\d+x)+)([a-z]\w*)>")
CONST_SHAPE_RE = re.compile(
    r"(tosa\.const_shape \{values = dense<\[)([^\]]*)(\]> : tensor<\d+xindex>)")
SLICE_SIZES_RE = re.compile(
    r"(tensor\.(?:extract|insert)_slice\b[^\[]*\[[^\]]*\]\s*\[)([^\]]*)(\])")
RMS_DIVISOR = f"dense<{float(HIDDEN):.6e}>"


class CorpusError(Exception):
    """The corpus file does not have the structure this script expects."""


def expect(condition, message):
    if not condition:
        raise CorpusError(message)


class Op:
    """One top-level item of the function body: an op (with its regions) or
    a comment / blank line. `defs` are the values it defines, `uses` the
    values defined outside it that it reads."""

    def __init__(self, lines):
        self.lines = lines
        first = lines[0].strip()
        self.is_op = bool(first) and not first.startswith("//")
        match = DEF_RE.match(lines[0]) if self.is_op else None
        self.defs = SSA_RE.findall(match.group(1)) if match else []
        inner = set()
        for line in lines[1:]:
            if line.strip().startswith("^"):
                inner.update(BLOCK_ARG_RE.findall(line))
            elif (m := DEF_RE.match(line)):
                inner.update(SSA_RE.findall(m.group(1)))
        self.uses = set() if not self.is_op else {
            v for v in SSA_RE.findall(self.text)
            if v not in inner and v not in self.defs}

    @property
    def text(self):
        return "".join(self.lines)


def split_file(lines):
    """(header comments, #map alias lines, signature line, body lines) of the
    file, or an error when it is not one module with @subgraph0."""
    expect(lines, "the file is empty")
    expect(lines[0].startswith("// source:")
           and "license: Apache-2.0" in lines[0]
           and "buddy-compiler/buddy-mlir" in lines[0],
           "line 1: expected '// source: buddy-compiler/buddy-mlir ... "
           f"license: Apache-2.0', found {lines[0][:120]!r}")
    header = lines[:next((i for i, l in enumerate(lines)
                          if not l.startswith("//")), len(lines))]
    aliases = [l for l in lines if re.match(r"#map\d* = affine_map<", l)]
    expect(aliases, "expected #map affine_map aliases, found none")
    funcs = [i for i, l in enumerate(lines)
             if l.lstrip().startswith("func.func @subgraph0(")]
    expect(len(funcs) == 1,
           f"expected one 'func.func @subgraph0(', found {len(funcs)}")
    start = funcs[0] + 1
    end = next((i for i in range(start, len(lines))
                if lines[i].strip().startswith("return ")), None)
    expect(end is not None, "expected a return in @subgraph0, found none")
    return header, aliases, lines[funcs[0]], lines[start:end]


def check_signature(signature):
    """Checks that @subgraph0 takes the embedding, the ids and layer 0's
    weights in the expected order and types."""
    args = ARG_RE.findall(signature)
    expected = list(GATHER_ARGS.items()) + LAYER0_ARGS
    found = args[:len(expected)]
    expect(found == expected,
           "@subgraph0: expected the arguments "
           f"{', '.join(f'{n}: {t}' for n, t in expected)}; found "
           f"{', '.join(f'{n}: {t}' for n, t in found)}")
    expect(len(args) > len(expected) and args[len(expected)][0] == "%arg13",
           "@subgraph0: expected layer 1's weights from %arg13 on")


def group_ops(body):
    """The body's lines grouped into Ops; an op whose line opens a region
    runs to the line that closes it."""
    ops, current, depth = [], [], 0
    for line in body:
        current.append(line)
        depth += line.count("{") - line.count("}")
        expect(depth >= 0, f"unbalanced braces at {line.strip()[:80]!r}")
        if depth == 0:
            ops.append(Op(current))
            current = []
    expect(not current, "unterminated region at the end of @subgraph0")
    return ops


def definer(ops, value):
    """Index of the op defining `value`."""
    found = [i for i, op in enumerate(ops) if value in op.defs]
    expect(len(found) == 1,
           f"expected one definition of {value}, found {len(found)}")
    return found[0]


def squared_inputs(ops):
    """(index, input) of every RMSNorm square: a linalg.generic that takes
    one tensor and applies math.fpowi."""
    found = []
    for i, op in enumerate(ops):
        if "linalg.generic" in op.lines[0] and "math.fpowi" in op.text:
            match = re.search(rf"ins\(({SSA}) : ", op.lines[0])
            expect(match, f"RMSNorm square without one input: "
                   f"{op.lines[0].strip()[:120]!r}")
            found.append((i, match.group(1)))
    return found


def find_layer_end(ops):
    """Index of layer 0's last op: the residual add whose result the next
    layer's RMSNorm squares before it reads that layer's weight %arg13."""
    first13 = next((i for i, op in enumerate(ops) if "%arg13" in op.uses),
                   None)
    expect(first13 is not None, "expected a use of %arg13 (layer 1)")
    squares = [s for s in squared_inputs(ops) if s[0] < first13]
    expect(len(squares) == 3,
           "expected 3 RMSNorm squares (math.fpowi) before layer 1 reads "
           f"%arg13 (layer 0's two, layer 1's first), found {len(squares)}")
    value = squares[-1][1]
    end = definer(ops, value)
    op = ops[end]
    expect(re.search(rf"= tosa\.add {SSA}, {SSA} : \({HIDDEN_TYPE}, "
                     rf"{HIDDEN_TYPE}\) -> {HIDDEN_TYPE}", op.lines[0]),
           f"layer 0 ends at {value}: expected a residual tosa.add of "
           f"{HIDDEN_TYPE}, found {op.lines[0].strip()[:160]!r}")
    after = [o for o in ops[end + 1:] if o.lines[0].strip()]
    expect(after and after[0].lines[0].strip() == MARKER,
           f"expected the comment {MARKER!r} right after {value}")
    return end


def find_hidden(ops):
    """The embedding's result: the value layer 0's first RMSNorm squares,
    which is also the attention's residual."""
    squares = squared_inputs(ops)
    expect(squares, "expected layer 0's RMSNorm (math.fpowi), found none")
    value = squares[0][1]
    op = ops[definer(ops, value)]
    expect(op.lines[0].rstrip().endswith(f"-> {HIDDEN_TYPE}"),
           f"expected {value} of type {HIDDEN_TYPE}, found "
           f"{op.lines[0].strip()[:160]!r}")
    expect(any(re.search(rf"= tosa\.add {re.escape(value)}, ", o.lines[0])
               for o in ops),
           f"expected {value} as the first operand of the attention's "
           "residual tosa.add")
    return value


def drop_gather(ops, hidden):
    """`ops` without the op defining `hidden` and the ops only it needs
    (the embedding gather); the gather must reach exactly %arg0 and %arg1
    and nothing else may use them."""
    dropped = {definer(ops, hidden)}
    changed = True
    while changed:
        changed = False
        needed = set().union(*(ops[i].uses for i in dropped))
        for i, op in enumerate(ops):
            if i in dropped or not op.defs or not set(op.defs) & needed:
                continue
            users = [o for j, o in enumerate(ops)
                     if j not in dropped and j != i and set(op.defs) & o.uses]
            if not users:
                dropped.add(i)
                changed = True
    args = {v for i in dropped for v in ops[i].uses if v.startswith("%arg")}
    expect(args == set(GATHER_ARGS),
           f"expected the embedding gather to read %arg0 and %arg1, it reads "
           f"{', '.join(sorted(args)) or 'no argument'}")
    kept = [op for i, op in enumerate(ops) if i not in dropped]
    for op in kept:
        expect(not op.uses & set(GATHER_ARGS),
               f"expected only the embedding gather to read %arg0/%arg1, "
               f"found {op.lines[0].strip()[:120]!r}")
    return kept, len(dropped)


def rename(ops, old, new):
    """Every use of SSA value `old` renamed `new`, whole names only: `%6`
    leaves `%60` and `%61` alone."""
    pattern = re.compile(re.escape(old) + r"(?![\w$.\-])")
    for op in ops:
        if old in op.uses:
            op.lines = [pattern.sub(new, l) for l in op.lines]


def resize_list(items, sizes):
    """A comma-separated dimension list with every listed size replaced."""
    dims = [d.strip() for d in items.split(",")]
    return ", ".join(str(sizes.get(int(d), d)) if d.isdigit() else d
                     for d in dims)


def shrink(text, sizes):
    """`text` with the sizes in `sizes` ({old: new}) replaced in tensor
    types, tosa.const_shape lists and slice size lists, and the RMSNorm
    divisor set to the new hidden size."""
    def tensor(m):
        dims = [str(sizes.get(int(d), d)) for d in m.group(1).split("x")[:-1]]
        return "tensor<" + "x".join(dims) + "x" + m.group(2) + ">"

    def listed(m):
        return m.group(1) + resize_list(m.group(2), sizes) + m.group(3)

    text = TENSOR_RE.sub(tensor, text)
    text = CONST_SHAPE_RE.sub(listed, text)
    text = SLICE_SIZES_RE.sub(listed, text)
    return text.replace(RMS_DIVISOR, f"dense<{float(sizes[HIDDEN]):.6e}>")


def check_shrunk(code, sizes):
    """Fails if an old size that changed is left: a head count of 32 in a
    shape, type or slice size list, 4096 or 11008 as a number anywhere."""
    for old, new in sizes.items():
        if old in sizes.values():
            continue  # kept, or another size became it: nothing to find
        if old != HEADS:
            left = re.findall(rf".*(?:(?<![\w%.])|(?<=\dx)){old}(?!\d).*",
                              code)
        else:
            left = [l for l in code.splitlines()
                    if re.search(r"[<x]32x", l)
                    or any(re.search(r"(^|,)\s*32\s*(,|$)", m.group(2))
                           for r in (CONST_SHAPE_RE, SLICE_SIZES_RE)
                           for m in r.finditer(l))]
        if left:
            raise CorpusError(f"size {old} left after shrinking: "
                              f"{left[0].strip()[:160]!r}")
    expect(RMS_DIVISOR not in code or sizes[HIDDEN] == HIDDEN,
           f"RMSNorm divisor {RMS_DIVISOR} left after shrinking")


Layer = collections.namedtuple(
    "Layer", "header aliases ops hidden result dropped")


def cut_layer(lines):
    """Layer 0 of the corpus: its header and #map aliases, the body's ops up
    to layer 0's residual add without the embedding gather, the gather's
    result (`hidden`), the value returned and how many ops were dropped."""
    header, aliases, signature, body = split_file(lines)
    check_signature(signature)
    ops = group_ops(body)
    end = find_layer_end(ops)
    hidden = find_hidden(ops[:end + 1])
    kept, dropped = drop_gather(ops[:end + 1], hidden)
    check_layer_args(kept)
    expect(RMS_DIVISOR in "".join(op.text for op in kept),
           f"expected the RMSNorm divisor {RMS_DIVISOR} in layer 0")
    return Layer(header, aliases, kept, hidden, ops[end].defs[0], dropped)


def check_layer_args(ops):
    """Fails unless `ops` read all of %arg2..%arg12 and no later argument."""
    for op in ops:
        later = [u for u in op.uses
                 if re.fullmatch(r"%arg\d+", u) and int(u[4:]) > 12]
        expect(not later, "layer 0 reads a later layer's weight: "
               f"{op.lines[0].strip()[:120]!r}")
    unused = [n for n, _ in LAYER0_ARGS if not any(n in op.uses for op in ops)]
    expect(not unused, f"layer 0 never reads {', '.join(unused)}")


def provenance(layer, sizes, source_name):
    """The output's leading comments: where it comes from and what changed."""
    return [
        "// Generated at test time by test/corpus/llama_layer.py from "
        f"{source_name};",
        "// not checked in. The source file's header follows:",
        *[l.rstrip("\n") for l in layer.header],
        "// Cut: decoder layer 0 of @subgraph0 as @decoder_layer: the body up "
        f"to its residual add {layer.result} (returned); the embedding gather "
        f"({layer.dropped} ops) dropped, its result {layer.hidden} is now "
        "%hidden; %arg0/%arg1 gone.",
        f"// Shrunk: heads {HEADS} -> {sizes[HEADS]}, hidden {HIDDEN} -> "
        f"{sizes[HIDDEN]}, FFN {FFN} -> {sizes[FFN]} (types, const_shape "
        "lists, slice sizes, RMSNorm divisor); head dim 128, seq 40, RoPE "
        "rows 2048 kept.",
    ]


def render(layer, sizes, source_name):
    """The shrunk @decoder_layer module's text."""
    rename(layer.ops, layer.hidden, "%hidden")
    args = [("%hidden", HIDDEN_TYPE)] + LAYER0_ARGS
    params = ",\n".join(f"      {n}: {shrink(t, sizes)}" for n, t in args)
    out_type = shrink(HIDDEN_TYPE, sizes)
    code = shrink("".join(op.text for op in layer.ops if op.lines[0].strip()),
                  sizes)
    check_shrunk(params + "".join(l for l in code.splitlines(True)
                                  if not l.lstrip().startswith("//")), sizes)
    return "\n".join(provenance(layer, sizes, source_name)) + "\n" + \
        "".join(layer.aliases) + (
            "module {\n"
            f"  func.func @decoder_layer(\n{params})\n      -> {out_type} {{\n"
            f"{code}"
            f"    return {layer.result} : {out_type}\n"
            "  }\n"
            "}\n")


def positive(text):
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected > 0, got {value}")
    return value


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--corpus", required=True, type=pathlib.Path,
                        help="buddy_llama2_7b_tosa.mlir")
    parser.add_argument("-o", dest="out", required=True, type=pathlib.Path)
    parser.add_argument("--heads", type=positive, default=8,
                        help="attention heads of 128 (default 8)")
    parser.add_argument("--ffn", type=positive, default=1024,
                        help="SwiGLU hidden size (default 1024)")
    args = parser.parse_args()
    try:
        lines = args.corpus.read_text(encoding="utf-8").splitlines(True)
        sizes = {HIDDEN: args.heads * HEAD_DIM, FFN: args.ffn,
                 HEADS: args.heads}
        text = render(cut_layer(lines), sizes, args.corpus.name)
    except (CorpusError, OSError, UnicodeDecodeError) as error:
        sys.exit(f"llama_layer.py: {args.corpus}: {error}")
    args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
