//===- NisaToExecutable.h - nisa kernels to an executable ------*- C++ -*-===//

#ifndef NEURON_LOWERING_NISATOEXECUTABLE_NISATOEXECUTABLE_H
#define NEURON_LOWERING_NISATOEXECUTABLE_NISATOEXECUTABLE_H

#include "mlir/Support/LLVM.h"

#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir {
class ModuleOp;

namespace neuron {

/// Writes the executable (docs/executable.md, runtime/format/FORMAT.md) of a
/// module of allocated nisa kernels: the function named `entry` (or the only
/// kernel) is the program. `targetSpec` is recorded in the manifest.
LogicalResult translateNisaToExecutable(ModuleOp module, llvm::raw_ostream &os,
                                        StringRef entry, StringRef targetSpec);

/// Registers `--nisa-to-executable` with mlir-translate's registry.
void registerNisaToExecutableTranslation();

} // namespace neuron
} // namespace mlir

#endif // NEURON_LOWERING_NISATOEXECUTABLE_NISATOEXECUTABLE_H
