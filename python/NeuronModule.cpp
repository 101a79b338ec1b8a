//===- NeuronModule.cpp - neuron_mlir._core, the Python extension ---------===//
//
// The compiler (the neuron-compile pass on a graph's text) and the runtime
// (its C API, libNeuronRuntimeC.so) for neuron_mlir/__init__.py, which
// turns arrays into bytes and back. Compiler diagnostics are collected, not
// printed: a failed compile raises CompileError carrying them.
//
//===----------------------------------------------------------------------===//

#include "lowering/Pipelines/Pipelines.h"
#include "runtime/capi/NeuronRuntime.h"
#include "runtime/support/Bf16.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace py = pybind11;
using namespace mlir;

namespace {

/// One compiler diagnostic as Python sees it: (severity, file, line,
/// column, message); file is "" and line and column 0 without a location.
using PyDiagnostic = std::tuple<std::string, std::string, unsigned, unsigned,
                                std::string>;

/// The first file location in `loc` (through names, call sites, fusions).
std::tuple<std::string, unsigned, unsigned> fileOf(Location loc) {
  std::tuple<std::string, unsigned, unsigned> where{"", 0, 0};
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      where = {file.getFilename().str(), file.getLine(), file.getColumn()};
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return where;
}

const char *severityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Remark:
    return "remark";
  case DiagnosticSeverity::Note:
    return "note";
  }
  return "note";
}

void collect(Diagnostic &d, std::vector<PyDiagnostic> &into) {
  auto [file, line, column] = fileOf(d.getLocation());
  into.emplace_back(severityName(d.getSeverity()), file, line, column,
                    d.str());
  for (Diagnostic &note : d.getNotes())
    collect(note, into);
}

/// What compile() returns: the executable's bytes, the coverage report's
/// JSON text, and every diagnostic (remarks and warnings of a compile that
/// succeeded); or, when `ok` is false, the diagnostics saying why not.
struct CompileResult {
  bool ok = false;
  py::bytes executable;
  std::string coverage;
  std::vector<PyDiagnostic> diagnostics;
};

std::string readAndRemove(const llvm::SmallString<128> &path) {
  std::string bytes;
  if (auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false))
    bytes = (*buffer)->getBuffer().str();
  llvm::sys::fs::remove(path);
  return bytes;
}

/// Compiles the graph in `text` (named `name` in locations) with the
/// neuron-compile pass's `options` (its option text, without output and
/// report, which go to a private temporary folder).
CompileResult compile(const std::string &text, const std::string &name,
                      const std::string &options) {
  CompileResult result;
  std::string executable, coverage;
  {
    py::gil_scoped_release released;
    DialectRegistry registry;
    mlir::neuron::registerAllNeuronDialects(registry);
    MLIRContext context(registry);
    context.loadAllAvailableDialects();
    // Diagnostics carry source locations; a whole graph after each is noise.
    context.printOpOnDiagnostic(false);
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      collect(d, result.diagnostics);
      return success();
    });
    llvm::SourceMgr sources;
    sources.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, name), llvm::SMLoc());
    OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &context);
    llvm::SmallString<128> dir;
    if (!module)
      return result;
    if (std::error_code ec =
            llvm::sys::fs::createUniqueDirectory("neuron-mlir", dir)) {
      result.diagnostics.emplace_back(
          "error", "", 0, 0,
          "cannot create a temporary folder: " + ec.message());
      return result;
    }
    llvm::SmallString<128> output(dir), report(dir);
    llvm::sys::path::append(output, "graph.nxe");
    llvm::sys::path::append(report, "coverage.json");
    // Quoted: the temporary folder's path may hold spaces.
    result.ok = succeeded(mlir::neuron::runNeuronCompile(
        *module, options + " output=\"" + output.str().str() +
                     "\" report=\"" + report.str().str() + "\""));
    executable = readAndRemove(output);
    coverage = readAndRemove(report);
    llvm::sys::fs::remove(dir);
  }
  result.executable = py::bytes(executable);
  result.coverage = coverage;
  return result;
}

/// Raises NeuronRuntimeError(status, message) for a failed call.
void check(NeuronStatus status) {
  if (status == NEURON_OK)
    return;
  static py::handle type =
      py::module_::import("neuron_mlir").attr("NeuronRuntimeError");
  PyErr_SetObject(type.ptr(),
                  py::make_tuple(static_cast<int>(status), neuronLastError())
                      .ptr());
  throw py::error_already_set();
}

/// One input or output: (name, dtype, shape, bytes).
using PyTensor =
    std::tuple<std::string, std::string, std::vector<int64_t>, size_t>;

PyTensor describe(const NeuronTensorInfo &info) {
  return {info.name, info.dtype,
          std::vector<int64_t>(info.shape, info.shape + info.rank),
          info.bytes};
}

/// A loaded executable (the runtime C API's), owned.
class Executable {
public:
  static std::unique_ptr<Executable> fromBytes(const py::bytes &bytes,
                                               bool allowHostCode) {
    std::string_view view = bytes;
    NeuronExecutable *e = nullptr;
    check(neuronExecutableLoadBytesFlags(
        view.data(), view.size(),
        allowHostCode ? NEURON_LOAD_DEFAULT : NEURON_LOAD_REFUSE_HOST_CODE,
        &e));
    return std::unique_ptr<Executable>(new Executable(e));
  }
  static std::unique_ptr<Executable> fromFile(const std::string &path) {
    NeuronExecutable *e = nullptr;
    check(neuronExecutableLoadFile(path.c_str(), &e));
    return std::unique_ptr<Executable>(new Executable(e));
  }

