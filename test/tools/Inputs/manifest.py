"""Prints the host_call steps of an executable's manifest for FileCheck, one
item a line: the step, then its reference's values, its ops (the op's name,
then its other fields as JSON with sorted keys; a generic's body indented
under it) and its results.

  manifest.py FILE.nxe
"""

import json
import struct
import sys


def describe(op):
    name = op.pop("op")
    return f"{name} {json.dumps(op, sort_keys=True)}"


def main(path):
    data = open(path, "rb").read()
    offset, size = struct.unpack_from("<QQ", data, 24)
    manifest = json.loads(data[offset:offset + size])
    for index, step in enumerate(manifest["program"]):
        if "host_call" not in step:
            continue
        print(f"step {index}: host_call {step['host_call']} inputs "
              f"{step['inputs']} outputs {step['outputs']}")
        reference = step.get("reference")
        if reference is None:
            print("  no reference")
            continue
        for i, value in enumerate(reference["values"]):
            print(f"  value {i}: {json.dumps(value, sort_keys=True)}")
        for op in reference["ops"]:
            body = op.pop("body", None)
            print(f"  {describe(op)}")
            if body:
                print(f"    arguments {body['arguments']}")
                for inner in body["ops"]:
                    print(f"    {describe(inner)}")
                print(f"    yield {body['yield']}")
        print(f"  results {reference['results']}")


if __name__ == "__main__":
    main(sys.argv[1])
