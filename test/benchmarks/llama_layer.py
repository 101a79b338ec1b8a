#!/usr/bin/env python3
"""Writes a LLaMA-2 decoder layer at any size, in the linalg-on-tensors form
torch-mlir exports, for the functional-simulation benchmark
(run_functional.py) and anyone who wants one:

  llama_layer.py [--seq 128] [--hidden 4096] [--heads 32] [--kv-heads N]
                 [--ffn 11008] [--dtype bf16] [--inputs DIR] [--seed N]
                 -o OUT.mlir
  llama_layer.py --decode CACHE [--kv-heads N] [--hidden ...] -o OUT.mlir

The default is LLaMA-2-7B's layer at 128 tokens:

  func.func @decoder_layer(%x: [S, H], %cos: [S, D], %sin: [S, D],
      %g1: [H], %wq: [H, H], %wk, %wv: [H, KV * D], %wo: [H, H], %g2: [H],
      %wg, %wu: [H, F], %wd: [F, H]) -> [S, H]

RMSNorm (sum of squares and scaling in f32, as the Hugging Face model
upcasts), Q/K/V projections, rotary embeddings (rotate-half with the cos and
sin tables), scores scaled by 1/sqrt(D) with a causal mask made from the
iteration indices, softmax in f32, the value product, the output
projection and residual add, RMSNorm, the SwiGLU MLP (SiLU in f32) and the
second residual add. Matmuls take and give the layer's dtype (bf16 or f16);
every tensor a device stores is in it.

--decode CACHE writes one decode step instead: one token at a position
read at run time (%pos, i64), the RoPE tables' row read at it
(tensor.extract_slice), the rotated key and the value written into KV
caches of CACHE positions at it (tensor.insert_slice; [1, kv_heads, CACHE,
D], as the corpus LLaMA lays them out), and the query attending to the
whole cache with positions past the step masked. In both, --kv-heads
(default --heads) below --heads shares each key and value head among
heads / kv_heads query heads (grouped-query attention, as Llama-3 does):

  func.func @decode_step(%x: [1, H], %pos: i64, %k_cache, %v_cache:
      [1, KV, CACHE, D], %cos, %sin: [CACHE, D], %g1, %wq: [H, H],
      %wk, %wv: [H, KV * D], %wo, %g2, %wg, %wu, %wd)
      -> ([1, H], %k_cache, %v_cache updated)

--dynamic writes the prefill layer with a variable sequence length (`?`
in every sequence dimension, sizes read with tensor.dim, as exporters
write it), for neuron-compile --buckets; --seq then only sizes --inputs.

--inputs DIR writes DIR/input0.npy ... input11.npy (bf16 only) with a
model's magnitudes rather than neuron-run's uniform [-1, 1), under which a
layer of this width saturates its softmax: weights in +-[2^-7, 2^-5)
(2^-9..2^-7 for the down projection), activations, norm weights and
rotary tables in +-[0.5, 2). Python 3 standard library only.
"""

import argparse
import math
import pathlib
import random
import re
import struct
import sys


