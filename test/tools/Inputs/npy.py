"""Writes and prints small .npy files without numpy, for neuron-run tests.

  npy.py write FILE DTYPE SHAPE VALUE...   e.g. write ids.npy i32 2x3 0 1 2 3 4 5
                                           (SHAPE "scalar" for rank 0)
  npy.py print FILE                        dtype, shape, then one value a line

DTYPE is a manifest dtype (f32, i32, i64, i8); files are C-order,
little-endian, version 1.0.
"""

import ast
import struct
import sys

DTYPES = {"f32": ("<f4", "f"), "i32": ("<i4", "i"), "i64": ("<i8", "q"),
          "i8": ("|i1", "b")}


def write(path, dtype, shape_text, values):
    descr, code = DTYPES[dtype]
    shape = () if shape_text == "scalar" else tuple(
        int(d) for d in shape_text.split("x"))
    count = 1
    for d in shape:
        count *= d
    if len(values) != count:
        sys.exit(f"npy.py: {count} values expected for {shape_text}, "
                 f"found {len(values)}")
    cast = float if code == "f" else int
    header = repr({"descr": descr, "fortran_order": False,
                   "shape": shape}).encode()
    header += b" " * (63 - (10 + len(header)) % 64) + b"\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header)
        f.write(struct.pack(f"<{count}{code}", *[cast(v) for v in values]))


def show(path):
    with open(path, "rb") as f:
        data = f.read()
    length = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + length].decode())
    dtype = next(k for k, v in DTYPES.items() if v[0] == header["descr"])
    code = DTYPES[dtype][1]
    body = data[10 + length:]
    count = len(body) // struct.calcsize(code)
    shape = "x".join(str(d) for d in header["shape"])
    print(f"{dtype} {shape}")
    for value in struct.unpack(f"<{count}{code}", body):
        print(value)


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    elif len(sys.argv) == 3 and sys.argv[1] == "print":
        show(sys.argv[2])
    else:
        sys.exit(__doc__)
