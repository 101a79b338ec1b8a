//===- neuron-compile.cpp - the compiler driver ---------------------------===//
//
//   neuron-compile IN.mlir --target=NAME -o OUT.nxe [--fallback=error|
//                  decompose|host] [-O0..-O3] [--entry=F]
//                  [--dump-ir-after-each=DIR]
//
// A thin main around the neuron-compile pass (lowering/Pipelines/
// Compile.cpp), which runs the whole pipeline on a frontend graph: import
// (TOSA or linalg), coverage against the target generation (writing
// OUT.coverage.json), tiling into nisa kernels, allocation, and emission of
// the executable. The driver adds MLIR's pass-manager options, the IR dump
// and, on a terminal, progress.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"
#include "lowering/Pipelines/Pipelines.h"
#include "tools/neuron-compile/Cache.h"

#include "NeuronVersion.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <optional>

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
static cl::opt<int64_t> collectiveChunks(
    "collective-chunks",
    cl::desc("Split each row-parallel matmul and its all-reduce into this "
             "many row chunks, so each chunk's all-reduce overlaps the next "
             "chunks' arithmetic (neuron-decompose-collectives); 0 chooses "
             "with the cost models (split only where predicted faster), 1 "
             "never splits"),
    cl::init(0), cl::cat(compileCategory));
static cl::opt<std::string> kernelLibrary(
    "kernel-library",
    cl::desc("A folder of .mlir files holding user nisa kernels, bound to "
             "the graph's ops by their nisa.implements (see "
             "neuron-bind-kernels)"),
    cl::value_desc("DIR"), cl::cat(compileCategory));
static cl::opt<std::string> tuningCache(
    "tuning-cache",
    cl::desc("Choose each matmul's plan by compiling and scheduling its best "
             "few plans alone, and record the choices in this folder (one "
             "file per op signature and target); later compiles read them "
             "instead of searching"),
    cl::value_desc("DIR"), cl::cat(compileCategory));
static cl::list<int64_t> buckets(
    "buckets",
    cl::desc("Sizes of the graph's variable length (the dynamic dimensions "
             "of its arguments, as exporters write a sequence length): one "
             "program per size in one executable; the runtime pads an input "
             "to the smallest bucket holding it"),
    cl::value_desc("N,N,..."), cl::CommaSeparated, cl::cat(compileCategory));
static cl::opt<double> bucketPad(
    "bucket-pad",
    cl::desc("The value the runtime pads an input's positions past its "
             "length with (default 0)"),
    cl::init(0.0), cl::cat(compileCategory));
static cl::opt<std::string> cacheDir(
    "cache-dir",
    cl::desc("Keep compiles in this folder and reuse them when the input, "
             "options, compiler and target files are the same (default: "
             "$NEURON_CACHE_DIR; none without it)"),
    cl::value_desc("DIR"), cl::cat(compileCategory));
static cl::opt<uint64_t> cacheMaxMiB(
    "cache-max-mib",
    cl::desc("Bound the cache to this many MiB, evicting the least recently "
             "used compiles"),
    cl::init(1024), cl::cat(compileCategory));
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
/// ("neuron-compile: [7] nisa-schedule", "[4] convert-linalg-to-neuron
/// @forward" for a pass on one function), and the time it took at the end;
/// nothing when standard error is not a terminal.
class Progress : public PassInstrumentation {
public:
  Progress() : shown(llvm::sys::Process::StandardErrIsDisplayed()) {}

  /// Reports the stages `pm` runs (neuron-compile's) as they start.
  void watch(PassManager &pm) {
    if (shown)
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
      StringRef name = pass->getArgument();
      // The compile itself is the stages it runs; an adaptor running
      // passes on functions (it has no argument) shows as those passes,
      // each with its function.
      if (name == "neuron-compile" || name.empty())
        return;
      to.clear();
      llvm::errs() << "neuron-compile: [" << ++to.done << "] " << name;
      if (auto symbol = dyn_cast<SymbolOpInterface>(op))
        llvm::errs() << " @" << symbol.getName();
      to.onLine = true;
    }
    Progress &to;
  };

  bool shown, onLine = false;
  int64_t done = 0;
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
};
} // namespace

/// Writes to standard error and keeps a copy.
class TeeStream : public llvm::raw_ostream {
public:
  explicit TeeStream(std::string &copy) : copy(copy) { SetUnbuffered(); }

private:
  void write_impl(const char *data, size_t size) override {
    llvm::errs().write(data, size);
    copy.append(data, size);
  }
  uint64_t current_pos() const override { return copy.size(); }
  std::string &copy;
};

