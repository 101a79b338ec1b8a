"""neuron-mlir from Python: compile a frontend graph and run it on the
simulated device with NumPy arrays.

    import numpy as np
    import neuron_mlir

    exe = neuron_mlir.compile("examples/mlp.mlir", target="trn2")
    x = np.ones((64, 256), np.float32)
    ...
    (y,) = exe.run(x, w1, b1, w2, b2)

Element types. Inputs are NumPy arrays of the executable's shapes; f32,
f16, i8, i16, i32, i64 and i1 (bool) map to NumPy's own types. NumPy has no
bfloat16 or fp8, so:

- a bf16 input takes a float array, rounded to bf16 (to nearest, ties to
  even, as the device rounds), or a uint16 array of raw bf16 bits, taken
  as they are;
- a bf16 output comes back as float32 (every bf16 value is exactly a
  float32), or as uint16 raw bits with ``run(..., raw=True)``;
- fp8 (f8E4M3FN, f8E5M2) inputs and outputs are uint8 arrays of raw bits.

Errors are exceptions: CompileError carries the compiler's diagnostics
with their locations, NeuronRuntimeError the runtime's status and message.
"""

import json
import os

import numpy as np

__all__ = ["compile", "load", "Executable", "CompileError",
           "NeuronRuntimeError", "Diagnostic"]


class Diagnostic(tuple):
    """One compiler diagnostic: severity ("error", "warning", "remark",
    "note"), file, line, column (0 without a location) and message."""

    __slots__ = ()

    def __new__(cls, severity, file, line, column, message):
        return super().__new__(cls, (severity, file, line, column, message))

    severity = property(lambda self: self[0])
    file = property(lambda self: self[1])
    line = property(lambda self: self[2])
    column = property(lambda self: self[3])
    message = property(lambda self: self[4])

    def __str__(self):
        where = f"{self.file}:{self.line}:{self.column}: " if self.file else ""
        return f"{where}{self.severity}: {self.message}"

    def __repr__(self):
        return f"Diagnostic({str(self)!r})"


class CompileError(Exception):
    """A compile that failed; ``diagnostics`` holds what the compiler said
    (errors first in the message, every diagnostic in the list)."""

    def __init__(self, diagnostics):
        self.diagnostics = list(diagnostics)
        errors = [d for d in self.diagnostics if d.severity == "error"]
        super().__init__("\n".join(str(d) for d in (errors or self.diagnostics))
                         or "the compile failed without a diagnostic")


class NeuronRuntimeError(Exception):
    """A runtime call that failed: ``status`` is the runtime's NeuronStatus
    (absl's canonical codes), ``message`` says why."""

    def __init__(self, status, message):
        self.status = status
        self.message = message
        super().__init__(f"{message} (status {status})")


from . import _core  # noqa: E402  (its errors need the classes above)

_NUMPY = {"f32": np.float32, "f16": np.float16, "i8": np.int8, "i16": np.int16,
          "i32": np.int32, "i64": np.int64, "i1": np.bool_,
          "bf16": np.uint16, "f8E4M3FN": np.uint8, "f8E5M2": np.uint8}


def _to_bf16_bits(values):
    """float array -> uint16 bf16 bits, rounded as the device rounds (to
    nearest, ties to even; the runtime's own conversion)."""
    values = np.ascontiguousarray(values, dtype=np.float32)
    return np.frombuffer(_core.bf16_bits(values),
                         dtype=np.uint16).reshape(values.shape)


