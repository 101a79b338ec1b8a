//===- neuron-compile.cpp - the compiler driver ---------------------------===//
//
//   neuron-compile IN.mlir --target=NAME -o OUT.nxe [--fallback=error|
//                  decompose|host] [-O0..-O3] [--entry=F]
//                  [--dump-ir-after-each=DIR]
//
// Runs the whole pipeline on a frontend graph: import (TOSA or linalg),
// coverage against the target generation (writing OUT.coverage.json), tiling
// into nisa kernels, allocation, and emission of the executable.
//
//===----------------------------------------------------------------------===//

#include "lowering/NisaToExecutable/NisaToExecutable.h"
#include "lowering/Passes.h"
#include "lowering/Pipelines/Pipelines.h"
#include "passes/Passes.h"
#include "passes/TargetLoading.h"
#include "runtime/format/FileIO.h"

#include "NeuronVersion.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <map>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory compileCategory("neuron-compile options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::Required, cl::cat(compileCategory));
static cl::opt<std::string> outputFile("o", cl::desc("Output executable"),
                                       cl::value_desc("OUT.nxe"),
                                       cl::Required, cl::cat(compileCategory));
static cl::opt<std::string> target("target",
                                   cl::desc("Chip or instance, ',lnc=N'"),
                                   cl::init("trn2"), cl::cat(compileCategory));
static cl::opt<std::string>
    fallback("fallback", cl::desc("error, decompose or host"),
             cl::init("decompose"), cl::cat(compileCategory));
static cl::opt<std::string> entry("entry",
                                  cl::desc("The function to compile"),
                                  cl::init(""), cl::cat(compileCategory));
static cl::opt<std::string>
    dumpDir("dump-ir-after-each",
            cl::desc("Write the IR after each pass under this folder"),
            cl::value_desc("DIR"), cl::cat(compileCategory));
static cl::opt<int64_t> buffers(
    "buffers",
    cl::desc("How many buffers each streaming SBUF/PSUM tile rotates through "
             "(transfers in flight ahead of the engines; fewer when a kernel "
             "would not fit)"),
    cl::init(16), cl::cat(compileCategory));
static cl::opt<int64_t> tensorParallel(
    "tensor-parallel",
    cl::desc("Shard the graph's projections over this many logical cores "
             "(column- then row-parallel; neuron-annotate-tensor-parallel) "
             "before partitioning; 0 keeps the graph as it is"),
    cl::init(0), cl::cat(compileCategory));
enum OptLevel { O0, O1, O2, O3 };
static cl::opt<OptLevel> optLevel(
    cl::desc("Optimisation level"),
    cl::values(clEnumVal(O0, "no cleanup between stages"),
               clEnumVal(O1, "canonicalize before tiling"),
               clEnumVal(O2, "the default (as O1 for now)"),
               clEnumVal(O3, "as O2 for now")),
    cl::init(O2), cl::cat(compileCategory));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "neuron-compile: error: " << message << "\n";
  return 1;
}

/// Makes `pm` write the IR after each of its passes under --dump-ir-after-each.
static void dumpIrAfterEachPass(PassManager &pm) {
  pm.getContext()->disableMultithreading(); // IR printing needs one thread
  pm.enableIRPrintingToFileTree(
      [](Pass *, Operation *) { return false; },
      [](Pass *, Operation *) { return true; }, /*printModuleScope=*/true,
      /*printAfterOnlyOnChange=*/false, /*printAfterOnlyOnFailure=*/false,
      dumpDir);
}

