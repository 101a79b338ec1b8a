#!/usr/bin/env python3
"""Random valid frontend graphs for differential testing of neuron-compile.

`generate(seed)` builds one function, @graph, on static tensors from a
`random.Random(seed)` of its own (no global state: the same seed gives the
same text on every run and platform). A graph is a list of nodes, each one
frontend operation (or a short chain: matmul, bias add, activation) written
as linalg named ops or linalg.generic, tensor ops, arith/math on tensors or
TOSA, in f32, bf16, i8 or i32 with casts between them. Every node reads
values defined before it and defines one value; `render(keep)` prints the
graph with only the nodes in `keep`: a dropped node's value, where a kept
node reads it, becomes a function argument, and the results are the kept
values no kept node reads. That lets difftest.py shrink a failing graph.

The generator also tracks, per value, a bound on |element| (inputs are
neuron-run's random ones: floats in [-1, 1), integers in [-8, 8)) and a
first-order estimate of the absolute error two correct implementations may
differ by (summation order, roundings the device may skip inside a fused
chain, the roundings before a cast), from which `tolerances` derives each
result's rtol/atol. The bounds keep graphs in the domain where the
comparison means something: no exp of large values, log/sqrt/rsqrt/div only
of arguments made positive in the same body, integers below 2^24 (no
wrap-around, and exact should any path compute them in f32) and i8 below
128, float-to-int casts only of exactly known values.

Usage: gen_graph.py SEED [--max-ops N] prints the graph (the first N nodes).
"""

import argparse
import collections
import math
import random

# Dimension sizes: units, primes, and sizes around the 128 partitions.
DIMS = (1, 2, 3, 5, 7, 16, 31, 64, 100, 128, 129, 200, 257)
MAX_ELEMENTS = 1 << 15       # per tensor, so a graph runs in about a second
MAX_STEPS = 8                # ops drawn; a matmul may add its epilogue
FLOATS = ("f32", "bf16")
# Relative rounding of one operation per element type: a bf16 rounding that
# falls the other way on one side moves a value by one ulp, 2^-8.
ULP = {"f32": 2.0 ** -24, "bf16": 2.0 ** -8, "i8": 0.0, "i32": 0.0}
LIMIT = {"f32": 1e6, "bf16": 1e6, "i8": 127, "i32": 1 << 24}
# Tolerance floors (test/e2e: f32 atol = rtol = 1e-4, bf16 2e-2), integers
# exact; atol grows with the result's error estimate (see `tolerances`).
FLOOR = {"f32": 1e-4, "bf16": 2e-2}
SAFETY = 4.0


def tensor_type(shape, dtype):
    """tensor<AxBxT>."""
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def amap(loops, dims):
    """affine_map<(d0, ..) -> (d_i, ..)> over `loops` loops."""
    ds = ", ".join(f"d{i}" for i in range(loops))
    return f"affine_map<({ds}) -> ({', '.join(f'd{i}' for i in dims)})>"


def csv(values):
    """The values, comma-separated."""
    return ", ".join(map(str, values))


def elements(shape):
    """The number of elements of `shape`."""
    return math.prod(shape)


def identity(kind, dtype):
    """The literal a sum, max or min reduction starts from."""
    if kind == "sum":
        return "0.0" if dtype in FLOATS else "0"
    if dtype in FLOATS:  # -inf for max, +inf for min, as hexadecimal bits
        return {("max", "f32"): "0xFF800000", ("min", "f32"): "0x7F800000",
                ("max", "bf16"): "0xFF80",
                ("min", "bf16"): "0x7F80"}[kind, dtype]
    bits = int(dtype[1:])
    return str(-2 ** (bits - 1) if kind == "max" else 2 ** (bits - 1) - 1)


class Value:
    """A tensor of the graph: SSA name, shape, element type, a bound on
    |element| and the error estimate inherited from its operands (its own
    final rounding excluded: rtol covers that)."""

    def __init__(self, name, shape, dtype, bound, err=0.0):
        self.name, self.shape, self.dtype = name, tuple(shape), dtype
        self.bound, self.err = bound, err

    @property
    def type(self):
        return tensor_type(self.shape, self.dtype)

    @property
    def noisy(self):
        """The error a consumer sees: inherited error plus own rounding."""
        return self.err + ULP[self.dtype] * self.bound


class Node:
    """One generated operation: its lines, the values it reads, the value it
    defines and a short description."""

    def __init__(self, lines, reads, result, what):
        self.lines, self.reads, self.result, self.what = \
            lines, reads, result, what



class Unary(collections.namedtuple(
        "Unary", "body bound lip limit forms",
        defaults=(lambda b: b, 1.0, math.inf, (None, None, None)))):
    """An elementwise function as a body reading %x and yielding %y; its
    result bound and Lipschitz constant (a number, or a function) given the
    input bound b; the largest input bound it is drawn for; its single-op
    spellings (linalg named op, op on whole tensors, TOSA op or clamp form)."""

    def lipschitz(self, b):
        return self.lip(b) if callable(self.lip) else self.lip


