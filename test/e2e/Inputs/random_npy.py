"""Writes a .npy of seeded uniform values in [-1, 1), without numpy.

  random_npy.py FILE DTYPE SHAPE SEED    e.g. random_npy.py q.npy f32 1x4x3x16 7
"""

import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "tools", "Inputs"))
import npy  # noqa: E402  (test/tools/Inputs/npy.py)

path, dtype, shape, seed = sys.argv[1:5]
count = 1
for d in shape.split("x"):
    count *= int(d)
rng = random.Random(int(seed))
npy.write(path, dtype, shape, [rng.uniform(-1, 1) for _ in range(count)])
