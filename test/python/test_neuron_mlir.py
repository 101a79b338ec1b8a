"""neuron_mlir from Python: compiles give neuron-compile's executables byte
for byte, runs give neuron-run's results byte for byte (on the inputs
neuron-run --random-inputs wrote), and every error is an exception saying
where. Run by test/python/pytest.test with PYTHONPATH=build/python and
NEURON_TOOLS_DIR=build/bin."""

import ast
import os
import subprocess

import numpy as np
import pytest

import neuron_mlir

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOOLS = os.environ["NEURON_TOOLS_DIR"]
MLP = os.path.join(ROOT, "examples", "mlp.mlir")
BF16 = os.path.join(ROOT, "test", "e2e", "Inputs", "matmul_bf16.mlir")
CORPUS = os.path.abspath(os.environ.get(
    "NEURON_CORPUS_DIR", os.path.join(ROOT, "..", "shared", "corpus")))


def tool(name, *args):
    return subprocess.run([os.path.join(TOOLS, name), *map(str, args)],
                          check=True, capture_output=True)


def read_npy(path, dtype=None):
    """An .npy file as an array; `dtype` reads the data as that type (for
    bfloat16, whose descr NumPy does not know)."""
    with open(path, "rb") as f:
        assert f.read(6) == b"\x93NUMPY"
        major = f.read(2)[0]
        size = int.from_bytes(f.read(2 if major == 1 else 4), "little")
        header = ast.literal_eval(f.read(size).decode("latin1"))
        data = np.frombuffer(f.read(), dtype=dtype or header["descr"])
    return data.reshape(header["shape"])


def neuron_run(executable, tmp_path, dtype=None, *flags):
    """neuron-run's inputs and results for `executable` (seeded random
    inputs), as arrays."""
    out = tmp_path / "run"
    tool("neuron-run", executable, "--random-inputs", "--seed=7",
         f"--output-dir={out}", *flags)
    def files(stem):
        names = sorted(n for n in os.listdir(out) if n.startswith(stem))
        return [read_npy(out / n, dtype) for n in names]
    return files("input"), files("result")


def compile_both(graph, tmp_path, *flags, **options):
    """The graph compiled by neuron-compile (with `flags`) and by
    neuron_mlir.compile (with `options`); checks their bytes are equal."""
    path = tmp_path / "cli.nxe"
    tool("neuron-compile", graph, "-o", path, *flags)
    exe = neuron_mlir.compile(graph, **options)
    assert exe.to_bytes() == path.read_bytes()
    return exe, path


def test_mlp_matches_neuron_compile_and_neuron_run(tmp_path):
    exe, path = compile_both(MLP, tmp_path, "--target=trn2", target="trn2")
    inputs, expected = neuron_run(path, tmp_path)
    results = exe.run(*inputs)
    assert len(results) == 1
    assert results[0].dtype == np.float32 and results[0].shape == (64, 10)
    assert results[0].tobytes() == expected[0].tobytes()
    # The compile's report and remarks come with the executable.
    assert exe.coverage["policy"] == "decompose"
    assert any(d.severity == "remark" and d.line == 11 for d in exe.diagnostics)


def test_custom_kernel_library(tmp_path):
    graph = os.path.join(ROOT, "examples", "rms_norm.mlir")
    library = os.path.join(ROOT, "examples", "kernels")
    exe, path = compile_both(graph, tmp_path, f"--kernel-library={library}",
                             kernel_library=library)
    inputs, expected = neuron_run(path, tmp_path)
    assert exe.run(*inputs)[0].tobytes() == expected[0].tobytes()
    assert exe.coverage["by_op"]["@rms_norm"]["custom"] == 1


def test_tuning_cache(tmp_path):
    graph = os.path.join(ROOT, "test", "e2e", "Inputs", "matmul_blocked.mlir")
    cache = tmp_path / "tuning"
    exe, path = compile_both(graph, tmp_path,
                             "--entry=blocked", f"--tuning-cache={cache}",
                             entry="blocked", tuning_cache=cache)
    inputs, expected = neuron_run(path, tmp_path)
    assert exe.run(*inputs)[0].tobytes() == expected[0].tobytes()
    # The driver's compile wrote the records; Python's read them back.
    assert any(p.suffix == ".json" for p in cache.iterdir())
    assert any("search skipped" in d.message for d in exe.diagnostics)


