//===- HostCode.h - Host regions compiled to native code --------*- C++ -*-===//
//
// The host calls of a program run on the machine that runs the program, as
// native code: upstream MLIR's CPU pipeline compiles each region (after
// ConvertNeuronToLinalg) to LLVM IR, LLVM to an object for this machine,
// and lld links the objects into one shared library, which the executable
// carries in a section (docs/executable.md, "Host code"). The runtime loads
// it with the system loader and links no MLIR.
//
// Entry point of host call `symbol`: `void symbol(void **args)`, `args[i]`
// pointing to an MLIR memref descriptor ({allocated, aligned, offset,
// sizes[rank], strides[rank]}, 64-bit fields) of the call's inputs, then of
// its outputs, which it writes. Every temporary it allocates it frees.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_LOWERING_HOSTCODE_HOSTCODE_H
#define NEURON_LOWERING_HOSTCODE_HOSTCODE_H

#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace mlir {
class Location;
namespace neuron {
class HostCallOp;

/// A shared library holding the entry points of a program's host calls.
struct HostCode {
  /// The LLVM target triple it was compiled for (this machine's).
  std::string triple;
  /// The ELF shared object.
  std::vector<char> library;
};

/// Compiles `calls`, `calls[i]`'s entry point named `symbols[i]`. Errors
/// (an op upstream cannot lower, a failure of LLVM or the linker) are
/// diagnostics at the op, or at the first call, naming the host call.
FailureOr<HostCode> compileHostCode(ArrayRef<HostCallOp> calls,
                                    ArrayRef<std::string> symbols);

/// The triple compileHostCode compiles for.
std::string hostTriple();

/// Links the relocatable object `object` into a shared library that needs
/// libm and libgcc_s (for the float conversions LLVM leaves to a runtime
/// library) by their sonames; errors at `loc`.
FailureOr<std::vector<char>> linkSharedLibrary(ArrayRef<char> object,
                                               Location loc);

} // namespace neuron
} // namespace mlir

#endif // NEURON_LOWERING_HOSTCODE_HOSTCODE_H