UNARY_F = {
    "exp": Unary(["%y = math.exp %x : {t}"], math.exp, math.exp, 8,
                 ("linalg.exp", "math.exp", "tosa.exp")),
    "tanh": Unary(["%y = math.tanh %x : {t}"], lambda b: min(b, 1.0),
                  forms=("linalg.tanh", "math.tanh", "tosa.tanh")),
    "relu": Unary(["%z = arith.constant 0.0 : {t}",
                   "%y = arith.maximumf %x, %z : {t}"],
                  forms=(None, None, "relu")),
    "relu_select": Unary(["%z = arith.constant 0.0 : {t}",
                          "%c = arith.cmpf ugt, %x, %z : {t}",
                          "%y = arith.select %c, %x, %z : {t}"]),
    "sigmoid": Unary(["%n = arith.negf %x : {t}", "%e = math.exp %n : {t}",
                      "%one = arith.constant 1.0 : {t}",
                      "%d = arith.addf %one, %e : {t}",
                      "%y = arith.divf %one, %d : {t}"], lambda b: 1.0, 0.25,
                     30, (None, None, "tosa.sigmoid")),
    "gelu_tanh": Unary(["%h = arith.constant 0.5 : {t}",
                        "%k = arith.constant 0.7978845608 : {t}",
                        "%c3 = arith.constant 0.044715 : {t}",
                        "%one = arith.constant 1.0 : {t}",
                        "%x2 = arith.mulf %x, %x : {t}",
                        "%x3 = arith.mulf %x2, %x : {t}",
                        "%p = arith.mulf %x3, %c3 : {t}",
                        "%s = arith.addf %x, %p : {t}",
                        "%u = arith.mulf %s, %k : {t}",
                        "%th = math.tanh %u : {t}",
                        "%q = arith.addf %th, %one : {t}",
                        "%hx = arith.mulf %x, %h : {t}",
                        "%y = arith.mulf %hx, %q : {t}"], lip=1.2, limit=20),
    "silu": Unary(["%n = arith.negf %x : {t}", "%e = math.exp %n : {t}",
                   "%one = arith.constant 1.0 : {t}",
                   "%d = arith.addf %one, %e : {t}",
                   "%y = arith.divf %x, %d : {t}"], lip=1.1, limit=30),
    "neg": Unary(["%y = arith.negf %x : {t}"],
                 forms=("linalg.negf", "arith.negf", "tosa.negate")),
    "abs": Unary(["%y = math.absf %x : {t}"],
                 forms=("linalg.abs", "math.absf", "tosa.abs")),
    "log1p_sq": Unary(["%one = arith.constant 1.0 : {t}",
                       "%x2 = arith.mulf %x, %x : {t}",
                       "%s = arith.addf %x2, %one : {t}",
                       "%y = math.log %s : {t}"], lambda b: math.log1p(b * b)),
    "sqrt_abs": Unary(["%one = arith.constant 1.0 : {t}",
                       "%a = math.absf %x : {t}",
                       "%s = arith.addf %a, %one : {t}",
                       "%y = math.sqrt %s : {t}"], lambda b: math.sqrt(b + 1),
                      0.5),
    "rsqrt_sq": Unary(["%one = arith.constant 1.0 : {t}",
                       "%x2 = arith.mulf %x, %x : {t}",
                       "%s = arith.addf %x2, %one : {t}",
                       "%y = math.rsqrt %s : {t}"], lambda b: 1.0, 0.65),
    "erf": Unary(["%y = math.erf %x : {t}"], lambda b: min(1.13 * b, 1.0),
                 1.13, forms=("linalg.erf", "math.erf", "tosa.erf")),
    "affine": Unary(["%m = arith.constant -2.0 : {t}",
                     "%c = arith.constant 0.25 : {t}",
                     "%p = arith.mulf %x, %m : {t}",
                     "%y = arith.addf %p, %c : {t}"], lambda b: 2 * b + 0.25,
                    2.0),
    "clamp": Unary(["%lo = arith.constant -0.5 : {t}",
                    "%hi = arith.constant 0.75 : {t}",
                    "%m = arith.maximumf %x, %lo : {t}",
                    "%y = arith.minimumf %m, %hi : {t}"],
                   lambda b: min(b, 0.75), forms=(None, None, "clamp")),
}

UNARY_I = {
    "relu": Unary(["%z = arith.constant 0 : {t}",
                   "%y = arith.maxsi %x, %z : {t}"],
                  forms=(None, None, "relu")),
    "neg": Unary(["%z = arith.constant 0 : {t}",
                  "%y = arith.subi %z, %x : {t}"],
                 forms=(None, None, "tosa.negate")),
    "abs": Unary(["%y = math.absi %x : {t}"], forms=(None, None, "tosa.abs")),
    "clamp": Unary(["%lo = arith.constant -3 : {t}",
                    "%hi = arith.constant 5 : {t}",
                    "%m = arith.maxsi %x, %lo : {t}",
                    "%y = arith.minsi %m, %hi : {t}"], lambda b: min(b, 5),
                   forms=(None, None, "clamp")),
    "affine": Unary(["%m = arith.constant 3 : {t}",
                     "%c = arith.constant 2 : {t}",
                     "%p = arith.muli %x, %m : {t}",
                     "%y = arith.addi %p, %c : {t}"], lambda b: 3 * b + 2),
}

# Binary ops: body op on floats and on integers, linalg named op, TOSA op,
# result bound and error estimate from the operands (a, b).
Binary = collections.namedtuple("Binary", "float int named tosa bound err")
BINARY = {
    "add": Binary("arith.addf", "arith.addi", "linalg.add", "tosa.add",
                  lambda a, b: a.bound + b.bound,
                  lambda a, b: a.noisy + b.noisy),
    "sub": Binary("arith.subf", "arith.subi", "linalg.sub", "tosa.sub",
                  lambda a, b: a.bound + b.bound,
                  lambda a, b: a.noisy + b.noisy),
    "mul": Binary("arith.mulf", "arith.muli", "linalg.mul", "tosa.mul",
                  lambda a, b: a.bound * b.bound,
                  lambda a, b: a.noisy * b.bound + b.noisy * a.bound),
    "max": Binary("arith.maximumf", "arith.maxsi", "linalg.max",
                  "tosa.maximum", lambda a, b: max(a.bound, b.bound),
                  lambda a, b: max(a.noisy, b.noisy)),
    "min": Binary("arith.minimumf", "arith.minsi", "linalg.min",
                  "tosa.minimum", lambda a, b: max(a.bound, b.bound),
                  lambda a, b: max(a.noisy, b.noisy)),
    # a / (|b| + 1): a body of three ops, floats only.
    "div": Binary(None, None, None, None, lambda a, b: a.bound,
                  lambda a, b: a.noisy + b.noisy * a.bound),
}