/// Partitions `module`, annotated by neuron-annotate-tensor-parallel, with
/// the neuron-shard pipeline; false when that fails. Its diagnostics are
/// held back: the first error goes to `firstError`, for a warning that says
/// why the graph builds for one core instead.
static bool partitionAnnotated(ModuleOp module, std::string &firstError) {
  MLIRContext *context = module.getContext();
  ScopedDiagnosticHandler held(context, [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error && firstError.empty()) {
      llvm::raw_string_ostream os(firstError);
      if (auto file = dyn_cast<FileLineColLoc>(d.getLocation()))
        os << file.getFilename().getValue() << ":" << file.getLine() << ":"
           << file.getColumn() << ": ";
      os << d;
    }
    return success();
  });
  PassManager pm(context);
  mlir::neuron::buildShardPipeline(pm, mlir::neuron::ShardPipelineOptions());
  if (!dumpDir.empty())
    dumpIrAfterEachPass(pm);
  if (succeeded(pm.run(module)))
    return true;
  if (firstError.empty())
    firstError = "no diagnostic";
  return false;
}

/// The functions of `module` with a body that take or return tensors.
static SmallVector<func::FuncOp> graphFunctions(ModuleOp module) {
  SmallVector<func::FuncOp> funcs;
  for (func::FuncOp f : module.getOps<func::FuncOp>())
    if (!f.isDeclaration() &&
        llvm::any_of(llvm::concat<const Type>(f.getArgumentTypes(),
                                              f.getResultTypes()),
                     [](Type t) { return isa<RankedTensorType>(t); }))
      funcs.push_back(f);
  return funcs;
}