def layer(seq, hidden, heads, ffn, dt, cache=None, kv_heads=None):
    """The prefill layer, or with `cache` the decode step (see --decode)."""
    d = hidden // heads
    kv_heads = kv_heads or heads
    decode = cache is not None
    group = heads // kv_heads
    half = d // 2
    t = lambda *dims, ty=dt: f"tensor<{'x'.join(map(str, dims))}x{ty}>"
    # Casts between the layer's dtype and f32 inside generic bodies.
    wide = lambda v, out: f"{out} = arith.extf {v} : {dt} to f32"
    narrow = lambda v, out: f"{out} = arith.truncf {v} : f32 to {dt}"
    lines = []
    emit = lines.append

    def rmsnorm(name, x, g):
        emit(f"""  %{name}_se = tensor.empty() : {t(seq, ty='f32')}
  %{name}_sz = linalg.fill ins(%fzero : f32) outs(%{name}_se : {t(seq, ty='f32')}) -> {t(seq, ty='f32')}
  %{name}_ss = linalg.generic {{indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]}}
      ins({x} : {t(seq, hidden)}) outs(%{name}_sz : {t(seq, ty='f32')}) {{
  ^bb0(%a: {dt}, %acc: f32):
    {wide('%a', '%aw')}
    %sq = arith.mulf %aw, %aw : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  }} -> {t(seq, ty='f32')}
  %{name} = linalg.generic {{indexing_maps = [#id2, #row2, #col2, #id2], iterator_types = ["parallel", "parallel"]}}
      ins({x}, %{name}_ss, {g} : {t(seq, hidden)}, {t(seq, ty='f32')}, {t(hidden)}) outs(%e_sh : {t(seq, hidden)}) {{
  ^bb0(%a: {dt}, %s: f32, %g: {dt}, %init: {dt}):
    %n = arith.constant {float(hidden)} : f32
    %eps = arith.constant 1.0e-5 : f32
    {wide('%a', '%aw')}
    {wide('%g', '%gw')}
    %mean = arith.divf %s, %n : f32
    %v = arith.addf %mean, %eps : f32
    %r = math.rsqrt %v : f32
    %y = arith.mulf %aw, %r : f32
    %yg = arith.mulf %y, %gw : f32
    {narrow('%yg', '%out')}
    linalg.yield %out : {dt}
  }} -> {t(seq, hidden)}""")

    def matmul(name, a, b, m, k, n):
        emit(f"""  %{name}_e = tensor.empty() : {t(m, n)}
  %{name}_z = linalg.fill ins(%zero : {dt}) outs(%{name}_e : {t(m, n)}) -> {t(m, n)}
  %{name} = linalg.matmul ins({a}, {b} : {t(m, k)}, {t(k, n)}) outs(%{name}_z : {t(m, n)}) -> {t(m, n)}""")

    def add(name, a, b):
        emit(f"""  %{name} = linalg.generic {{indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}}
      ins({a}, {b} : {t(seq, hidden)}, {t(seq, hidden)}) outs(%e_sh : {t(seq, hidden)}) {{
  ^bb0(%a: {dt}, %b: {dt}, %init: {dt}):
    %s = arith.addf %a, %b : {dt}
    linalg.yield %s : {dt}
  }} -> {t(seq, hidden)}""")

    def rope(name, x, heads=heads):
        # [S, heads, D] -> x * cos + rotate_half(x) * sin, per head.
        x3 = t(seq, heads, d)
        emit(f"""  %{name}_3 = tensor.expand_shape {x} [[0], [1, 2]] output_shape [{seq}, {heads}, {d}] : {t(seq, heads * d)} into {x3}
  %{name}_lo = tensor.extract_slice %{name}_3[0, 0, 0] [{seq}, {heads}, {half}] [1, 1, 1] : {x3} to {t(seq, heads, half)}
  %{name}_hi = tensor.extract_slice %{name}_3[0, 0, {half}] [{seq}, {heads}, {half}] [1, 1, 1] : {x3} to {t(seq, heads, half)}
  %{name}_ne = tensor.empty() : {t(seq, heads, half)}
  %{name}_neg = linalg.generic {{indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%{name}_hi : {t(seq, heads, half)}) outs(%{name}_ne : {t(seq, heads, half)}) {{
  ^bb0(%a: {dt}, %init: {dt}):
    %n = arith.negf %a : {dt}
    linalg.yield %n : {dt}
  }} -> {t(seq, heads, half)}
  %{name}_rot = tensor.concat dim(2) %{name}_neg, %{name}_lo : ({t(seq, heads, half)}, {t(seq, heads, half)}) -> {x3}
  %{name}_e = tensor.empty() : {x3}
  %{name} = linalg.generic {{indexing_maps = [#id3, #id3, #sd3, #sd3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%{name}_3, %{name}_rot, %cos, %sin : {x3}, {x3}, {t(seq, d)}, {t(seq, d)}) outs(%{name}_e : {x3}) {{
  ^bb0(%a: {dt}, %r: {dt}, %c: {dt}, %s: {dt}, %init: {dt}):
    {wide('%a', '%aw')}
    {wide('%r', '%rw')}
    {wide('%c', '%cw')}
    {wide('%s', '%sw')}
    %ac = arith.mulf %aw, %cw : f32
    %rs = arith.mulf %rw, %sw : f32
    %y = arith.addf %ac, %rs : f32
    {narrow('%y', '%out')}
    linalg.yield %out : {dt}
  }} -> {x3}""")

    keys = cache if decode else seq  # the positions a query attends to
    kv = kv_heads * d
    hh, hs, hd = t(heads, seq, d), t(heads, seq, keys), t(heads, d, keys)
    hk = t(heads, keys, d)
    hs32, h32 = t(heads, seq, keys, ty="f32"), t(heads, seq, ty="f32")
    ct = t(1, kv_heads, cache or 1, d)

    def row_reduce(name, src, init, op):
        # Each score row of `src` folded with `op` from `init`.
        return f"""  %{name}_init = linalg.fill ins({init} : f32) outs(%e_h32 : {h32}) -> {h32}
  %{name} = linalg.generic {{indexing_maps = [#id3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}}
      ins({src} : {hs32}) outs(%{name}_init : {h32}) {{
  ^bb0(%a: f32, %acc: f32):
    %r = {op} %a, %acc : f32
    linalg.yield %r : f32
  }} -> {h32}"""

    def repeat(name, src, rows, cols):
        # `src` [kv_heads, rows, cols] as [heads, rows, cols]: each KV head
        # repeated for its group of query heads.
        if group == 1:
            emit(f"  %{name} = tensor.collapse_shape {src} [[0], [1], [2]] : {t(kv_heads, rows, cols)} into {t(heads, rows, cols)}")
            return
        emit(f"""  %{name}_re = tensor.empty() : {t(kv_heads, group, rows, cols)}
  %{name}_rep = linalg.generic {{indexing_maps = [#kv4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
      ins({src} : {t(kv_heads, rows, cols)}) outs(%{name}_re : {t(kv_heads, group, rows, cols)}) {{
  ^bb0(%a: {dt}, %init: {dt}):
    linalg.yield %a : {dt}
  }} -> {t(kv_heads, group, rows, cols)}
  %{name} = tensor.collapse_shape %{name}_rep [[0, 1], [2], [3]] : {t(kv_heads, group, rows, cols)} into {t(heads, rows, cols)}""")

    def cached(name, cache_arg, rows):
        # `rows` [1, kv_heads, D] written into the cache at the position,
        # then the cache as [heads, CACHE, D], each cached head repeated for
        # its group of query heads.
        emit(f"""  %{name}_new = tensor.insert_slice {rows} into {cache_arg}[0, 0, %i, 0] [1, {kv_heads}, 1, {d}] [1, 1, 1, 1] : {t(1, kv_heads, d)} into {ct}
  %{name}_c = tensor.collapse_shape %{name}_new [[0, 1], [2], [3]] : {ct} into {t(kv_heads, cache, d)}""")
        if group == 1:
            emit(f"  %{name}_all = tensor.collapse_shape %{name}_c [[0], [1], [2]] : {t(kv_heads, cache, d)} into {hk}")
            return
        emit(f"""  %{name}_re = tensor.empty() : {t(kv_heads, group, cache, d)}
  %{name}_rep = linalg.generic {{indexing_maps = [#kv4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
      ins(%{name}_c : {t(kv_heads, cache, d)}) outs(%{name}_re : {t(kv_heads, group, cache, d)}) {{
  ^bb0(%a: {dt}, %init: {dt}):
    linalg.yield %a : {dt}
  }} -> {t(kv_heads, group, cache, d)}
  %{name}_all = tensor.collapse_shape %{name}_rep [[0, 1], [2], [3]] : {t(kv_heads, group, cache, d)} into {hk}""")

    header = f"""#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
#col2 = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#sd3 = affine_map<(d0, d1, d2) -> (d0, d2)>
#red3 = affine_map<(d0, d1, d2) -> (d0, d1)>"""
    if group > 1:
        header += """
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#kv4 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>"""
    if decode:
        emit(f"""{header}
// A LLaMA decoder layer's decode step: one token at a position read at run
// time, hidden {hidden} in {heads} heads of {d} ({kv_heads} KV heads),
// SwiGLU hidden {ffn}, KV caches of {cache} positions, {dt} (written by
// test/benchmarks/llama_layer.py --decode).
func.func @decode_step(%x: {t(seq, hidden)}, %pos: tensor<i64>,
    %k_cache: {ct}, %v_cache: {ct}, %cos_t: {t(cache, d)}, %sin_t: {t(cache, d)},
    %g1: {t(hidden)}, %wq: {t(hidden, hidden)}, %wk: {t(hidden, kv)},
    %wv: {t(hidden, kv)}, %wo: {t(hidden, hidden)}, %g2: {t(hidden)},
    %wg: {t(hidden, ffn)}, %wu: {t(hidden, ffn)}, %wd: {t(ffn, hidden)})
    -> ({t(seq, hidden)}, {ct}, {ct}) {{
  %zero = arith.constant 0.0 : {dt}
  %fzero = arith.constant 0.0 : f32
  %e_sh = tensor.empty() : {t(seq, hidden)}
  %at = tensor.extract %pos[] : tensor<i64>
  %i = arith.index_cast %at : i64 to index
  %cos = tensor.extract_slice %cos_t[%i, 0] [1, {d}] [1, 1] : {t(cache, d)} to {t(1, d)}
  %sin = tensor.extract_slice %sin_t[%i, 0] [1, {d}] [1, 1] : {t(cache, d)} to {t(1, d)}""")
    else:
        emit(f"""{header}
// A LLaMA-2 decoder layer: {seq} tokens, hidden {hidden} in {heads} heads of
// {d} ({kv_heads} KV heads), SwiGLU hidden {ffn}, {dt} (written by
// test/benchmarks/llama_layer.py).
func.func @decoder_layer(%x: {t(seq, hidden)}, %cos: {t(seq, d)}, %sin: {t(seq, d)},
    %g1: {t(hidden)}, %wq: {t(hidden, hidden)}, %wk: {t(hidden, kv)},
    %wv: {t(hidden, kv)}, %wo: {t(hidden, hidden)}, %g2: {t(hidden)},
    %wg: {t(hidden, ffn)}, %wu: {t(hidden, ffn)}, %wd: {t(ffn, hidden)})
    -> {t(seq, hidden)} {{
  %zero = arith.constant 0.0 : {dt}
  %fzero = arith.constant 0.0 : f32
  %e_sh = tensor.empty() : {t(seq, hidden)}""")
    rmsnorm("xn", "%x", "%g1")
    matmul("proj_q", "%xn", "%wq", seq, hidden, hidden)
    matmul("proj_k", "%xn", "%wk", seq, hidden, kv)
    matmul("proj_v", "%xn", "%wv", seq, hidden, kv)
    rope("qr", "%proj_q")
    rope("kr", "%proj_k", kv_heads)
    emit(f"""  %v3 = tensor.expand_shape %proj_v [[0], [1, 2]] output_shape [{seq}, {kv_heads}, {d}] : {t(seq, kv)} into {t(seq, kv_heads, d)}
  %e_hh = tensor.empty() : {hh}
  %qh = linalg.transpose ins(%qr : {t(seq, heads, d)}) outs(%e_hh : {hh}) permutation = [1, 0, 2]""")
    if decode:
        cached("k", "%k_cache", "%kr")
        cached("v", "%v_cache", "%v3")
        emit(f"""  %vh = tensor.collapse_shape %v_all [[0], [1], [2]] : {hk} into {hk}
  %e_hd = tensor.empty() : {hd}
  %kt = linalg.transpose ins(%k_all : {hk}) outs(%e_hd : {hd}) permutation = [0, 2, 1]""")
        future = """%j = linalg.index 2 : index
    %jj = arith.index_cast %j : index to i64
    %future = arith.cmpi sgt, %jj, %at : i64"""
    else:
        # The KV heads as [kv_heads, ...], each repeated for its group of
        # query heads.
        ekv, ekt = t(kv_heads, seq, d), t(kv_heads, d, seq)
        emit(f"""  %e_kv = tensor.empty() : {ekv}
  %v_kv = linalg.transpose ins(%v3 : {t(seq, kv_heads, d)}) outs(%e_kv : {ekv}) permutation = [1, 0, 2]
  %e_kt = tensor.empty() : {ekt}
  %k_kv = linalg.transpose ins(%kr : {t(seq, kv_heads, d)}) outs(%e_kt : {ekt}) permutation = [1, 2, 0]""")
        repeat("vh", "%v_kv", seq, d)
        repeat("kt", "%k_kv", d, seq)
        future = """%i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %future = arith.cmpi ugt, %j, %i : index"""
    emit(f"""  %e_hs = tensor.empty() : {hs}
  %z_hs = linalg.fill ins(%zero : {dt}) outs(%e_hs : {hs}) -> {hs}
  %scores = linalg.batch_matmul ins(%qh, %kt : {hh}, {hd}) outs(%z_hs : {hs}) -> {hs}
  %e_hs32 = tensor.empty() : {hs32}
  %masked = linalg.generic {{indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%scores : {hs}) outs(%e_hs32 : {hs32}) {{
  ^bb0(%a: {dt}, %init: f32):
    %scale = arith.constant {1 / math.sqrt(d)!r} : f32
    %ninf = arith.constant 0xFF800000 : f32
    {wide('%a', '%aw')}
    %y = arith.mulf %aw, %scale : f32
    {future}
    %m = arith.select %future, %ninf, %y : f32
    linalg.yield %m : f32
  }} -> {hs32}
  %e_h32 = tensor.empty() : {h32}
  %lowest = arith.constant 0xFF800000 : f32
{row_reduce("mx", "%masked", "%lowest", "arith.maximumf")}
  %exps = linalg.generic {{indexing_maps = [#id3, #red3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%masked, %mx : {hs32}, {h32}) outs(%e_hs32 : {hs32}) {{
  ^bb0(%a: f32, %b: f32, %init: f32):
    %s = arith.subf %a, %b : f32
    %x2 = math.exp %s : f32
    linalg.yield %x2 : f32
  }} -> {hs32}
{row_reduce("sm", "%exps", "%fzero", "arith.addf")}
  %probs = linalg.generic {{indexing_maps = [#id3, #red3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%exps, %sm : {hs32}, {h32}) outs(%e_hs : {hs}) {{
  ^bb0(%a: f32, %b: f32, %init: {dt}):
    %p = arith.divf %a, %b : f32
    {narrow('%p', '%out')}
    linalg.yield %out : {dt}
  }} -> {hs}
  %z_hh = linalg.fill ins(%zero : {dt}) outs(%e_hh : {hh}) -> {hh}
  %attn = linalg.batch_matmul ins(%probs, %vh : {hs}, {hk}) outs(%z_hh : {hh}) -> {hh}
  %e_shd = tensor.empty() : {t(seq, heads, d)}
  %attn_t = linalg.transpose ins(%attn : {hh}) outs(%e_shd : {t(seq, heads, d)}) permutation = [1, 0, 2]
  %attn_c = tensor.collapse_shape %attn_t [[0], [1, 2]] : {t(seq, heads, d)} into {t(seq, hidden)}""")
    matmul("proj_o", "%attn_c", "%wo", seq, hidden, hidden)
    add("h1", "%x", "%proj_o")
    rmsnorm("hn", "%h1", "%g2")
    matmul("gate", "%hn", "%wg", seq, hidden, ffn)
    matmul("up", "%hn", "%wu", seq, hidden, ffn)
    emit(f"""  %act = linalg.generic {{indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}}
      ins(%gate, %up : {t(seq, ffn)}, {t(seq, ffn)}) outs(%gate_e : {t(seq, ffn)}) {{
  ^bb0(%a: {dt}, %b: {dt}, %init: {dt}):
    %one = arith.constant 1.0 : f32
    {wide('%a', '%aw')}
    {wide('%b', '%bw')}
    %n = arith.negf %aw : f32
    %ex = math.exp %n : f32
    %den = arith.addf %one, %ex : f32
    %silu = arith.divf %aw, %den : f32
    %y = arith.mulf %silu, %bw : f32
    {narrow('%y', '%out')}
    linalg.yield %out : {dt}
  }} -> {t(seq, ffn)}""")
    matmul("down", "%act", "%wd", seq, ffn, hidden)
    add("out", "%h1", "%down")
    if decode:
        emit(f"""  return %out, %k_new, %v_new : {t(seq, hidden)}, {ct}, {ct}
}}""")
    else:
        emit(f"""  return %out : {t(seq, hidden)}
}}""")
    return "\n".join(lines) + "\n"