def test_graph_as_text_or_object_or_saved_file(tmp_path):
    text = open(MLP).read()
    from_text = neuron_mlir.compile(text)

    class Module:  # what an MLIR Python module looks like: str() is MLIR
        def __str__(self):
            return text
    assert neuron_mlir.compile(Module()).to_bytes() == from_text.to_bytes()
    assert neuron_mlir.compile(MLP).to_bytes() == from_text.to_bytes()
    from_text.save(tmp_path / "m.nxe")
    loaded = neuron_mlir.load(tmp_path / "m.nxe")
    assert loaded.describe() == from_text.describe()


def test_describe_and_profile():
    exe = neuron_mlir.compile(MLP, target="trn2.48xlarge")
    info = exe.describe()
    assert info["target"] == "trn2.48xlarge,lnc=2"
    assert info["ranks"] == 1
    assert [i["shape"] for i in info["inputs"]] == [
        [64, 256], [512, 256], [512], [10, 512], [10]]
    assert info["outputs"][0] == {"name": "result0", "dtype": "f32",
                                  "shape": [64, 10], "bytes": 2560}
    profile = exe.profile()
    assert profile["schema"] == "neuron-profile/1"
    assert profile["program"]


def test_tensor_parallel(tmp_path):
    graph = os.path.join(ROOT, "test", "e2e", "Inputs", "mlp_bias.mlir")
    exe, path = compile_both(graph, tmp_path, "--tensor-parallel=2",
                             tensor_parallel=2)
    assert exe.describe()["ranks"] == 2
    inputs, expected = neuron_run(path, tmp_path)
    assert [r.tobytes() for r in exe.run(*inputs)] == \
        [e.tobytes() for e in expected]


def test_collective_chunks(tmp_path):
    graph = os.path.join(ROOT, "test", "e2e", "Inputs", "llama_layer.mlir")
    exe, path = compile_both(graph, tmp_path, "--tensor-parallel=2",
                             "--collective-chunks=2", tensor_parallel=2,
                             collective_chunks=2)
    assert sum("neuron-decompose-collectives: split" in d.message
               for d in exe.diagnostics) == 2
    inputs, expected = neuron_run(path, tmp_path)
    assert [r.tobytes() for r in exe.run(*inputs)] == \
        [e.tobytes() for e in expected]


def test_buckets(tmp_path):
    graph = os.path.join(ROOT, "test", "e2e", "Inputs",
                         "attention_dynamic.mlir")
    exe, path = compile_both(graph, tmp_path, "--buckets=16,64",
                             buckets=[16, 64])
    assert exe.buckets == (16, 64) and exe.length == 64
    # The length input is the runtime's: three inputs at the length.
    assert [t.shape for t in exe.inputs] == [(64, 16)] * 3
    inputs, expected = neuron_run(path, tmp_path, None, "--length=40")
    assert inputs[0].shape == (40, 16)
    # Arrays of length 40 set it; the results are neuron-run's.
    results = exe.run(*inputs)
    assert exe.length == 40 and results[0].shape == (40, 16)
    assert results[0].tobytes() == expected[0].tobytes()
    assert exe.describe()["buckets"] == [16, 64]
    with pytest.raises(neuron_mlir.NeuronRuntimeError,
                       match="length 65 is beyond the largest bucket"):
        exe.set_length(65)


def test_bf16_bits_and_floats(tmp_path):
    exe, path = compile_both(BF16, tmp_path)
    assert {t.dtype for t in exe.inputs} == {"bf16"}
    bits, expected = neuron_run(path, tmp_path, dtype=np.uint16)
    # Raw bits in, raw bits out: neuron-run's bytes.
    raw = exe.run(*bits, raw=True)
    assert raw[0].dtype == np.uint16
    assert raw[0].tobytes() == expected[0].tobytes()
    # Floats in (each exactly a bf16 here), float32 out: the same values.
    floats = [(b.astype(np.uint32) << 16).view(np.float32) for b in bits]
    out = exe.run(*floats)
    assert out[0].dtype == np.float32
    assert np.array_equal(out[0].view(np.uint32) >> 16, expected[0])
    # Rounding to nearest even: 1 + 2^-8 is halfway between two bf16
    # values and rounds to the even one, 1.0.
    nudged = [f.copy() for f in floats]
    nudged[0].flat[0] = np.float32(1.0 + 2.0 ** -8)
    rounded = neuron_mlir._to_bf16_bits(nudged[0])
    assert rounded.flat[0] == 0x3F80


@pytest.mark.skipif(not os.path.isdir(CORPUS),
                    reason=f"no corpus at {CORPUS} (set NEURON_CORPUS_DIR)")