/// Removes host-side instrumentation from the graph, saying so: calls to
/// external functions on scalars (timers) and what only consumes their
/// results (arithmetic, vector.print). They touch no tensor, so the device
/// program is the same without them.
static void stripInstrumentation(func::FuncOp graph) {
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

/// The one function to compile (`--entry`, or the only one on tensors),
/// with every other function with a body and every declaration nothing
/// calls any more removed, and its instrumentation stripped; failure after
/// an error naming the candidates.
static FailureOr<func::FuncOp> selectGraph(ModuleOp module) {
  SmallVector<func::FuncOp> candidates;
  for (func::FuncOp f : graphFunctions(module))
    if (entry.empty() || f.getName() == entry)
      candidates.push_back(f);
  if (candidates.size() != 1) {
    std::string names;
    for (func::FuncOp f : graphFunctions(module))
      names += " @" + f.getName().str();
    fail("expected one function to compile" +
         (entry.empty() ? std::string(" (choose one with --entry)")
                        : " named @" + entry) +
         ", found " + std::to_string(candidates.size()) +
         "; functions on tensors:" + names);
    return failure();
  }
  func::FuncOp graph = candidates.front();
  for (func::FuncOp f :
       llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (f != graph && !f.isDeclaration())
      f.erase();
  stripInstrumentation(graph);
  for (func::FuncOp f :
       llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (f.isDeclaration() && SymbolTable::symbolKnownUseEmpty(f, module))
      f.erase();
  return graph;
}

/// Hides every option but the driver's, MLIR's (--mlir-*) and the generic
/// ones (--help, --version): the LLVM backends' are not this tool's.
static void hideUnrelatedOptions() {
  for (auto &[name, option] : cl::getRegisteredOptions()) {
    bool ours = llvm::is_contained(option->Categories, &compileCategory) ||
                name.starts_with("mlir-") || name.starts_with("help") ||
                name == "version";
    if (!ours)
      option->setHiddenFlag(cl::ReallyHidden);
  }
}

namespace {
/// On a terminal, the stage a compile is at, overwritten in place
/// ("neuron-compile: [7/15] nisa-schedule"), and the time it took at the
/// end; nothing when standard error is not a terminal.
class Progress : public PassInstrumentation {
public:
  Progress() : shown(llvm::sys::Process::StandardErrIsDisplayed()) {}

  /// Counts `pm`'s passes and reports them as they start.
  void watch(PassManager &pm) {
    if (!shown)
      return;
    total += pm.size();
    pm.addInstrumentation(std::make_unique<Forward>(*this));
  }
  /// Clears the stage line (before a diagnostic or the end).
  void clear() {
    if (shown && onLine)
      llvm::errs() << "\r\x1b[K";
    onLine = false;
  }
  void finish(StringRef output) {
    clear();
    if (shown)
      llvm::errs() << llvm::formatv(
          "neuron-compile: wrote {0} in {1:f2} s\n", output,
          std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                        start)
              .count());
  }

private:
  /// The instrumentation the pass manager owns, reporting to the Progress.
  struct Forward : PassInstrumentation {
    explicit Forward(Progress &to) : to(to) {}
    void runBeforePass(Pass *pass, Operation *op) override {
      if (!isa<ModuleOp>(op)) // passes nested in functions: their adaptor
        return;
      StringRef name = pass->getArgument();
      to.clear();
      llvm::errs() << "neuron-compile: [" << ++to.done << "/" << to.total
                   << "] " << (name.empty() ? pass->getName() : name);
      to.onLine = true;
    }
    Progress &to;
  };

  bool shown, onLine = false;
  int64_t total = 0, done = 0;
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
};
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  registerAsmPrinterCLOptions();
  hideUnrelatedOptions();
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "neuron-compile: " << NEURON_VERSION_LINE << "\n";
  });
  cl::ParseCommandLineOptions(argc, argv, "neuron-mlir compiler driver\n");
  if (fallback != "error" && fallback != "decompose" && fallback != "host")
    return fail("unknown fallback policy '" + fallback +
                "'; expected error, decompose or host");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  mlir::neuron::registerNeuronDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics carry source locations; a whole graph after each is noise.
  context.printOpOnDiagnostic(false);

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputFile, &error);
  if (!input)
    return fail(error);
  std::string hash = llvm::utohexstr(llvm::xxh3_64bits(
      llvm::arrayRefFromStringRef(input->getBuffer())));
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sources, &context);
  // A diagnostic starts on a clean line, then the handler above prints it.
  Progress progress;
  context.getDiagEngine().registerHandler([&](Diagnostic &) {
    progress.clear();
    return failure();
  });
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &context);
  if (!module)
    return 1;
  // Every pass reads the target from the module: --target, or the one the
  // module names (neuron.target), which --target must then agree with.
  StringRef given =
      target.getNumOccurrences() ? StringRef(target.getValue()) : StringRef();
  FailureOr<mlir::neuron::LoadedTarget> loaded =
      mlir::neuron::loadTarget(*module, "neuron-compile", given, /*dir=*/"",
                               target.getDefault().getValue());
  if (failed(loaded))
    return 1;
  mlir::neuron::setModuleTarget(*module, loaded->target);
  std::string targetSpec = loaded->target.spec();

  // Import first, then keep only the graph to compile: benchmark harnesses
  // and helpers (inlined by now) are not part of the executable.
  PassManager importPm(&context);
  auto hasShardOps = [&] {
    return module
        ->walk([](Operation *op) {
          return op->getDialect() &&
                         op->getDialect()->getNamespace() == "shard"
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        })
        .wasInterrupted();
  };
  if (tensorParallel > 0 || hasShardOps()) {
    // Partitioning sees every function: keep only the graph (helpers
    // inlined, harness and instrumentation gone) before it runs.
    PassManager inlinePm(&context);
    inlinePm.addPass(createInlinerPass());
    if (failed(inlinePm.run(*module)) || failed(selectGraph(*module)))
      return 1;
  }
  bool partitioned = false;
  if (tensorParallel > 0) {
    // The graph as it is, to build for one core if partitioning fails.
    OwningOpRef<ModuleOp> whole = module->clone();
    PassManager annotatePm(&context);
    // Sharding reads linalg: a TOSA graph is lowered first.
    annotatePm.addPass(mlir::neuron::createNeuronLowerTosa());
    mlir::neuron::NeuronAnnotateTensorParallelOptions annotate;
    annotate.cores = tensorParallel;
    annotate.summary = true;
    annotatePm.addPass(mlir::neuron::createNeuronAnnotateTensorParallel(annotate));
    if (failed(annotatePm.run(*module)))
      return 1;
    bool annotated = false;
    module->walk([&](shard::ShardOp) { annotated = true; });
    if (!annotated) {
      // Nothing could be split (the remark says why): one core.
      for (auto grid : llvm::make_early_inc_range(module->getOps<shard::GridOp>()))
        grid.erase();
      llvm::errs() << "neuron-compile: warning: --tensor-parallel="
                   << tensorParallel
                   << ": nothing of the graph could be split; compiling it "
                      "for one core\n";
    } else {
      std::string firstError;
      partitioned = partitionAnnotated(*module, firstError);
      if (!partitioned) {
        llvm::errs() << "neuron-compile: warning: --tensor-parallel="
                     << tensorParallel << ": partitioning failed (" << firstError
                     << "); compiling the graph for one core\n";
        module = std::move(whole);
      }
    }
  }
  // A graph annotated with upstream `shard` is partitioned first: each
  // core's program on its shards, with collectives between them.
  if (!partitioned && hasShardOps())
    mlir::neuron::buildShardPipeline(importPm, mlir::neuron::ShardPipelineOptions());
  mlir::neuron::ImportPipelineOptions import;
  mlir::neuron::buildImportPipeline(importPm, import);
  std::string report = outputFile + ".coverage.json";
  auto buildKernels = [&](PassManager &p, StringRef reportPath) {
    mlir::neuron::KernelPipelineOptions kernels;
    kernels.fallback = fallback;
    kernels.report = reportPath.str();
    kernels.optLevel = static_cast<int64_t>(optLevel.getValue());
    kernels.buffers = buffers;
    mlir::neuron::buildKernelPipeline(p, kernels);
  };
  PassManager pm(&context);
  buildKernels(pm, report);
  // The executable records the pipeline without the report's path: the same
  // graph and options give the same bytes wherever they are written.
  PassManager recorded(&context);
  buildKernels(recorded, "");
  // MLIR's pass-manager options (--mlir-timing, IR printing, statistics,
  // crash reproducers); one timing report for both pipelines.
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope compileTime = timing.getRootScope();
  for (PassManager *p : {&importPm, &pm}) {
    if (failed(applyPassManagerCLOptions(*p)))
      return 1;
    p->enableTiming(compileTime);
    progress.watch(*p);
    if (!dumpDir.empty())
      dumpIrAfterEachPass(*p);
  }
  if (failed(importPm.run(*module)))
    return 1;
  FailureOr<func::FuncOp> selected = selectGraph(*module);
  if (failed(selected))
    return 1;
  func::FuncOp graph = *selected;
  // Tiling replaces the function by its kernel: keep the name, not the op.
  std::string kernelName = graph.getName().str();
  if (failed(pm.run(*module)))
    return 1;

  mlir::neuron::ExecutableInfo info;
  info.targetSpec = targetSpec;
  info.inputHash = hash;
  info.requireRunnable = true;
  info.options = "target=" + targetSpec + " fallback=" + fallback +
                 " O" + std::to_string(static_cast<int>(optLevel.getValue())) +
                 " buffers=" + std::to_string(buffers) +
                 (tensorParallel > 0
                      ? " tensor-parallel=" + std::to_string(tensorParallel)
                      : std::string());
  llvm::raw_string_ostream pipeline(info.pipeline);
  importPm.printAsTextualPipeline(pipeline);
  pipeline << ",";
  recorded.printAsTextualPipeline(pipeline);
  if (auto text = llvm::MemoryBuffer::getFile(report)) {
    auto json = nlohmann::json::parse((*text)->getBuffer().str(), nullptr,
                                      false);
    if (!json.is_discarded() && json.contains("totals"))
      info.coverageTotals = json["totals"].dump();
  }
  FailureOr<std::vector<uint8_t>> executable =
      mlir::neuron::buildExecutable(*module, kernelName, info);
  if (failed(executable))
    return 1;
  if (outputFile == "-") {
    llvm::outs().write(reinterpret_cast<const char *>(executable->data()),
                       executable->size());
  } else if (absl::Status written = ::neuron::rt::writeBinaryFile(
                 outputFile, *executable, "executable");
             !written.ok()) {
    // The bytes go through a temporary file: an earlier executable at the
    // path stays as it was.
    return fail(std::string(written.message()));
  }
  progress.finish(outputFile);
  return 0;
}