# The sequence length --dynamic writes as `?`: generated as this number,
# which no other size of a layer takes, then rewritten.
_VARIABLE = 999983


def variable_length(text):
    """`text` (a layer of sequence length _VARIABLE) with that length
    dynamic: `?` in types, tensor.empty and expand_shape sizes read from
    the input with tensor.dim."""
    n = str(_VARIABLE)
    text = re.sub(r"(?<=[<x])" + n + r"(?=x)", "?", text)

    def empty(m):
        sizes = ", ".join(["%seq"] * m["type"].count("?"))
        return f"tensor.empty({sizes}) : {m['type']}"
    text = re.sub(r"tensor\.empty\(\) : (?P<type>tensor<[^>]*>)", empty, text)
    text = re.sub(r"(output_shape |\] )\[" + n + ",", r"\1[%seq,", text)
    text = text.replace(f"{n} tokens", "a variable number of tokens")
    assert n not in text, "the sequence length left somewhere"
    # The length, read once from the input at the top of the body.
    return re.sub(r"(-> tensor<\?x[^>]*> \{\n)",
                  lambda m: m[1] + "  %seq_dim = arith.constant 0 : index\n"
                  "  %seq = tensor.dim %x, %seq_dim : "
                  + re.search(r"%x: (tensor<[^>]*>)", text)[1] + "\n",
                  text, count=1)


