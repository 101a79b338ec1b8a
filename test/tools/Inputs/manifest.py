"""Prints what an executable says about its host code, for FileCheck: the
manifest's `host_code`, its section's size and first bytes, then each
host_call step (name, tensors, entry point). With --extract OUT, also
writes the section's bytes (the shared library) to OUT.

  manifest.py FILE.nxe [--extract OUT.so]
"""

import argparse
import json
import struct


def sections(data):
    count, = struct.unpack_from("<I", data, 20)
    table, = struct.unpack_from("<Q", data, 40)
    for i in range(count):
        entry = table + 56 * i
        name = data[entry:entry + 32].rstrip(b"\0").decode()
        offset, size = struct.unpack_from("<QQ", data, entry + 32)
        yield name, data[offset:offset + size]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("executable")
    parser.add_argument("--extract")
    args = parser.parse_args()
    data = open(args.executable, "rb").read()
    offset, size = struct.unpack_from("<QQ", data, 24)
    manifest = json.loads(data[offset:offset + size])
    code = manifest.get("host_code")
    print(f"host_code {json.dumps(code, sort_keys=True)}")
    if code:
        library = dict(sections(data))[code["section"]]
        print(f"section {code['section']}: {len(library)} bytes, "
              f"starting {library[:4]!r}")
        if args.extract:
            open(args.extract, "wb").write(library)
    for index, step in enumerate(manifest["program"]):
        if "host_call" in step:
            print(f"step {index}: host_call {step['host_call']} inputs "
                  f"{step['inputs']} outputs {step['outputs']} symbol "
                  f"{step['symbol']}")


if __name__ == "__main__":
    main()
