//===- KernelLibrary.h - the files of a user kernel library ----*- C++ -*-===//
//
// Which files a kernel library folder holds, in one place: the binding
// pass parses them, and neuron-compile's cache keys their contents.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_PASSES_KERNELLIBRARY_H
#define NEURON_PASSES_KERNELLIBRARY_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <system_error>
#include <vector>

namespace mlir::neuron {

/// The kernel files of the library folder `dir` (its `.mlir` files, not
/// those of subfolders), sorted by path, so every machine binds them in
/// the same order; an error when the folder cannot be read.
std::error_code kernelLibraryFiles(llvm::StringRef dir,
                                   std::vector<std::string> &files);

/// The library folder's own name: "kernels" for "a/kernels/".
std::string kernelLibraryName(llvm::StringRef dir);

} // namespace mlir::neuron

#endif // NEURON_PASSES_KERNELLIBRARY_H