def write_npy(path, dtype, shape, exponent, signed, rng):
    """A random .npy of `shape` whose floats have biased exponents
    `exponent` (even) and `exponent + 1`, so magnitudes in [2^(e-127),
    2^(e-125)), with random mantissas and, if `signed`, random signs. Bytes
    are drawn and mapped whole: a 45-million-element weight takes a
    second."""
    assert exponent % 2 == 0, "the exponent's low bit is drawn at random"
    count = 1
    for d in shape:
        count *= d
    high = exponent >> 1
    if dtype == "bf16":
        # bf16 bytes: [exponent low bit | 7 mantissa bits], [sign | 7
        # exponent high bits].
        table = bytes(((b & 0x80) if signed else 0) | high
                      for b in range(256))
        data = bytearray(2 * count)
        data[0::2] = rng.randbytes(count)
        data[1::2] = rng.randbytes(count).translate(table)
        descr = "bfloat16"
    else:
        # f32: the top byte as above, the rest random.
        table = bytes(((b & 0x80) if signed else 0) | high
                      for b in range(256))
        data = bytearray(rng.randbytes(4 * count))
        data[3::4] = bytes(data[3::4]).translate(table)
        descr = "<f4"
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({dims}), }}"
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header))
                     + header.encode() + bytes(data))

