"""Writes softmax_shifted.test's [70, 300] f32 logits, without numpy: rows
0-19 are 1e6 minus a ramp of eighths, rows 20-39 uniform in [-1e4, 1e4),
the rest uniform in [-1, 1).

  shifted_logits.py FILE
"""

import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "tools", "Inputs"))
import npy  # noqa: E402  (test/tools/Inputs/npy.py)

rng = random.Random(7)
values = []
for row in range(70):
    for col in range(300):
        if row < 20:
            values.append(1e6 - col / 8)
        elif row < 40:
            values.append(rng.uniform(-1e4, 1e4))
        else:
            values.append(rng.uniform(-1, 1))
npy.write(sys.argv[1], "f32", "70x300", values)