# The integer types TOSA's validation (run by the TOSA lowering) accepts per
# op; floats take every op.
TOSA_INTS = {"tosa.add": ("i32",), "tosa.sub": ("i32",), "tosa.mul": ("i32",),
             "tosa.maximum": ("i32",), "tosa.minimum": ("i32",),
             "tosa.abs": ("i32",), "tosa.negate": ("i8", "i32"),
             "clamp": ("i8",), "relu": ("i8",)}


def tosa_accepts(op, dtype):
    """Whether the TOSA op (or clamp form) takes elements of `dtype`."""
    return op is not None and (dtype in FLOATS or
                               dtype in TOSA_INTS.get(op, ()))


class Emitter:
    """Collects one node's lines. Temporaries are named after the node
    (%t<node>_<n>), so that nodes can be dropped independently."""

    def __init__(self, index):
        self.index, self.lines, self.reads, self.count = index, [], [], 0

    def tmp(self):
        """A fresh temporary name."""
        self.count += 1
        return f"%t{self.index}_{self.count}"

    def use(self, value):
        """Records that the node reads `value`; returns its name."""
        if value not in self.reads:
            self.reads.append(value)
        return value.name

    def __call__(self, line):
        self.lines.append("  " + line)

    def empty(self, shape, dtype):
        """A tensor.empty of the shape; returns its name."""
        name = self.tmp()
        self(f"{name} = tensor.empty() : {tensor_type(shape, dtype)}")
        return name

    def scalar(self, literal, dtype):
        """An arith.constant scalar; returns its name."""
        name = self.tmp()
        self(f"{name} = arith.constant {literal} : {dtype}")
        return name

    def filled(self, shape, dtype, literal):
        """A linalg.fill of `literal` into a fresh tensor; returns its name."""
        cst, init = self.scalar(literal, dtype), self.empty(shape, dtype)
        name, t = self.tmp(), tensor_type(shape, dtype)
        self(f"{name} = linalg.fill ins({cst} : {dtype}) outs({init} : {t})"
             f" -> {t}")
        return name

    def tosa_const(self, literal, dtype):
        """A one-element tosa.const (shifts, zero points, pad values)."""
        name, t = self.tmp(), tensor_type((1,), dtype)
        self(f'{name} = "tosa.const"() <{{values = dense<{literal}> : {t}}}>'
             f" : () -> {t}")
        return name

    def tosa_shape(self, dims):
        """A tosa.const_shape of `dims`."""
        name = self.tmp()
        self(f"{name} = tosa.const_shape {{values = dense<[{csv(dims)}]> : "
             f"tensor<{len(dims)}xindex>}} : () -> !tosa.shape<{len(dims)}>")
        return name

    def generic(self, name, ins, out_shape, out_dtype, loops, out_dims,
                iterators, body, init=None, yields="%y", args=("%x", "%p")):
        """`name` = a linalg.generic over `loops` loops. `ins` are (value
        name, type, dims read, element type), bound in the body to `args`;
        the init (a fresh tensor.empty unless given) to %o; the body's lines
        end in `yields`."""
        out_t = tensor_type(out_shape, out_dtype)
        init = init or self.empty(out_shape, out_dtype)
        maps = ", ".join([amap(loops, d) for _, _, d, _ in ins] +
                         [amap(loops, out_dims)])
        its = ", ".join(f'"{k}"' for k in iterators)
        names = ", ".join(n for n, _, _, _ in ins)
        types = ", ".join(t for _, t, _, _ in ins)
        args = ", ".join(f"{a}: {e}" for a, (_, _, _, e) in zip(args, ins))
        self(f"{name} = linalg.generic {{indexing_maps = [{maps}], "
             f"iterator_types = [{its}]}} ins({names} : {types}) "
             f"outs({init} : {out_t}) {{")
        self(f"^bb0({args}, %o: {out_dtype}):")
        for line in body:
            self("  " + line)
        self(f"  linalg.yield {yields} : {out_dtype}")
        self("} -> " + out_t)