def write_inputs(directory, seq, hidden, heads, ffn, seed=0, kv_heads=None):
    """The layer's bf16 inputs as DIR/inputI.npy (see --inputs); returns
    their paths in argument order."""
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    d = hidden // heads
    kv = (kv_heads or heads) * d
    weight, down, unit = 120, 118, 126
    specs = [((seq, hidden), unit, True), ((seq, d), unit, True),
             ((seq, d), unit, True), ((hidden,), unit, False)]
    specs += [((hidden, hidden), weight, True), ((hidden, kv), weight, True),
              ((hidden, kv), weight, True), ((hidden, hidden), weight, True)]
    specs += [((hidden,), unit, False)]
    specs += [((hidden, ffn), weight, True)] * 2 + [((ffn, hidden), down, True)]
    rng = random.Random(seed)
    paths = []
    for i, (shape, exponent, signed) in enumerate(specs):
        path = directory / f"input{i}.npy"
        write_npy(path, "bf16", shape, exponent, signed, rng)
        paths.append(path)
    return paths


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--hidden", type=int, default=4096)
    parser.add_argument("--heads", type=int, default=32)
    parser.add_argument("--ffn", type=int, default=11008)
    parser.add_argument("--dtype", choices=["bf16", "f16"], default="bf16")
    parser.add_argument("--decode", type=int, metavar="CACHE",
                        help="write a decode step with KV caches of CACHE "
                        "positions")
    parser.add_argument("--kv-heads", type=int,
                        help="KV heads (default --heads): fewer share each "
                        "cached head among heads / kv_heads query heads")
    parser.add_argument("--dynamic", action="store_true",
                        help="a variable sequence length (for --buckets)")
    parser.add_argument("--inputs", help="write model-scaled bf16 inputs here")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    if min(args.seq, args.hidden, args.heads, args.ffn) <= 0 or \
            args.hidden % args.heads or (args.hidden // args.heads) % 2:
        sys.exit("llama_layer.py: sizes must be positive and hidden a "
                 "multiple of heads with an even head dimension")
    kv_heads = args.kv_heads or args.heads
    if kv_heads <= 0 or args.heads % kv_heads:
        sys.exit("llama_layer.py: --kv-heads must divide the heads")
    if args.decode is not None and args.decode <= 0:
        sys.exit("llama_layer.py: --decode needs a positive cache")
    if args.decode is not None and args.inputs:
        sys.exit("llama_layer.py: --inputs writes the prefill layer's only")
    if args.decode is not None and args.dynamic:
        sys.exit("llama_layer.py: --dynamic writes the prefill layer only")
    seq = 1 if args.decode else _VARIABLE if args.dynamic else args.seq
    text = layer(seq, args.hidden, args.heads, args.ffn, args.dtype,
                 args.decode, kv_heads)
    if args.dynamic:
        text = variable_length(text)
    with open(args.output, "w") as f:
        f.write(text)
    if args.inputs:
        if args.dtype != "bf16":
            sys.exit("llama_layer.py: --inputs writes bf16 inputs only")
        write_inputs(args.inputs, args.seq, args.hidden, args.heads,
                     args.ffn, args.seed, kv_heads)


if __name__ == "__main__":
    main()