/// The first --mlir-* option given (IR printing, timing, statistics...),
/// or "".
static std::string mlirOptionGiven() {
  for (auto &[name, option] : cl::getRegisteredOptions())
    if (name.starts_with("mlir-") && option->getNumOccurrences())
      return name.str();
  return "";
}

/// The options that decide what a compile makes, as the cache keys them.
static std::string optionsText() {
  std::string sizes;
  for (int64_t size : buckets)
    sizes += (sizes.empty() ? "" : ",") + std::to_string(size);
  return llvm::formatv("target={0} fallback={1} entry={2} O{3} buffers={4} "
                       "tensor-parallel={5}{6} buckets={7} bucket-pad={8} "
                       "collective-chunks={9}",
                       target.getNumOccurrences() ? target.getValue() : "",
                       fallback.getValue(), entry.getValue(),
                       static_cast<int>(optLevel.getValue()),
                       buffers.getValue(), tensorParallel.getValue(),
                       tuningCache.empty() ? "" : " tuned", sizes,
                       bucketPad.getValue(), collectiveChunks.getValue())
      .str();
}

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

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputFile, &error);
  if (!input)
    return fail(error);
  Progress progress;

  // A compile of the same input with the same options by the same compiler
  // is replayed from the cache (not with -o -, or when the IR is dumped:
  // both need the compile itself).
  // Where the coverage report goes, which the cache stores and replays
  // (the pass writes none beside standard output).
  std::string reportPath = outputFile + ".coverage.json";
  std::string dir = cacheDir.getNumOccurrences()
                        ? cacheDir.getValue()
                        : std::string(llvm::sys::Process::GetEnv(
                                          "NEURON_CACHE_DIR")
                                          .value_or(""));
  std::optional<::neuron::rt::CompileCache> cache;
  std::string printing = mlirOptionGiven();
  if (!dir.empty() && !printing.empty())
    llvm::errs() << "neuron-compile: compiling without the cache: --"
                 << printing << " shows what a replayed compile would not\n";
  else if (!dir.empty() && outputFile != "-" && dumpDir.empty())
    cache = ::neuron::driver::openCache(dir, cacheMaxMiB);
  ::neuron::rt::CacheKey key;
  if (cache) {
    key = ::neuron::driver::compileKey(input->getBuffer(), inputFile,
                                       optionsText(), kernelLibrary);
    switch (::neuron::driver::replayHit(*cache, key, outputFile, reportPath)) {
    case ::neuron::driver::Replay::Done:
      progress.finish(outputFile);
      return 0;
    case ::neuron::driver::Replay::Failed:
      return 1;
    case ::neuron::driver::Replay::Miss:
      break;
    }
  }

  DialectRegistry registry;
  mlir::neuron::registerAllNeuronDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics carry source locations; a whole graph after each is noise.
  context.printOpOnDiagnostic(false);

  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  // Diagnostics go to standard error and, for the cache to replay them on
  // a hit, to `log`.
  std::string log;
  TeeStream diagnostics(log);
  SourceMgrDiagnosticHandler handler(sources, &context, diagnostics);
  // A diagnostic starts on a clean line, then the handler above prints it.
  context.getDiagEngine().registerHandler([&](Diagnostic &) {
    progress.clear();
    return failure();
  });
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &context);
  if (!module)
    return 1;
  // The whole compile is one pass (neuron-compile), which neuron-opt and
  // the C API run the same way.
  mlir::neuron::NeuronCompileOptions options;
  if (target.getNumOccurrences())
    options.target = target;
  options.fallback = fallback;
  options.entry = entry;
  options.optLevel = static_cast<int64_t>(optLevel.getValue());
  options.buffers = buffers;
  options.tensorParallel = tensorParallel;
  options.collectiveChunks = collectiveChunks;
  options.kernelLibrary = kernelLibrary;
  options.tuningCache = tuningCache;
  options.buckets.assign(buckets.begin(), buckets.end());
  options.bucketPad = bucketPad;
  options.output = outputFile;
  if (outputFile != "-")
    options.report = reportPath;
  PassManager pm(&context);
  pm.addPass(mlir::neuron::createNeuronCompile(options));
  // MLIR's pass-manager options (--mlir-timing, IR printing, statistics,
  // crash reproducers) apply to the stages it runs too.
  if (failed(applyPassManagerCLOptions(pm)))
    return 1;
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope compileTime = timing.getRootScope();
  pm.enableTiming(compileTime);
  progress.watch(pm);
  if (!dumpDir.empty())
    dumpIrAfterEachPass(pm);
  if (failed(pm.run(*module)))
    return 1;
  if (cache)
    ::neuron::driver::storeCompile(*cache, key, outputFile, reportPath, log);
  progress.finish(outputFile);
  return 0;
}