class Graph:
    """A generated graph: arguments, nodes, and the style and element type
    it was drawn with."""

    def __init__(self, seed):
        self.seed = seed
        self.rng = random.Random(seed)
        self.counter = 0
        self.args, self.nodes = [], []
        self.style = self.rng.choice(("linalg", "linalg", "tosa", "mixed"))
        self.dtype = self.rng.choice(("f32", "f32", "f32", "bf16", "bf16",
                                      "i32", "i8"))

    # -- values -----------------------------------------------------------

    def new_value(self, prefix, shape, dtype, bound, err=0.0):
        """A value with a fresh name (%a<n> arguments, %v<n> results)."""
        self.counter += 1
        return Value(f"%{prefix}{self.counter}", shape, dtype, bound, err)

    def new_arg(self, shape, dtype):
        """A fresh function argument (neuron-run's random range)."""
        arg = self.new_value("a", shape, dtype,
                             1.0 if dtype in FLOATS else 8.0)
        self.args.append(arg)
        return arg

    def pool(self):
        """Every value defined so far."""
        return self.args + [n.result for n in self.nodes]

    def random_shape(self):
        """A shape of rank 1-4 with at most MAX_ELEMENTS elements."""
        shape = []
        for _ in range(self.rng.choice((1, 2, 2, 2, 3, 3, 4))):
            room = MAX_ELEMENTS // max(1, elements(shape))
            shape.append(self.rng.choice([d for d in DIMS if d <= room]
                                         or [1]))
        self.rng.shuffle(shape)
        return tuple(shape)

    def tosa(self):
        """Whether this op is written in TOSA."""
        return self.style == "tosa" or (self.style == "mixed" and
                                        self.rng.random() < 0.5)

    def partner(self, shape, dtype):
        """A value of `shape` and `dtype`: an existing one or a new
        argument."""
        same = [v for v in self.pool()
                if v.shape == shape and v.dtype == dtype]
        if same and self.rng.random() < 0.4:
            return self.rng.choice(same)
        return self.new_arg(shape, dtype)

    def add_node(self, em, result, what):
        """Appends the node `em` built, defining `result`."""
        self.nodes.append(Node(em.lines, em.reads, result, what))
        return result

    def fits(self, dtype, bound):
        """Whether `bound` keeps values in the domain compared exactly."""
        return bound <= LIMIT[dtype]

    # -- ops --------------------------------------------------------------

    def op_unary(self, x):
        """An activation or other elementwise function of one value."""
        em, t, b = Emitter(len(self.nodes)), x.dtype, x.bound
        table = UNARY_F if t in FLOATS else UNARY_I
        name = self.rng.choice([k for k, f in table.items() if b <= f.limit])
        fn = table[name]
        bound = fn.bound(b)
        if not self.fits(t, bound):
            return None
        # Integers are exact; a float body rounds once per op.
        err = fn.lipschitz(b) * x.noisy + \
            len(fn.body) * ULP[t] * max(b, bound, 1.0) if t in FLOATS else 0.0
        out = self.new_value("v", x.shape, t, bound, err)
        xt, xn = x.type, em.use(x)
        named, on_tensor, tosa_form = fn.forms
        form = self.rng.choice(("generic", "named", "tensor"))
        if self.tosa() and tosa_accepts(tosa_form, t):
            self.tosa_unary(em, tosa_form, x, out)
        elif form == "named" and named:
            init = em.empty(x.shape, t)
            em(f"{out.name} = {named} ins({xn} : {xt}) outs({init} : {xt})"
               f" -> {xt}")
        elif form == "tensor" and on_tensor:
            em(f"{out.name} = {on_tensor} {xn} : {xt}")
        else:
            rank = len(x.shape)
            em.generic(out.name, [(xn, xt, range(rank), t)], x.shape, t,
                       rank, range(rank), ["parallel"] * rank,
                       [line.format(t=t) for line in fn.body])
        return self.add_node(em, out, f"unary {name}")

    def tosa_unary(self, em, form, x, out):
        """The TOSA spelling of an elementwise function of `x`."""
        t, xn, xt = x.dtype, em.use(x), x.type
        if form in ("relu", "clamp"):
            lo, hi = {("relu", True): ("0.0", "3.0e38"),
                      ("clamp", True): ("-0.5", "0.75"),
                      ("relu", False): ("0", "127"),
                      ("clamp", False): ("-3", "5")}[form, t in FLOATS]
            em(f"{out.name} = tosa.clamp {xn} {{max_val = {hi} : {t}, "
               f"min_val = {lo} : {t}}} : ({xt}) -> {xt}")
        elif form == "tosa.negate":
            zp = em.tosa_const("0.0" if t in FLOATS else "0", t)
            em(f"{out.name} = tosa.negate {xn}, {zp}, {zp} : ({xt}, "
               f"{tensor_type((1,), t)}, {tensor_type((1,), t)}) -> {xt}")
        else:
            em(f"{out.name} = {form} {xn} : ({xt}) -> {xt}")

    def op_binary(self, x):
        """An elementwise op of two values, the second one possibly
        broadcast (a bias) or a filled constant."""
        t, rank, rng = x.dtype, len(x.shape), self.rng
        names = ["add", "sub", "mul", "max", "min"] + (["div"] if t in FLOATS
                                                       else [])
        name = rng.choice(names)
        op = BINARY[name]
        em = Emitter(len(self.nodes))
        kind = rng.choice(("same", "same", "broadcast", "fill"))
        if kind == "broadcast":
            kept = sorted(rng.sample(range(rank), rng.randint(0, rank - 1)))
            y = self.new_arg(tuple(x.shape[d] for d in kept), t)
        elif kind == "fill":
            literal = rng.choice(("0.5", "-1.5", "2.0") if t in FLOATS
                                 else ("3", "-2"))
            y = Value(None, x.shape, t, abs(float(literal)))
        else:
            y = self.partner(x.shape, t)
        bound = op.bound(x, y)
        if not self.fits(t, bound):
            return None
        err = op.err(x, y) + (3 if name == "div" else 1) * ULP[t] * bound
        out = self.new_value("v", x.shape, t, bound, err)
        xn, xt = em.use(x), x.type
        if kind == "fill":
            y.name = em.filled(x.shape, t, literal)
        else:
            em.use(y)
        if self.tosa() and tosa_accepts(op.tosa, t) and kind != "fill":
            # TOSA broadcasts operands of equal rank along unit dimensions.
            yn, yt = y.name, y.type
            if kind == "broadcast":
                yshape = tuple(x.shape[d] if d in kept else 1
                               for d in range(rank))
                yn, yt = em.tmp(), tensor_type(yshape, t)
                em(f"{yn} = tosa.reshape {y.name}, {em.tosa_shape(yshape)} : "
                   f"({y.type}, !tosa.shape<{rank}>) -> {yt}")
            if name == "mul":
                shift = em.tosa_const("0", "i8")
                em(f"{out.name} = tosa.mul {xn}, {yn}, {shift} : ({xt}, {yt}, "
                   "tensor<1xi8>) -> " + xt)
            else:
                em(f"{out.name} = {op.tosa} {xn}, {yn} : ({xt}, {yt}) -> {xt}")
        elif kind == "same" and name != "div" and rng.random() < 0.5:
            if rng.random() < 0.5:
                init = em.empty(x.shape, t)
                em(f"{out.name} = {op.named} ins({xn}, {y.name} : {xt}, {xt}) "
                   f"outs({init} : {xt}) -> {xt}")
            else:
                em(f"{out.name} = {op.float if t in FLOATS else op.int} {xn}, "
                   f"{y.name} : {xt}")
        else:
            if name == "div":
                body = ["%one = arith.constant 1.0 : {t}",
                        "%a = math.absf %p : {t}",
                        "%d = arith.addf %a, %one : {t}",
                        "%y = arith.divf %x, %d : {t}"]
            else:
                body = [f"%y = {op.float if t in FLOATS else op.int} %x, %p :"
                        " {t}"]
            ydims = kept if kind == "broadcast" else range(rank)
            em.generic(out.name, [(xn, xt, range(rank), t),
                                  (y.name, y.type, ydims, t)], x.shape, t,
                       rank, range(rank), ["parallel"] * rank,
                       [line.format(t=t) for line in body])
        return self.add_node(em, out, f"binary {name} ({kind})")

    def op_matmul(self, x):
        """A matmul (rank 2) or batch matmul (rank 3) of `x` by a weight, in
        linalg (named, or a generic reading the weight transposed) or TOSA
        (rank 3); sometimes followed by a bias add and an activation (a
        fusible chain)."""
        rank, rng, t = len(x.shape), self.rng, x.dtype
        if rank not in (2, 3):
            return None
        k, batch = x.shape[-1], x.shape[:-2]
        room = MAX_ELEMENTS // max(elements(batch) * k, elements(x.shape[:-1]))
        n = rng.choice([d for d in DIMS if d <= room] or [1])
        acc = {"f32": "f32", "bf16": rng.choice(("bf16", "f32")),
               "i8": "i32", "i32": "i32"}[t]
        if self.tosa() and rank == 3 and t != "i32":
            form, acc = "tosa", "f32" if t in FLOATS else "i32"
        elif rank == 2 and rng.random() < 0.25:
            # A generic sums in its accumulator's type as written: bf16
            # products are summed in f32, as the device does.
            form, acc = "transposed", "f32" if t in FLOATS else acc
        else:
            form = "named"
        w_shape = (n, k) if form == "transposed" else batch + (k, n)
        w = self.partner(w_shape, t)
        bound = k * x.bound * w.bound
        if not self.fits(acc, bound):
            return None
        # Summation order: about sqrt(K) f32 roundings of the running sum.
        err = k * (x.noisy * w.bound + w.noisy * x.bound) + \
            math.sqrt(k) * ULP["f32"] * bound
        em = Emitter(len(self.nodes))
        out_shape = x.shape[:-1] + (n,)
        out = self.new_value("v", out_shape, acc, bound, err)
        xn, wn, xt, wt, ot = em.use(x), em.use(w), x.type, w.type, out.type
        zero = "0.0" if acc in FLOATS else "0"
        if form == "tosa":
            zp = em.tosa_const("0.0" if t in FLOATS else "0", t)
            zt = tensor_type((1,), t)
            em(f"{out.name} = tosa.matmul {xn}, {wn}, {zp}, {zp} : ({xt}, "
               f"{wt}, {zt}, {zt}) -> {ot}")
            what = "tosa.matmul"
        elif form == "transposed":
            # out[m, n] += x[m, k] * w[n, k]
            mul, add = ("arith.mulf", "arith.addf") if acc in FLOATS else \
                ("arith.muli", "arith.addi")
            body = [f"%m = {mul} %x, %p : {t}"]
            if t != acc:
                ext = "arith.extf" if t in FLOATS else "arith.extsi"
                body = [f"%xe = {ext} %x : {t} to {acc}",
                        f"%pe = {ext} %p : {t} to {acc}",
                        f"%m = {mul} %xe, %pe : {acc}"]
            em.generic(out.name, [(xn, xt, (0, 2), t), (wn, wt, (1, 2), t)],
                       out_shape, acc, 3, (0, 1),
                       ["parallel", "parallel", "reduction"],
                       body + [f"%y = {add} %o, %m : {acc}"],
                       em.filled(out_shape, acc, zero))
            what = "matmul (generic, transposed weight)"
        else:
            init = em.filled(out_shape, acc, zero)
            op = "linalg.matmul" if rank == 2 else "linalg.batch_matmul"
            # One line: the oracle widens bf16 accumulators line by line.
            em(f"{out.name} = {op} ins({xn}, {wn} : {xt}, {wt}) "
               f"outs({init} : {ot}) -> {ot}")
            what = op
        self.add_node(em, out, what)
        if acc in FLOATS and rng.random() < 0.5:
            out = self.bias_activation(out)
        return out

    def bias_activation(self, x):
        """A bias over the last dimension added to `x`, then an activation:
        the epilogue neuron-fuse keeps on chip."""
        t, rank = x.dtype, len(x.shape)
        bias = self.new_arg(x.shape[-1:], t)
        em = Emitter(len(self.nodes))
        pre = x.bound + 1.0
        act = self.rng.choice([a for a in ("relu", "tanh", "gelu_tanh",
                                           "sigmoid")
                               if pre <= UNARY_F[a].limit])
        fn = UNARY_F[act]
        body = [f"%x = arith.addf %in, %bias : {t}"] + \
            [line.format(t=t) for line in fn.body]
        bound = fn.bound(pre)
        err = fn.lipschitz(pre) * (x.noisy + ULP[t] * pre) + \
            len(body) * ULP[t] * max(pre, 1.0)
        out = self.new_value("v", x.shape, t, bound, err)
        em.generic(out.name, [(em.use(x), x.type, range(rank), t),
                              (em.use(bias), bias.type, (rank - 1,), t)],
                   x.shape, t, rank, range(rank), ["parallel"] * rank, body,
                   args=("%in", "%bias"))
        return self.add_node(em, out, f"bias add + {act}")

    def op_reduce(self, x):
        """A sum, max or min over one or two axes: linalg.reduce, a generic
        with reduction iterators, or TOSA (keeping the axis as 1)."""
        rng, t, rank = self.rng, x.dtype, len(x.shape)
        kind = rng.choice(("sum", "sum", "max", "min"))
        em = Emitter(len(self.nodes))
        if self.tosa() and not (t == "i8" and kind == "sum"):
            axis = rng.randrange(rank)
            n = x.shape[axis]
            acc_bound = x.bound * (n if kind == "sum" else 1)
            if not self.fits(t, acc_bound) or (t == "bf16" and kind == "sum"
                                               and n > 8):
                return None
            shape = x.shape[:axis] + (1,) + x.shape[axis + 1:]
            out = self.new_value("v", shape, t, acc_bound,
                                 self.reduce_err(x, n, kind, t))
            em(f"{out.name} = tosa.reduce_{kind} {em.use(x)} {{axis = {axis} :"
               f" i32}} : ({x.type}) -> {out.type}")
            return self.add_node(em, out, f"tosa.reduce_{kind}")
        axes = sorted(rng.sample(range(rank), 2 if rank > 2 and
                                 rng.random() < 0.3 else 1))
        if rank == len(axes) and rng.random() < 0.7:
            return None  # a rank-0 result now and then
        n = elements([x.shape[a] for a in axes])
        # bf16 sums of more than a few elements accumulate in f32 (as
        # frontends write them): the oracle would add in bf16 as written.
        acc = "f32" if t == "bf16" and kind == "sum" and n > 8 else t
        bound = x.bound * (n if kind == "sum" else 1)
        if not self.fits(acc, bound):
            return None
        kept = [d for d in range(rank) if d not in axes]
        shape = tuple(x.shape[d] for d in kept)
        out = self.new_value("v", shape, acc, bound,
                             self.reduce_err(x, n, kind, acc))
        op = BINARY["add" if kind == "sum" else kind]
        combine = op.float if acc in FLOATS else op.int
        literal = identity(kind, acc)
        if kind == "sum" and rng.random() < 0.15:
            literal = "0.5" if acc in FLOATS else "3"  # a non-zero init
            out.bound += 3
        init = em.filled(shape, acc, literal)
        xn = em.use(x)
        widen = [f"%w = arith.extf %x : {t} to {acc}"] if acc != t else []
        arg = "%w" if widen else "%x"
        if rng.random() < 0.5:
            em(f"{out.name} = linalg.reduce ins({xn} : {x.type}) outs({init} :"
               f" {out.type}) dimensions = [{csv(axes)}]")
            em(f"  (%x: {t}, %o: {acc}) {{")
            for line in widen + [f"%y = {combine} {arg}, %o : {acc}",
                                 f"linalg.yield %y : {acc}"]:
                em("    " + line)
            em("  }")
            what = f"linalg.reduce {kind} {axes}"
        else:
            iters = ["reduction" if d in axes else "parallel"
                     for d in range(rank)]
            em.generic(out.name, [(xn, x.type, range(rank), t)], shape, acc,
                       rank, kept, iters,
                       widen + [f"%y = {combine} {arg}, %o : {acc}"], init)
            what = f"generic reduce {kind} {axes}"
        return self.add_node(em, out, what)

    @staticmethod
    def reduce_err(x, n, kind, acc):
        """Error of a reduction of n elements of x accumulated in `acc`."""
        if kind != "sum":
            return x.noisy
        # Summation order: about sqrt(n) roundings of the running sum (n of
        # them when the sum runs in bf16 element by element).
        order = math.sqrt(n) if acc == "f32" else n
        return n * x.noisy + order * ULP[acc] * n * x.bound

    def op_transpose(self, x):
        """A non-identity permutation: linalg.transpose, a generic or TOSA."""
        rank = len(x.shape)
        if rank < 2:
            return None
        perm = list(range(rank))
        while perm == sorted(perm):
            self.rng.shuffle(perm)
        em = Emitter(len(self.nodes))
        shape = tuple(x.shape[p] for p in perm)
        out = self.new_value("v", shape, x.dtype, x.bound, x.err)
        xn, xt, ot = em.use(x), x.type, out.type
        form = "tosa" if self.tosa() else self.rng.choice(("named", "generic"))
        if form == "tosa":
            em(f"{out.name} = tosa.transpose {xn} {{perms = array<i32: "
               f"{csv(perm)}>}} : ({xt}) -> {ot}")
        elif form == "named":
            init = em.empty(shape, x.dtype)
            em(f"{out.name} = linalg.transpose ins({xn} : {xt}) outs({init} : "
               f"{ot}) permutation = [{csv(perm)}]")
        else:
            # out[i...] = x[j...] with out dimension k reading x's perm[k].
            inverse = [perm.index(d) for d in range(rank)]
            em.generic(out.name, [(xn, xt, inverse, x.dtype)], shape,
                       x.dtype, rank, range(rank), ["parallel"] * rank, [],
                       yields="%x")
        return self.add_node(em, out, f"transpose {perm} ({form})")

    def op_broadcast(self, x):
        """A new dimension at a random position: linalg.broadcast or a
        generic."""
        rank = len(x.shape)
        if rank >= 4:
            return None
        pos = self.rng.randint(0, rank)
        room = MAX_ELEMENTS // elements(x.shape)
        size = self.rng.choice([d for d in DIMS if d <= room] or [1])
        shape = x.shape[:pos] + (size,) + x.shape[pos:]
        em = Emitter(len(self.nodes))
        out = self.new_value("v", shape, x.dtype, x.bound, x.err)
        xn, xt, ot = em.use(x), x.type, out.type
        if self.rng.random() < 0.5:
            init = em.empty(shape, x.dtype)
            em(f"{out.name} = linalg.broadcast ins({xn} : {xt}) outs({init} : "
               f"{ot}) dimensions = [{pos}]")
        else:
            dims = [d for d in range(rank + 1) if d != pos]
            em.generic(out.name, [(xn, xt, dims, x.dtype)], shape, x.dtype,
                       rank + 1, range(rank + 1), ["parallel"] * (rank + 1),
                       [], yields="%x")
        return self.add_node(em, out, f"broadcast at {pos} x{size}")

    def op_slice(self, x):
        """A static slice with offsets and strides (sometimes dropping unit
        dimensions): tensor.extract_slice or tosa.slice."""
        rng, rank = self.rng, len(x.shape)
        tosa = self.tosa()
        offsets, sizes, strides = [], [], []
        for d in x.shape:
            stride = 1 if tosa or rng.random() < 0.6 else rng.choice((2, 3))
            size = rng.randint(1, (d - 1) // stride + 1)
            offsets.append(rng.randint(0, d - 1 - (size - 1) * stride))
            sizes.append(size)
            # A stride on a unit size changes nothing, and upstream's
            # memref.subview aborts (getDroppedDims) on a rank-reducing
            # slice with one there: the oracle could not run the graph.
            strides.append(1 if size == 1 else stride)
        if sizes == list(x.shape):
            return None
        shape = tuple(sizes)
        if not tosa and 1 in shape and rank > 1 and rng.random() < 0.3:
            shape = tuple(s for s in sizes if s != 1) or (1,)  # rank-reducing
        em = Emitter(len(self.nodes))
        out = self.new_value("v", shape, x.dtype, x.bound, x.err)
        xn, xt, ot = em.use(x), x.type, out.type
        if tosa:
            start, size = em.tosa_shape(offsets), em.tosa_shape(sizes)
            em(f"{out.name} = tosa.slice {xn}, {start}, {size} : ({xt}, "
               f"!tosa.shape<{rank}>, !tosa.shape<{rank}>) -> {ot}")
        else:
            em(f"{out.name} = tensor.extract_slice {xn}[{csv(offsets)}] "
               f"[{csv(sizes)}] [{csv(strides)}] : {xt} to {ot}")
        return self.add_node(em, out, f"slice {offsets} {sizes} {strides}")

    def op_concat(self, x):
        """`x` and another value side by side along one axis: tensor.concat
        or tosa.concat."""
        rank, rng = len(x.shape), self.rng
        axis = rng.randrange(rank)
        d = x.shape[axis]
        room = MAX_ELEMENTS // elements(x.shape) * d - d
        if room < 1:
            return None
        if rng.random() < 0.4:
            y = x
        else:
            size = rng.choice([d for d in DIMS if d <= room])
            y = self.partner(x.shape[:axis] + (size,) + x.shape[axis + 1:],
                             x.dtype)
        shape = list(x.shape)
        shape[axis] += y.shape[axis]
        em = Emitter(len(self.nodes))
        out = self.new_value("v", shape, x.dtype, max(x.bound, y.bound),
                             max(x.err, y.err))
        xn, yn = em.use(x), em.use(y)
        if self.tosa():
            em(f"{out.name} = tosa.concat {xn}, {yn} {{axis = {axis} : "
               f"i32}} : ({x.type}, {y.type}) -> {out.type}")
        else:
            em(f"{out.name} = tensor.concat dim({axis}) {xn}, {yn} : "
               f"({x.type}, {y.type}) -> {out.type}")
        return self.add_node(em, out, f"concat axis {axis}")

    def op_pad(self, x):
        """A constant pad, low and high: tensor.pad or tosa.pad."""
        rng, rank, t = self.rng, len(x.shape), x.dtype
        low = [rng.choice((0, 0, 1, 2, 3)) for _ in x.shape]
        high = [rng.choice((0, 0, 1, 2, 3)) for _ in x.shape]
        shape = tuple(d + lo + hi for d, lo, hi in zip(x.shape, low, high))
        if shape == x.shape or elements(shape) > MAX_ELEMENTS:
            return None
        literal = rng.choice(("0.0", "2.5", "-1.0") if t in FLOATS
                             else ("0", "3"))
        em = Emitter(len(self.nodes))
        out = self.new_value("v", shape, t, max(x.bound, 2.5), x.err)
        xn, xt, ot = em.use(x), x.type, out.type
        # TOSA's level check limits the pad shape (2 x rank) to rank 6.
        if rank <= 3 and self.tosa():
            pads = [p for pair in zip(low, high) for p in pair]
            value = em.tosa_const(literal, t)
            em(f"{out.name} = tosa.pad {xn}, {em.tosa_shape(pads)}, {value} : "
               f"({xt}, !tosa.shape<{2 * rank}>, {tensor_type((1,), t)}) -> "
               f"{ot}")
        else:
            value = em.scalar(literal, t)
            indices = ", ".join(f"%i{d}: index" for d in range(rank))
            em(f"{out.name} = tensor.pad {xn} low[{csv(low)}] "
               f"high[{csv(high)}] {{")
            em(f"^bb0({indices}):")
            em(f"  tensor.yield {value} : {t}")
            em(f"}} : {xt} to {ot}")
        return self.add_node(em, out, f"pad {low} {high}")

    def op_reshape(self, x):
        """Merges two adjacent dimensions or splits one in two:
        tensor.collapse_shape/expand_shape or tosa.reshape."""
        rng, rank = self.rng, len(x.shape)
        if rank > 1 and (rank == 4 or rng.random() < 0.5):
            i = rng.randrange(rank - 1)
            groups = [[d] for d in range(i)] + [[i, i + 1]] + \
                [[d] for d in range(i + 2, rank)]
            shape = x.shape[:i] + (elements(x.shape[i:i + 2]),) + \
                x.shape[i + 2:]
            op = "collapse"
        else:
            i = rng.randrange(rank)
            d = x.shape[i]
            a = rng.choice([f for f in range(1, d + 1) if d % f == 0])
            shape = x.shape[:i] + (a, d // a) + x.shape[i + 1:]
            groups = [[j] for j in range(i)] + [[i, i + 1]] + \
                [[j + 1] for j in range(i + 1, rank)]
            op = "expand"
        em = Emitter(len(self.nodes))
        out = self.new_value("v", shape, x.dtype, x.bound, x.err)
        xn, xt, ot = em.use(x), x.type, out.type
        assoc = "[" + ", ".join(f"[{csv(g)}]" for g in groups) + "]"
        if self.tosa():
            em(f"{out.name} = tosa.reshape {xn}, {em.tosa_shape(shape)} : "
               f"({xt}, !tosa.shape<{len(shape)}>) -> {ot}")
        elif op == "collapse":
            em(f"{out.name} = tensor.collapse_shape {xn} {assoc} : {xt} into "
               f"{ot}")
        else:
            em(f"{out.name} = tensor.expand_shape {xn} {assoc} output_shape "
               f"[{csv(shape)}] : {xt} into {ot}")
        return self.add_node(em, out, f"reshape {op}")

    def op_cast(self, x):
        """A change of element type: extf/truncf, sitofp, fptosi (of exactly
        known values, scaled by 8 first) or tosa.cast's rounding to nearest,
        extsi/trunci; a generic, an op on whole tensors or tosa.cast."""
        rng, t = self.rng, x.dtype
        targets = {"f32": ["bf16", "i32"], "bf16": ["f32", "i32"],
                   "i32": ["f32", "bf16", "i8"],
                   "i8": ["i32", "f32", "bf16"]}[t]
        to = rng.choice(targets)
        if to in ("i32", "i8") and t in FLOATS and x.err > 0:
            return None  # rounding to an integer would amplify any error
        if to == "i8" and x.bound > 127:
            return None
        if to in FLOATS and t in FLOATS:
            op = "arith.extf" if to == "f32" else "arith.truncf"
        elif to in FLOATS:
            op = "arith.sitofp"
        elif t in FLOATS:
            op = "arith.fptosi"
        else:
            op = "arith.extsi" if to == "i32" else "arith.trunci"
        tosa = self.tosa()
        bound = x.bound + 1 if tosa else \
            x.bound * (8 if op == "arith.fptosi" else 1)
        em = Emitter(len(self.nodes))
        out = self.new_value("v", x.shape, to, bound, x.noisy)
        xn, xt, ot, rank = em.use(x), x.type, out.type, len(x.shape)
        if tosa:
            em(f"{out.name} = tosa.cast {xn} : ({xt}) -> {ot}")
        elif op != "arith.fptosi" and rng.random() < 0.4:
            em(f"{out.name} = {op} {xn} : {xt} to {ot}")
        else:
            body = [f"%y = {op} %x : {t} to {to}"]
            if op == "arith.fptosi":
                body = [f"%e = arith.constant 8.0 : {t}",
                        f"%s = arith.mulf %x, %e : {t}",
                        f"%y = arith.fptosi %s : {t} to {to}"]
            em.generic(out.name, [(xn, xt, range(rank), t)], x.shape, to,
                       rank, range(rank), ["parallel"] * rank, body)
        return self.add_node(em, out, f"cast {t} -> {to}"
                             + (" (tosa)" if tosa else ""))

    OPS = (("op_unary", 5), ("op_binary", 5), ("op_matmul", 4),
           ("op_reduce", 3), ("op_transpose", 2), ("op_broadcast", 1),
           ("op_slice", 2), ("op_concat", 2), ("op_pad", 1),
           ("op_reshape", 2), ("op_cast", 2))

    def build(self):
        """Draws the arguments and the nodes."""
        for _ in range(self.rng.choice((1, 1, 2))):
            self.new_arg(self.random_shape(), self.dtype)
        target = self.rng.randint(1, MAX_STEPS)
        names, weights = zip(*self.OPS)
        attempts = 0
        while len(self.nodes) < target and attempts < 100:
            attempts += 1
            pool = [v for v in self.pool() if v.shape]
            # Mostly chains: the newest values are read most often.
            x = pool[-1] if self.rng.random() < 0.6 else self.rng.choice(pool)
            op = self.rng.choices(names, weights)[0]
            getattr(self, op)(x)

    # -- output -----------------------------------------------------------

    def kept(self, keep):
        """The nodes in `keep` (indices; all when None), in order."""
        return [n for i, n in enumerate(self.nodes)
                if keep is None or i in keep]

    def signature(self, keep=None):
        """(arguments, results) of the function holding the nodes `keep`."""
        nodes = self.kept(keep)
        defined = {id(n.result) for n in nodes}
        read = [v for n in nodes for v in n.reads]
        read_ids = {id(v) for v in read}
        args, seen = [], set()
        for v in read:
            if id(v) not in defined and id(v) not in seen:
                seen.add(id(v))
                args.append(v)
        args.sort(key=lambda v: int(v.name[2:]))
        results = [n.result for n in nodes if id(n.result) not in read_ids]
        return args, results

    def render(self, keep=None):
        """The MLIR text of the graph with the nodes `keep` (all if None)."""
        args, results = self.signature(keep)
        nodes = self.kept(keep)
        lines = [f"// gen_graph.py seed {self.seed}: {self.style}, "
                 f"{self.dtype}; {len(nodes)} of {len(self.nodes)} nodes"]
        lines += [f"//   {n.result.name} = {n.what}" for n in nodes]
        arg_text = ", ".join(f"{v.name}: {v.type}" for v in args)
        res_text = ", ".join(v.type for v in results)
        lines.append(f"func.func @graph({arg_text}) -> ({res_text}) {{")
        for n in nodes:
            lines += n.lines
        lines.append(f"  return {', '.join(v.name for v in results)} : "
                     f"{res_text}")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def tolerances(self, keep=None):
        """(rtol, atol) per result of `render(keep)`: integers exact; floats
        the dtype's floor (test/e2e's), atol raised to SAFETY times the
        result's error estimate where that is larger."""
        out = []
        for v in self.signature(keep)[1]:
            if v.dtype in FLOATS:
                floor = FLOOR[v.dtype]
                out.append((floor, max(floor, SAFETY * v.err)))
            else:
                out.append((0.0, 0.0))
        return out


def generate(seed):
    """The graph of `seed`."""
    graph = Graph(seed)
    graph.build()
    return graph


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("seed", type=int)
    parser.add_argument("--max-ops", type=int,
                        help="keep only the first N nodes")
    args = parser.parse_args()
    graph = generate(args.seed)
    keep = None if args.max_ops is None else set(range(args.max_ops))
    print(graph.render(keep), end="")


if __name__ == "__main__":
    main()
