//===- Compile.cpp - neuron-compile as one pass ---------------------------===//
//
// The whole compile of a frontend graph (target, tensor-parallel
// partitioning, import, choice of the graph, kernels, executable) as a
// module pass running the named pipelines dynamically, so neuron-opt, the
// C API and any pass manager replay exactly what the neuron-compile driver
// runs.
//
//===----------------------------------------------------------------------===//

#include "dialects/neuron/IR/NeuronDialect.h"
#include "dialects/nisa/IR/NisaDialect.h"
#include "lowering/NisaToExecutable/NisaToExecutable.h"
#include "lowering/Passes.h"
#include "lowering/Pipelines/Pipelines.h"
#include "passes/Coverage.h"
#include "passes/KernelLibrary.h"
#include "passes/Passes.h"
#include "passes/TargetLoading.h"
#include "runtime/format/Buckets.h"
#include "runtime/format/FileIO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <tuple>
#include <vector>

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONCOMPILE
#include "lowering/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;

namespace {

/// The functions of `module` with a body that take or return tensors.
SmallVector<func::FuncOp> graphFunctions(ModuleOp module) {
  SmallVector<func::FuncOp> funcs;
  for (func::FuncOp f : module.getOps<func::FuncOp>())
    if (!f.isDeclaration() &&
        llvm::any_of(llvm::concat<const Type>(f.getArgumentTypes(),
                                              f.getResultTypes()),
                     [](Type t) { return isa<RankedTensorType>(t); }))
      funcs.push_back(f);
  return funcs;
}

/// Why `f`, named as the entry, is not a function on tensors: no body, an
/// unranked tensor, or no tensors at all.
std::string whyNotAGraph(func::FuncOp f) {
  if (f.isDeclaration())
    return "it is a declaration, without a body";
  auto unranked = [](Type t) { return isa<UnrankedTensorType>(t); };
  for (auto [i, t] : llvm::enumerate(f.getArgumentTypes()))
    if (unranked(t))
      return llvm::formatv("argument {0} is an unranked tensor ({1}): give "
                           "the graph ranked tensor types (dynamic "
                           "dimensions compile with --buckets)",
                           i, t);
  for (auto [i, t] : llvm::enumerate(f.getResultTypes()))
    if (unranked(t))
      return llvm::formatv("result {0} is an unranked tensor ({1}): give "
                           "the graph ranked tensor types",
                           i, t);
  return "it takes and returns no tensors (the compiler takes a graph on "
         "tensors, before bufferization)";
}

/// Fails with an error at the argument or the function where `graph` takes
/// or returns a tensor with no elements: an executable's tensors hold at
/// least one.
LogicalResult checkNotEmpty(func::FuncOp graph) {
  auto empty = [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && llvm::is_contained(tensor.getShape(), 0);
  };
  for (BlockArgument arg : graph.getArguments())
    if (empty(arg.getType()))
      return emitError(arg.getLoc())
             << "neuron-compile: argument " << arg.getArgNumber() << " ("
             << arg.getType()
             << ") has no elements; an executable's tensors hold at least "
                "one (drop the input from the graph)";
  for (auto [i, t] : llvm::enumerate(graph.getResultTypes()))
    if (empty(t))
      return graph.emitError()
             << "neuron-compile: result " << i << " (" << t
             << ") has no elements; an executable's tensors hold at least "
                "one (drop the result from the graph)";
  return success();
}

/// Removes host-side instrumentation from the graph, saying so: calls to
/// external functions on scalars (timers) and what only consumes their
/// results (arithmetic, vector.print). They touch no tensor, so the device
/// program is the same without them.
void stripInstrumentation(func::FuncOp graph) {
  llvm::SetVector<Operation *> dead;
  graph.walk([&](func::CallOp call) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    bool scalar = llvm::none_of(
        llvm::concat<const Type>(call.getOperandTypes(), call.getResultTypes()),
        [](Type t) { return isa<ShapedType>(t); });
    if (callee && callee.isDeclaration() && scalar)
      dead.insert(call);
  });
  // Users of removed results go too (the timing arithmetic and its print).
  for (size_t i = 0; i < dead.size(); ++i)
    for (Operation *user : dead[i]->getUsers())
      if (llvm::none_of(user->getResultTypes(),
                        [](Type t) { return isa<ShapedType>(t); }))
        dead.insert(user);
  if (dead.empty())
    return;
  std::map<std::string, int> counts;
  for (Operation *op : dead)
    ++counts[op->getName().getStringRef().str()];
  InFlightDiagnostic note = emitWarning(graph.getLoc())
                            << "neuron-compile: removed host-side "
                               "instrumentation:";
  for (auto &[name, count] : counts)
    note << " " << name << " x" << count;
  for (Operation *op : llvm::reverse(dead))
    if (op->use_empty())
      op->erase();
}

