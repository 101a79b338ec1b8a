"""Inputs of Inputs/llama_decode_layer.mlir's @decode step, without numpy.

  decode_layer_inputs.py DIR --pos POS [--caches-from PREV]
      writes DIR/inputI.npy: the step's activation (seeded by POS), the
      position POS, the K and V caches (seeded, or with --caches-from the
      caches an earlier step returned: PREV/result1.npy and result2.npy, so
      steps feed into each other) and the layer's weights (the same every
      step); prints the neuron-run --input flags for them.
"""

import argparse
import os
import random
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "tools", "Inputs"))
import npy  # noqa: E402  (test/tools/Inputs/npy.py)

# (shape, scale) of each argument of @decode after %x and %pos.
CACHE = "1x8x32x16"
WEIGHTS = [("128", 1.0), ("128x128", 0.1), ("128x128", 0.1),
           ("128x128", 0.1), ("32x16", 1.0), ("32x16", 1.0),
           ("128x128", 0.1), ("128", 1.0), ("128x256", 0.1),
           ("128x256", 0.1), ("256x128", 0.1)]


def floats(path, shape, rng, scale):
    count = 1
    for d in shape.split("x"):
        count *= int(d)
    npy.write(path, "f32", shape,
              [rng.uniform(-scale, scale) for _ in range(count)])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--pos", type=int, required=True)
    parser.add_argument("--caches-from")
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    path = lambda i: os.path.join(args.dir, f"input{i}.npy")
    floats(path(0), "1x128", random.Random(1000 + args.pos), 1.0)
    npy.write(path(1), "i64", "scalar", [args.pos])
    caches = random.Random(7)
    for i, result in ((2, "result1.npy"), (3, "result2.npy")):
        if args.caches_from:
            shutil.copy(os.path.join(args.caches_from, result), path(i))
        else:
            floats(path(i), CACHE, caches, 1.0)
    weights = random.Random(0)
    for i, (shape, scale) in enumerate(WEIGHTS, start=4):
        floats(path(i), shape, weights, scale)
    print(" ".join(f"--input={i}={path(i)}" for i in range(4 + len(WEIGHTS))))


if __name__ == "__main__":
    main()