@pytest.mark.parametrize("name,entry,dtype", [
    ("buddy_lenet_tosa", "forward", None),
    ("tpp_torch_dynamo_mlp3_bf16_linalg", "forward", np.uint16)])
def test_corpus_graph(tmp_path, name, entry, dtype):
    graph = os.path.join(CORPUS, name + ".mlir")
    exe, path = compile_both(graph, tmp_path, f"--entry={entry}", entry=entry)
    inputs, expected = neuron_run(path, tmp_path, dtype)
    results = exe.run(*inputs, raw=True)
    assert [r.tobytes() for r in results] == [e.tobytes() for e in expected]


def test_i16_inputs_and_results(tmp_path):
    graph = os.path.join(ROOT, "test", "e2e", "Inputs", "int8_i16.mlir")
    exe, path = compile_both(graph, tmp_path, "--fallback=host",
                             fallback="host")
    assert [t.dtype for t in exe.inputs] == ["i8", "i8", "i16"]
    inputs, expected = neuron_run(path, tmp_path)
    results = exe.run(*inputs)
    assert [r.dtype for r in results] == [np.int8, np.int16]
    assert [r.tobytes() for r in results] == [e.tobytes() for e in expected]


def test_refusing_host_code(tmp_path):
    graph = os.path.join(ROOT, "test", "e2e", "Inputs", "int8_i16.mlir")
    exe = neuron_mlir.compile(graph, fallback="host")
    assert exe.describe()["host_calls"] == 1
    exe.save(tmp_path / "host.nxe")
    with pytest.raises(neuron_mlir.NeuronRuntimeError,
                       match=r"host.nxe: carries host code: 1 host call "
                             r"\(host0\) would run on this machine; refused"
                       ) as error:
        neuron_mlir.load(tmp_path / "host.nxe", allow_host_code=False)
    assert error.value.status == 7
    device_only = neuron_mlir.compile(MLP)
    assert device_only.describe()["host_calls"] == 0
    neuron_mlir.Executable(device_only.to_bytes(), allow_host_code=False)


def test_compile_errors_carry_locations():
    bad = ("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
           "  %0 = tosa.abs %a : (tensor<4xf32>) -> tensor<5xf32>\n"
           "  return %a : tensor<4xf32>\n}\n")
    with pytest.raises(neuron_mlir.CompileError) as error:
        neuron_mlir.compile(bad)
    first = error.value.diagnostics[0]
    assert (first.severity, first.file, first.line, first.column) == \
        ("error", "<string>", 2, 8)
    assert "requires the same shape" in first.message
    assert str(error.value).startswith("<string>:2:8: error: ")

    with pytest.raises(neuron_mlir.CompileError, match="unknown target 'trn9'"):
        neuron_mlir.compile(MLP, target="trn9")
    with pytest.raises(neuron_mlir.CompileError,
                       match=r"mlp.mlir:\d+:\d+: error: neuron-compile: expected "
                             r"one function to compile named @nope"):
        neuron_mlir.compile(MLP, entry="nope")
    with pytest.raises(neuron_mlir.CompileError,
                       match="unknown fallback policy 'cpu'"):
        neuron_mlir.compile(MLP, fallback="cpu")
    with pytest.raises(neuron_mlir.CompileError,
                       match=r"^<string>:1:1: error: custom op 'garbage'"):
        neuron_mlir.compile("garbage")


def test_runtime_errors():
    exe = neuron_mlir.compile(MLP)
    ok = [np.zeros(t.shape, np.float32) for t in exe.inputs]
    with pytest.raises(TypeError, match="takes 5 inputs, got 4"):
        exe.run(*ok[:4])
    with pytest.raises(ValueError, match=r"input 0 \('input0'\): shape "
                                         r"\(64, 255\), expected \(64, 256\)"):
        exe.run(np.zeros((64, 255), np.float32), *ok[1:])
    with pytest.raises(TypeError, match="expected a float32 array, got int32"):
        exe.run(np.zeros((64, 256), np.int32), *ok[1:])
    with pytest.raises(neuron_mlir.NeuronRuntimeError) as error:
        neuron_mlir.Executable(exe.to_bytes()[:40])
    assert error.value.status == 3
    assert "expected at least 64 bytes" in error.value.message
    corrupt = bytearray(exe.to_bytes())
    corrupt[100] ^= 0xFF  # in the manifest
    with pytest.raises(neuron_mlir.NeuronRuntimeError,
                       match="manifest checksum"):
        neuron_mlir.Executable(bytes(corrupt))
