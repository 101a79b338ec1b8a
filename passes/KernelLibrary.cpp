//===- KernelLibrary.cpp - the files of a user kernel library -------------===//

#include "passes/KernelLibrary.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>

std::error_code
mlir::neuron::kernelLibraryFiles(llvm::StringRef dir,
                                 std::vector<std::string> &files) {
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".mlir")
      files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return ec;
}

std::string mlir::neuron::kernelLibraryName(llvm::StringRef dir) {
  while (dir.size() > 1 && llvm::sys::path::is_separator(dir.back()))
    dir = dir.drop_back();
  return llvm::sys::path::filename(dir).str();
}