def _from_bf16_bits(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


class Tensor(tuple):
    """An executable's input or output: name, dtype (the manifest's, e.g.
    "bf16"), shape and size in bytes."""

    __slots__ = ()
    name = property(lambda self: self[0])
    dtype = property(lambda self: self[1])
    shape = property(lambda self: tuple(self[2]))
    nbytes = property(lambda self: self[3])


class Executable:
    """A compiled program (.nxe), loaded and validated by the runtime.
    ``allow_host_code=False`` refuses (NeuronRuntimeError, status 7) one
    whose host calls would run on this machine: for executables you did not
    compile."""

    def __init__(self, data, coverage=None, diagnostics=(),
                 allow_host_code=True):
        self._bytes = bytes(data)
        self._exe = _core.Executable.from_bytes(self._bytes, allow_host_code)
        #: the coverage report (a dict) when compiled in this process
        self.coverage = coverage
        #: the compiler's remarks and warnings when compiled in this process
        self.diagnostics = list(diagnostics)

    @property
    def inputs(self):
        return [Tensor(t) for t in self._exe.inputs()]

    @property
    def outputs(self):
        return [Tensor(t) for t in self._exe.outputs()]

    @property
    def buckets(self):
        """The bucket sizes of an executable compiled with ``buckets=``
        (increasing), or an empty tuple."""
        return tuple(self._exe.buckets())

    @property
    def length(self):
        """With buckets, the variable length ``inputs`` and ``outputs``
        have now (0 without buckets)."""
        return self._exe.length()

    def set_length(self, length):
        """With buckets: inputs and outputs of ``length`` from now on (the
        smallest bucket holding it runs, its inputs padded, its outputs cut
        back). NeuronRuntimeError beyond the largest bucket."""
        self._exe.set_length(int(length))

    def _infer_length(self, arrays):
        """With buckets: sets the length the arrays have, when the shapes
        that differ from ``inputs`` all differ by one length."""
        sizes = {int(s) for t, a in zip(self.inputs, arrays)
                 for s, want in zip(np.shape(a), t.shape)
                 if len(np.shape(a)) == len(t.shape) and s != want}
        if len(sizes) == 1:
            self.set_length(sizes.pop())

    def to_bytes(self):
        return self._bytes

    def save(self, path):
        """Writes the executable (the bytes neuron-run reads) to ``path``."""
        with open(path, "wb") as f:
            f.write(self._bytes)

    def describe(self):
        """What the program takes and gives, as Python data."""
        def one(t):
            return {"name": t.name, "dtype": t.dtype, "shape": list(t.shape),
                    "bytes": t.nbytes}
        return {"target": self._exe.target(), "ranks": self._exe.ranks(),
                "host_calls": self._exe.host_calls(),
                "buckets": list(self.buckets), "length": self.length,
                "inputs": [one(t) for t in self.inputs],
                "outputs": [one(t) for t in self.outputs]}

    def profile(self):
        """The program timed on its target's cost model: neuron-run
        --profile's document (per step and engine) as Python data."""
        return json.loads(self._exe.profile())

    def _input(self, index, tensor, value):
        value = np.asarray(value)
        if tuple(value.shape) != tensor.shape:
            raise ValueError(f"input {index} ('{tensor.name}'): shape "
                             f"{tuple(value.shape)}, expected {tensor.shape}")
        if tensor.dtype == "bf16" and value.dtype != np.uint16:
            if value.dtype.kind != "f":
                raise TypeError(f"input {index} ('{tensor.name}') is bf16: "
                                f"give floats or uint16 bits, not {value.dtype}")
            return _to_bf16_bits(value)
        want = _NUMPY.get(tensor.dtype)
        if want is None:
            raise TypeError(f"input {index} ('{tensor.name}'): dtype "
                            f"{tensor.dtype} has no NumPy form here")
        if value.dtype != want:
            raise TypeError(f"input {index} ('{tensor.name}') is "
                            f"{tensor.dtype}: expected a {np.dtype(want)} "
                            f"array, got {value.dtype}")
        return np.ascontiguousarray(value)

    def run(self, *arrays, raw=False, length=None):
        """Runs the program on the simulated device (every rank, in this
        process); returns a tuple with one array per output. ``raw=True``
        returns bf16 outputs as uint16 bits instead of float32. With
        buckets, ``length=`` sets the variable length first; without it,
        arrays whose shapes differ from ``inputs`` in one size set the
        length to that size. Not for concurrent use of one Executable."""
        if length is not None:
            self.set_length(length)
        elif self.buckets and len(arrays) == len(self.inputs):
            self._infer_length(arrays)
        inputs = self.inputs
        if len(arrays) != len(inputs):
            raise TypeError(f"the executable takes {len(inputs)} inputs, "
                            f"got {len(arrays)}")
        buffers = [self._input(i, t, a)
                   for i, (t, a) in enumerate(zip(inputs, arrays))]
        results = []
        for t, data in zip(self.outputs, self._exe.run(buffers)):
            value = np.frombuffer(data, dtype=_NUMPY[t.dtype]).reshape(t.shape)
            if t.dtype == "bf16" and not raw:
                value = _from_bf16_bits(value)
            results.append(value)
        return tuple(results)


def _graph_text(graph):
    """(text, name) of a graph given as MLIR text, a path or an object whose
    str() is MLIR (as an MLIR Python module's is)."""
    if isinstance(graph, os.PathLike) or (
            isinstance(graph, str) and "\n" not in graph
            and os.path.isfile(graph)):
        path = os.fspath(graph)
        with open(path, encoding="utf-8") as f:
            return f.read(), path
    if isinstance(graph, bytes):
        return graph.decode("utf-8"), "<bytes>"
    return str(graph), "<string>"


def _quoted(value):
    value = str(value)
    if '"' in value:
        raise ValueError(f"option value {value!r} holds a double quote")
    return f'"{value}"'


def compile(graph, target=None, fallback="decompose", tensor_parallel=0,
            entry=None, opt_level=2, buffers=16, kernel_library=None,
            tuning_cache=None, buckets=None, bucket_pad=0.0,
            collective_chunks=0):
    """Compiles a frontend graph (linalg-on-tensors or TOSA) as
    neuron-compile does: ``graph`` is MLIR text, a path to a .mlir file, or
    an object whose str() is MLIR; ``target`` a chip or instance with an
    optional ",lnc=N" (default: the graph's neuron.target, else trn2);
    ``kernel_library`` a folder of user nisa kernels (--kernel-library);
    ``tuning_cache`` a folder of matmul tuning records (--tuning-cache);
    ``buckets`` sizes of a graph's variable length (--buckets) and
    ``bucket_pad`` the value inputs are padded with (--bucket-pad);
    ``collective_chunks`` the row chunks of each row-parallel matmul and its
    all-reduce (--collective-chunks: 0 lets the cost models choose, 1 never
    splits).
    Returns an Executable; raises CompileError with the compiler's located
    diagnostics."""
    text, name = _graph_text(graph)
    options = [f"fallback={_quoted(fallback)}", f"opt-level={int(opt_level)}",
               f"buffers={int(buffers)}",
               f"tensor-parallel={int(tensor_parallel)}",
               f"collective-chunks={int(collective_chunks)}"]
    if target:
        options.append(f"target={_quoted(target)}")
    if entry:
        options.append(f"entry={_quoted(entry)}")
    if kernel_library:
        options.append(f"kernel-library={_quoted(str(kernel_library))}")
    if tuning_cache:
        options.append(f"tuning-cache={_quoted(str(tuning_cache))}")
    if buckets:
        options.append("buckets=" + ",".join(str(int(b)) for b in buckets))
        options.append(f"bucket-pad={float(bucket_pad)!r}")
    result = _core.compile(text, name, " ".join(options))
    diagnostics = [Diagnostic(*d) for d in result.diagnostics]
    if not result.ok:
        raise CompileError(diagnostics)
    coverage = json.loads(result.coverage) if result.coverage else None
    return Executable(result.executable, coverage, diagnostics)


def load(path, allow_host_code=True):
    """Loads an executable written by neuron-compile or Executable.save;
    ``allow_host_code=False`` refuses one that carries host code."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        return Executable(data, allow_host_code=allow_host_code)
    except NeuronRuntimeError as error:
        # The runtime read bytes; the caller knows them by the file's name.
        raise NeuronRuntimeError(
            error.status, error.message.replace("<memory>", os.fspath(path),
                                                1)) from None
