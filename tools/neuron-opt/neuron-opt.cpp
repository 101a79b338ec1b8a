//===- neuron-opt.cpp - the neuron-mlir optimizer driver ------------------===//
//
// mlir-opt with every upstream dialect and pass plus neuron's, and two
// extras: `--print-target=NAME[,lnc=N]` describes a target from its
// description files, and `--version` names the project revision and MLIR.
//
//===----------------------------------------------------------------------===//

#include "lowering/Pipelines/Pipelines.h"
#include "runtime/target/Target.h"

#include "NeuronVersion.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

static llvm::cl::opt<std::string> printTarget(
    "print-target",
    llvm::cl::desc("Describe a chip (e.g. trainium2) or an instance (e.g. "
                   "trn2.48xlarge), optionally ',lnc=N', and exit"),
    llvm::cl::value_desc("NAME[,lnc=N]"));

static llvm::cl::opt<std::string> targetDir(
    "target-dir",
    llvm::cl::desc("Read target descriptions from this folder instead of the "
                   "built-in ones"),
    llvm::cl::value_desc("DIR"));

/// Prints the target report; returns the process exit code.
static int runPrintTarget() {
  absl::StatusOr< ::neuron::rt::TargetRegistry> registry =
      targetDir.empty() ? ::neuron::rt::TargetRegistry::loadBuiltin()
                        : ::neuron::rt::TargetRegistry::loadDirectory(targetDir);
  if (!registry.ok()) {
    llvm::errs() << "neuron-opt: error: " << std::string(registry.status().message())
                 << "\n";
    return 1;
  }
  absl::StatusOr< ::neuron::rt::ResolvedTarget> target =
      registry->resolve(printTarget);
  if (!target.ok()) {
    llvm::errs() << "neuron-opt: error: " << std::string(target.status().message()) << "\n";
    return 1;
  }
  llvm::outs() << ::neuron::rt::formatTargetReport(*target);
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  registerAllPasses();
  mlir::neuron::registerNeuronPassesAndPipelines();
  DialectRegistry registry;
  mlir::neuron::registerAllNeuronDialects(registry);

  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << NEURON_VERSION_LINE << "\n";
  });
  auto [inputFile, outputFile] =
      registerAndParseCLIOptions(argc, argv, "neuron-mlir optimizer", registry);
  if (!printTarget.empty())
    return runPrintTarget();
  return asMainReturnCode(MlirOptMain(argc, argv, inputFile, outputFile,
                                      registry));
}
