//===- NisaToExecutable.h - nisa kernels to an executable ------*- C++ -*-===//

#ifndef NEURON_LOWERING_NISATOEXECUTABLE_NISATOEXECUTABLE_H
#define NEURON_LOWERING_NISATOEXECUTABLE_NISATOEXECUTABLE_H

#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir {
class ModuleOp;

namespace neuron {

/// What the manifest records about how the executable was made.
struct ExecutableInfo {
  /// Target spec ("trn2.48xlarge,lnc=2"); empty for the module's
  /// `neuron.target`, else trn2. Another target than the module's is an
  /// error.
  std::string targetSpec;
  /// Compile options as "name=value" text, the pass pipeline, the input's
  /// hash (hex); empty when unknown.
  std::string options, pipeline, inputHash;
  /// The coverage report's totals as JSON text; empty when unknown.
  std::string coverageTotals;
};

/// The bytes of the executable (docs/executable.md, runtime/format/FORMAT.md)
/// of a module of allocated nisa kernels: the function named `entry` (or the
/// only kernel) is the program.
FailureOr<std::vector<uint8_t>> buildExecutable(ModuleOp module,
                                                StringRef entry,
                                                const ExecutableInfo &info);

/// buildExecutable's bytes written to `os`.
LogicalResult translateNisaToExecutable(ModuleOp module, llvm::raw_ostream &os,
                                        StringRef entry,
                                        const ExecutableInfo &info);

/// Registers `--nisa-to-executable` with mlir-translate's registry.
void registerNisaToExecutableTranslation();

} // namespace neuron
} // namespace mlir

#endif // NEURON_LOWERING_NISATOEXECUTABLE_NISATOEXECUTABLE_H
