"""runtime.test: the data of .npy file A (after its header) equals raw
file B byte for byte."""
import sys

npy, raw = (open(p, "rb").read() for p in sys.argv[1:3])
if not raw or not npy.endswith(raw) or len(npy) - len(raw) > 4096:
    sys.exit(f"{sys.argv[2]} ({len(raw)} bytes) differs from the data of "
             f"{sys.argv[1]} ({len(npy)} bytes)")