/// The one function to compile (`entry`, or the only one on tensors), with
/// every other function with a body and every declaration nothing calls any
/// more removed, and its instrumentation stripped; failure after an error
/// naming the candidates.
FailureOr<func::FuncOp> selectGraph(ModuleOp module, StringRef entry) {
  SmallVector<func::FuncOp> candidates;
  for (func::FuncOp f : graphFunctions(module))
    if (entry.empty() || f.getName() == entry)
      candidates.push_back(f);
  if (auto named = module.lookupSymbol<func::FuncOp>(entry);
      named && candidates.empty())
    return named.emitError() << "neuron-compile: cannot compile @" << entry
                             << ": " << whyNotAGraph(named);
  if (candidates.size() != 1) {
    InFlightDiagnostic error =
        module.emitError("neuron-compile: expected one function to compile");
    if (entry.empty())
      error << " (choose one with entry=, --entry in the driver)";
    else
      error << " named @" << entry;
    error << ", found " << candidates.size() << "; functions on tensors:";
    for (func::FuncOp f : graphFunctions(module))
      error << " @" << f.getName();
    return failure();
  }
  func::FuncOp graph = candidates.front();
  if (failed(checkNotEmpty(graph)))
    return failure();
  // The user kernels the graph launches stay (neuron-bind-kernels).
  llvm::StringSet<> used;
  if (std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(graph))
    for (const SymbolTable::SymbolUse &use : *uses)
      used.insert(use.getSymbolRef().getRootReference().getValue());
  for (func::FuncOp f :
       llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (f != graph && !f.isDeclaration() &&
        !(f->hasAttr("neuron.kernel") && used.contains(f.getSymName())))
      f.erase();
  stripInstrumentation(graph);
  for (func::FuncOp f :
       llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (f.isDeclaration() && SymbolTable::symbolKnownUseEmpty(f, module))
      f.erase();
  return graph;
}

/// Whether `module` binds ops to user kernels in the graph itself.
bool hasKernelBindings(ModuleOp module) {
  return module
      ->walk([](Operation *op) {
        return op->hasAttr(NeuronDialect::kCustomKernelAttrName) ||
                       op->hasAttr(nisa::NisaDialect::kImplements)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

bool hasShardOps(ModuleOp module) {
  return module
      ->walk([](Operation *op) {
        return op->getDialect() && op->getDialect()->getNamespace() == "shard"
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// A hash of `module` as the pass receives it, recorded in the executable
/// as the compiled input's: of its generic form without locations, so the
/// same graph has the same hash however it was read or named.
std::string moduleHash(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  // Flags of their own, not the command line's (--mlir-print-debuginfo,
  // --mlir-elide-elementsattrs-if-larger...): every attribute in full, no
  // locations.
  module->print(os, OpPrintingFlags(std::nullopt).printGenericOpForm());
  return llvm::utohexstr(llvm::xxh3_64bits(llvm::arrayRefFromStringRef(text)));
}

/// Replaces the contents of `module` (body and attributes) by `from`'s.
void replaceModuleContents(ModuleOp module, ModuleOp from) {
  module.getBody()->clear();
  module.getBody()->getOperations().splice(module.getBody()->end(),
                                           from.getBody()->getOperations());
  module->setAttrs(from->getAttrDictionary());
}

struct NeuronCompilePass
    : public mlir::neuron::impl::NeuronCompileBase<NeuronCompilePass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    OpPassManager pm(ModuleOp::getOperationName());
    buildShardPipeline(pm, ShardPipelineOptions());
    buildImportPipeline(pm, ImportPipelineOptions());
    addKernelPipeline(pm, "");
    pm.addPass(createNeuronAnnotateTensorParallel());
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The module then holds the kernels, not the graph.
    if (failed(compile(module)))
      signalPassFailure();
  }

private:
  /// Adds neuron-kernels with this pass's options to `pm`.
  void addKernelPipeline(OpPassManager &pm, StringRef reportPath) const {
    KernelPipelineOptions kernels;
    kernels.fallback = fallback;
    kernels.report = reportPath.str();
    kernels.optLevel = optLevel;
    kernels.buffers = buffers;
    kernels.tuningCache = tuningCache;
    kernels.collectiveChunks = collectiveChunks;
    buildKernelPipeline(pm, kernels);
  }

  LogicalResult compile(ModuleOp module);
  FailureOr<std::vector<uint8_t>> compileGraph(ModuleOp module,
                                               const LoadedTarget &loaded,
                                               const std::string &inputHash);
  LogicalResult compileBuckets(ModuleOp module, const LoadedTarget &loaded,
                               const std::string &inputHash);
  FailureOr<bool> partition(ModuleOp module);
  /// `buckets` increasing, each once.
  std::vector<int64_t> bucketSizes() const {
    std::vector<int64_t> sizes(buckets.begin(), buckets.end());
    llvm::sort(sizes);
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
  }
  LogicalResult writeExecutable(ModuleOp module,
                                const std::vector<uint8_t> &executable);
};

/// Whether `type` is a tensor with a dynamic dimension.
bool isDynamicTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && !tensor.hasStaticShape();
}

/// Failure after an error suggesting buckets when a graph `neuron-compile`
/// could compile (`entry`, or any function on tensors) takes an argument of
/// dynamic shape.
LogicalResult refuseDynamicArguments(ModuleOp module, StringRef entry) {
  for (func::FuncOp f : graphFunctions(module)) {
    if (!entry.empty() && f.getName() != entry)
      continue;
    for (Type type : f.getArgumentTypes())
      if (isDynamicTensor(type))
        return f.emitError("neuron-compile: @")
               << f.getName() << " takes " << type
               << ", whose dynamic dimensions (a variable length) the device "
                  "cannot take: compile one program per length with buckets "
                  "(--buckets=128,256,512 in the driver, buckets= in the "
                  "pass), and the runtime pads each input to the smallest "
                  "bucket holding it";
  }
  return success();
}

/// The executable's `buckets` record (but its sizes and programs) from the
/// `neuron.length` neuron-specialize-length leaves on the graph.
nlohmann::json bucketRecord(DictionaryAttr length, double pad) {
  auto dims = [&](StringRef field) {
    nlohmann::json list = nlohmann::json::array();
    for (Attribute pair : length.getAs<ArrayAttr>(field)) {
      auto values = cast<ArrayAttr>(pair).getValue();
      list.push_back({{"index", cast<IntegerAttr>(values[0]).getInt()},
                      {"dim", cast<IntegerAttr>(values[1]).getInt()}});
    }
    return list;
  };
  nlohmann::json record = {
      {"inputs", dims("inputs")}, {"outputs", dims("results")}, {"pad", pad}};
  if (auto argument = length.getAs<IntegerAttr>("length_argument"))
    record["length_input"] = argument.getInt();
  return record;
}

/// Partitions `module`, annotated by neuron-annotate-tensor-parallel, with
/// neuron-shard; whether it was partitioned. When nothing can be split or
/// partitioning fails, the module is the graph as it was before the
/// annotation, with a warning saying why it builds for one core; failure
/// only when annotating fails.
FailureOr<bool> NeuronCompilePass::partition(ModuleOp module) {
  OwningOpRef<ModuleOp> whole = module.clone();
  OpPassManager annotatePm(ModuleOp::getOperationName());
  // Sharding reads linalg: a TOSA graph is lowered first.
  annotatePm.addPass(createNeuronLowerTosa());
  NeuronAnnotateTensorParallelOptions annotate;
  annotate.cores = tensorParallel;
  annotate.summary = true;
  annotatePm.addPass(createNeuronAnnotateTensorParallel(annotate));
  if (failed(runPipeline(annotatePm, module)))
    return failure();
  bool annotated = false;
  module.walk([&](shard::ShardOp) { annotated = true; });
  if (!annotated) {
    // Nothing could be split (the remark says why): one core.
    for (auto grid : llvm::make_early_inc_range(module.getOps<shard::GridOp>()))
      grid.erase();
    emitWarning(module.getLoc())
        << "neuron-compile: tensor-parallel=" << int64_t(tensorParallel)
        << ": nothing of the graph could be split; compiling it for one core";
    return false;
  }
  // Partitioning's diagnostics are held back: on failure the first error
  // says why the graph builds for one core instead; on success the
  // warnings and remarks are given as they were.
  std::string firstError;
  std::vector<std::tuple<Location, DiagnosticSeverity, std::string>> kept;
  LogicalResult partitioned = success();
  {
    ScopedDiagnosticHandler held(&getContext(), [&](Diagnostic &d) {
      if (d.getSeverity() != DiagnosticSeverity::Error) {
        kept.emplace_back(d.getLocation(), d.getSeverity(), d.str());
      } else if (firstError.empty()) {
        llvm::raw_string_ostream os(firstError);
        if (auto file = dyn_cast<FileLineColLoc>(d.getLocation()))
          os << file.getFilename().getValue() << ":" << file.getLine() << ":"
             << file.getColumn() << ": ";
        os << d;
      }
      return success();
    });
    OpPassManager shardPm(ModuleOp::getOperationName());
    buildShardPipeline(shardPm, ShardPipelineOptions());
    partitioned = runPipeline(shardPm, module);
  }
  if (succeeded(partitioned)) {
    for (auto &[loc, severity, message] : kept)
      getContext().getDiagEngine().emit(loc, severity) << message;
    return true;
  }
  emitWarning(module.getLoc())
      << "neuron-compile: tensor-parallel=" << int64_t(tensorParallel)
      << ": partitioning failed ("
      << (firstError.empty() ? "no diagnostic" : firstError)
      << "); compiling the graph for one core";
  replaceModuleContents(module, *whole);
  return false;
}

LogicalResult NeuronCompilePass::compile(ModuleOp module) {
  if (output.empty())
    return module.emitError(
        "neuron-compile: no output: give the executable's path (output=FILE, "
        "or '-' for standard output)");
  if (failed(checkFallbackPolicy(module, "neuron-compile", fallback)))
    return failure();
  std::string inputHash = moduleHash(module);
  // Every pass reads the target from the module: `target`, or the one the
  // module names (neuron.target), which `target` must then agree with.
  FailureOr<LoadedTarget> loaded =
      loadTarget(module, "neuron-compile", target, /*dir=*/"");
  if (failed(loaded))
    return failure();
  setModuleTarget(module, loaded->target);

  if (!buckets.empty())
    return compileBuckets(module, *loaded, inputHash);
  if (failed(refuseDynamicArguments(module, entry)))
    return failure();
  FailureOr<std::vector<uint8_t>> executable =
      compileGraph(module, *loaded, inputHash);
  if (failed(executable))
    return failure();
  return writeExecutable(module, *executable);
}

/// Compiles the graph in `module` (its target set) to an executable's bytes:
/// partitioning, import, kernels, emission.
FailureOr<std::vector<uint8_t>>
NeuronCompilePass::compileGraph(ModuleOp module, const LoadedTarget &loaded,
                                const std::string &inputHash) {
  // Partitioning sees every function: keep only the graph (helpers
  // inlined, harness and instrumentation gone) before it runs.
  bool sharded = hasShardOps(module);
  if (tensorParallel > 0 || sharded) {
    if (!kernelLibrary.empty() || hasKernelBindings(module))
      return module.emitError(
          "neuron-compile: user kernels cannot be combined with "
          "tensor-parallel partitioning yet (the partitioner cannot split a "
          "user kernel); compile for one core, or drop the kernel bindings");
    OpPassManager inlinePm(ModuleOp::getOperationName());
    inlinePm.addPass(createInlinerPass());
    if (failed(runPipeline(inlinePm, module)) ||
        failed(selectGraph(module, entry)))
      return failure();
  }
  bool partitioned = false;
  if (tensorParallel > 0) {
    FailureOr<bool> split = partition(module);
    if (failed(split))
      return failure();
    partitioned = *split;
  }

  // Import, with a graph the user annotated with upstream `shard`
  // partitioned first: each core's program on its shards, with collectives
  // between them.
  OpPassManager importPm(ModuleOp::getOperationName());
  if (!partitioned && sharded)
    buildShardPipeline(importPm, ShardPipelineOptions());
  ImportPipelineOptions import;
  import.kernelLibrary = kernelLibrary;
  buildImportPipeline(importPm, import);
  if (failed(runPipeline(importPm, module)))
    return failure();
  FailureOr<func::FuncOp> selected = selectGraph(module, entry);
  if (failed(selected))
    return failure();
  // Tiling replaces the function by its kernel: keep the name, not the op.
  std::string kernelName = selected->getName().str();
  // Beside the executable; when that goes to standard output, to a
  // temporary file removed after the executable has taken its totals.
  std::string reportPath = !report.empty() ? std::string(report)
                                           : output + ".coverage.json";
  std::optional<llvm::FileRemover> temporaryReport;
  if (report.empty() && output == "-") {
    llvm::SmallString<128> path;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "neuron-coverage", "json", path))
      return module.emitError("neuron-compile: cannot create a temporary "
                              "coverage report: ")
             << ec.message();
    reportPath = path.str().str();
    temporaryReport.emplace(reportPath);
  }
  OpPassManager kernelPm(ModuleOp::getOperationName());
  addKernelPipeline(kernelPm, reportPath);
  if (failed(runPipeline(kernelPm, module)))
    return failure();

  ExecutableInfo info;
  info.targetSpec = loaded.target.spec();
  info.inputHash = inputHash;
  info.options = "target=" + info.targetSpec + " fallback=" + fallback +
                 " O" + std::to_string(optLevel) +
                 " buffers=" + std::to_string(buffers) +
                 (kernelLibrary.empty()
                      ? std::string()
                      : " kernel-library=" + kernelLibraryName(kernelLibrary)) +
                 (tensorParallel > 0
                      ? " tensor-parallel=" + std::to_string(tensorParallel)
                      : std::string()) +
                 (tuningCache.empty() ? std::string() : " tuned") +
                 (collectiveChunks != 0
                      ? " collective-chunks=" + std::to_string(collectiveChunks)
                      : std::string());
  if (!buckets.empty()) {
    std::vector<int64_t> sizes = bucketSizes();
    info.options += " buckets=";
    for (auto [i, size] : llvm::enumerate(sizes))
      info.options += (i ? "," : "") + std::to_string(size);
    info.options += " bucket-pad=" + llvm::formatv("{0}", double(bucketPad)).str();
  }
  // The pipeline as run, without the report's path: the same graph and
  // options give the same bytes wherever they are written.
  OpPassManager recorded(ModuleOp::getOperationName());
  addKernelPipeline(recorded, "");
  llvm::raw_string_ostream pipeline(info.pipeline);
  importPm.printAsTextualPipeline(pipeline);
  pipeline << ",";
  recorded.printAsTextualPipeline(pipeline);
  if (auto text = llvm::MemoryBuffer::getFile(reportPath)) {
    auto json =
        nlohmann::json::parse((*text)->getBuffer().str(), nullptr, false);
    if (!json.is_discarded() && json.contains("totals"))
      info.coverageTotals = json["totals"].dump();
  }
  return buildExecutable(module, kernelName, info);
}

/// Compiles one program per bucket size, each on the graph given that size
/// by neuron-specialize-length, into one executable.
LogicalResult NeuronCompilePass::compileBuckets(ModuleOp module,
                                                const LoadedTarget &loaded,
                                                const std::string &inputHash) {
  std::vector<int64_t> sizes = bucketSizes();
  if (sizes.front() < 1)
    return module.emitError("neuron-compile: bucket sizes must be at least 1, "
                            "found ")
           << sizes.front();
  // The graph alone, on linalg (neuron-specialize-length reads it).
  OpPassManager prepare(ModuleOp::getOperationName());
  prepare.addPass(createInlinerPass());
  prepare.addPass(createNeuronLowerTosa());
  if (failed(runPipeline(prepare, module)))
    return failure();
  FailureOr<func::FuncOp> graph = selectGraph(module, entry);
  if (failed(graph))
    return failure();
  std::string name = graph->getName().str();
  OwningOpRef<ModuleOp> original = module.clone();
  std::vector<::neuron::rt::BucketExecutable> built;
  nlohmann::json record;
  for (int64_t size : sizes) {
    OwningOpRef<ModuleOp> copy = original->clone();
    replaceModuleContents(module, *copy);
    OpPassManager specialize(ModuleOp::getOperationName());
    NeuronSpecializeLengthOptions options;
    options.length = size;
    options.entry = name;
    specialize.addPass(createNeuronSpecializeLength(options));
    if (failed(runPipeline(specialize, module)))
      return failure();
    auto specialized = module.lookupSymbol<func::FuncOp>(name);
    if (built.empty())
      record = bucketRecord(
          specialized->getAttrOfType<DictionaryAttr>("neuron.length"),
          bucketPad);
    FailureOr<std::vector<uint8_t>> executable =
        compileGraph(module, loaded, inputHash);
    if (failed(executable))
      return failure();
    built.push_back({size, std::move(*executable)});
  }
  absl::StatusOr<std::vector<uint8_t>> merged =
      ::neuron::rt::mergeBuckets(built, record);
  if (!merged.ok())
    return module.emitError("neuron-compile: ")
           << std::string(merged.status().message());
  return writeExecutable(module, *merged);
}

LogicalResult
NeuronCompilePass::writeExecutable(ModuleOp module,
                                   const std::vector<uint8_t> &executable) {
  if (output == "-") {
    llvm::outs().write(reinterpret_cast<const char *>(executable.data()),
                       executable.size());
    llvm::outs().flush();
    return success();
  }
  // Through a temporary file: an earlier executable at the path stays as
  // it was when the write fails.
  if (absl::Status written =
          ::neuron::rt::writeBinaryFile(output, executable, "executable");
      !written.ok())
    return module.emitError("neuron-compile: ")
           << std::string(written.message());
  return success();
}

} // namespace

LogicalResult mlir::neuron::runNeuronCompile(ModuleOp module,
                                             StringRef options) {
  // The pass itself, not its registration: callers need not register it.
  std::unique_ptr<Pass> pass = createNeuronCompile();
  std::string error;
  if (failed(pass->initializeOptions(options, [&](const Twine &message) {
        error = message.str();
        return failure();
      })))
    // The parser's first line says what is wrong.
    return module.emitError("neuron-compile: bad options '")
           << options << "': " << StringRef(error).split('\n').first;
  PassManager pm(module.getContext());
  pm.addPass(std::move(pass));
  return pm.run(module);
}