  std::vector<PyTensor> inputs() const {
    return tensors(neuronExecutableInputCount(e.get()), neuronExecutableInput);
  }
  std::vector<PyTensor> outputs() const {
    return tensors(neuronExecutableOutputCount(e.get()),
                   neuronExecutableOutput);
  }
  std::string target() const { return neuronExecutableTarget(e.get()); }
  int64_t ranks() const { return neuronExecutableRanks(e.get()); }
  size_t hostCalls() const { return neuronExecutableHostCalls(e.get()); }
  std::vector<int64_t> buckets() const {
    const int64_t *sizes = nullptr;
    size_t n = neuronExecutableBuckets(e.get(), &sizes);
    return std::vector<int64_t>(sizes, sizes + n);
  }
  int64_t length() const { return neuronExecutableLength(e.get()); }
  void setLength(int64_t length) {
    check(neuronExecutableSetLength(e.get(), length));
  }

  /// Runs on whole inputs given as buffers of exactly their bytes; returns
  /// each output's bytes.
  std::vector<py::bytes> run(const std::vector<py::buffer> &inputs) {
    std::vector<py::buffer_info> views;
    std::vector<const void *> in;
    std::vector<size_t> inBytes;
    for (const py::buffer &b : inputs) {
      views.push_back(b.request());
      if (!PyBuffer_IsContiguous(views.back().view(), 'C'))
        throw py::value_error("input buffers must be C-contiguous");
      in.push_back(views.back().ptr);
      inBytes.push_back(views.back().size * views.back().itemsize);
    }
    std::vector<PyTensor> outs = outputs();
    std::vector<std::string> results;
    std::vector<void *> out;
    std::vector<size_t> outBytes;
    for (const PyTensor &t : outs) {
      results.emplace_back(std::get<3>(t), '\0');
      outBytes.push_back(std::get<3>(t));
    }
    for (std::string &r : results)
      out.push_back(r.data());
    NeuronStatus status;
    {
      py::gil_scoped_release released;
      status = neuronExecutableRun(e.get(), in.data(), inBytes.data(),
                                   out.data(), outBytes.data());
    }
    check(status);
    return std::vector<py::bytes>(results.begin(), results.end());
  }

  std::string profile() {
    const char *json = nullptr;
    NeuronStatus status;
    {
      py::gil_scoped_release released;
      status = neuronExecutableProfile(e.get(), &json);
    }
    check(status);
    return json;
  }

private:
  explicit Executable(NeuronExecutable *e) : e(e) {}

  template <typename Get>
  std::vector<PyTensor> tensors(size_t count, Get get) const {
    std::vector<PyTensor> all;
    for (size_t i = 0; i < count; ++i) {
      NeuronTensorInfo info;
      check(get(e.get(), i, &info));
      all.push_back(describe(info));
    }
    return all;
  }

  struct Destroy {
    void operator()(NeuronExecutable *e) const { neuronExecutableDestroy(e); }
  };
  std::unique_ptr<NeuronExecutable, Destroy> e;
};

/// The bf16 bits of `values` (f32, native byte order), rounded as the
/// device rounds (runtime/support/Bf16.h).
py::bytes bf16Bits(const py::buffer &values) {
  py::buffer_info view = values.request();
  if (view.itemsize != 4 || !PyBuffer_IsContiguous(view.view(), 'C'))
    throw py::value_error("expected a C-contiguous float32 buffer");
  std::string out(view.size * 2, '\0');
  const auto *in = static_cast<const uint32_t *>(view.ptr);
  for (py::ssize_t i = 0; i < view.size; ++i) {
    uint16_t bits = ::neuron::rt::f32BitsToBf16(in[i]);
    std::memcpy(out.data() + 2 * i, &bits, 2);
  }
  return py::bytes(out);
}

} // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "neuron-mlir's compiler and simulated runtime (use neuron_mlir)";

  m.def("bf16_bits", &bf16Bits, py::arg("values"),
        "bf16 bits of float32 values, rounded to nearest even.");

  py::class_<CompileResult>(m, "CompileResult")
      .def_readonly("ok", &CompileResult::ok)
      .def_readonly("executable", &CompileResult::executable)
      .def_readonly("coverage", &CompileResult::coverage)
      .def_readonly("diagnostics", &CompileResult::diagnostics);
  m.def("compile", &compile, py::arg("text"), py::arg("name"),
        py::arg("options"),
        "Compiles MLIR text with the neuron-compile pass's options.");

  py::class_<Executable>(m, "Executable")
      .def_static("from_bytes", &Executable::fromBytes, py::arg("bytes"),
                  py::arg("allow_host_code") = true)
      .def_static("from_file", &Executable::fromFile)
      .def("inputs", &Executable::inputs)
      .def("outputs", &Executable::outputs)
      .def("target", &Executable::target)
      .def("ranks", &Executable::ranks)
      .def("host_calls", &Executable::hostCalls)
      .def("buckets", &Executable::buckets)
      .def("length", &Executable::length)
      .def("set_length", &Executable::setLength)
      .def("run", &Executable::run)
      .def("profile", &Executable::profile);
}
