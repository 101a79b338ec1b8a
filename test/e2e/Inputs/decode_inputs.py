"""Inputs of Inputs/decode_kv_cache.mlir, without numpy.

  decode_inputs.py DIR --pos POS [--caches-from PREV]
      writes DIR/inputI.npy: seeded random activations and weights, the
      position POS, and zero caches, or with --caches-from the caches an
      earlier step returned (PREV/result1.npy, result2.npy), so steps feed
      into each other; prints the neuron-run --input flags for them.
  decode_inputs.py rows FILE
      prints the indices of the rows of a 16x64 f32 .npy holding a non-zero.
"""

import argparse
import os
import random
import shutil
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "tools", "Inputs"))
import npy  # noqa: E402  (test/tools/Inputs/npy.py)

ROWS, WIDTH = 16, 64


def floats(path, shape, rng, scale):
    count = 1
    for d in shape:
        count *= d
    npy.write(path, "f32", "x".join(map(str, shape)),
              [rng.uniform(-scale, scale) for _ in range(count)])


def rows(path):
    data = open(path, "rb").read()
    length, = struct.unpack_from("<H", data, 8)
    body = struct.unpack_from(f"<{ROWS * WIDTH}f", data, 10 + length)
    print([r for r in range(ROWS)
           if any(body[r * WIDTH:(r + 1) * WIDTH])])


def inputs(args):
    os.makedirs(args.dir, exist_ok=True)
    path = lambda i: os.path.join(args.dir, f"input{i}.npy")
    floats(path(0), (1, WIDTH), random.Random(args.pos), 1.0)
    npy.write(path(1), "i64", "scalar", [args.pos])
    for i, result in ((2, "result1.npy"), (3, "result2.npy")):
        if args.caches_from:
            shutil.copy(os.path.join(args.caches_from, result), path(i))
        else:
            npy.write(path(i), "f32", f"{ROWS}x{WIDTH}", [0.0] * ROWS * WIDTH)
    weights = random.Random(0)
    for i in (4, 5, 6):
        floats(path(i), (WIDTH, WIDTH), weights, 0.2)
    print(" ".join(f"--input={i}={path(i)}" for i in range(7)))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "rows":
        rows(sys.argv[2])
    else:
        parser = argparse.ArgumentParser()
        parser.add_argument("dir")
        parser.add_argument("--pos", type=int, required=True)
        parser.add_argument("--caches-from")
        inputs(parser.parse_args())
