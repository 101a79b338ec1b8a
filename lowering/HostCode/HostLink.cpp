//===- HostLink.cpp - Linking host code with lld --------------------------===//
//
// LLVM's ld.lld (Debian's lld-22, beside the LLVM tools this was built
// with) links the object into a shared library, as a child process on
// temporary files: lld's driver in this process would reset every LLVM
// command-line option to its default (it parses its -mllvm options that
// way), the tools' own among them. The library names libm and libgcc_s as
// needed (by soname, found where this process loaded them): the loader of
// the runtime then resolves the entry points' calls to them itself.
//
//===----------------------------------------------------------------------===//

#include "lowering/HostCode/HostCode.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>
#include <link.h>

using namespace mlir;

/// The path of shared library `soname` as this process has it loaded (or
/// loads it), or "".
static std::string loadedPath(const char *soname) {
  void *handle = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
  if (!handle)
    handle = dlopen(soname, RTLD_LAZY);
  if (!handle)
    return "";
  struct link_map *map = nullptr;
  std::string path;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name)
    path = map->l_name;
  dlclose(handle);
  return path;
}

/// A new temporary file "neuron-host-*.`suffix`" at `path`, which
/// `remover` removes when it goes.
static LogicalResult temporaryFile(StringRef suffix,
                                   SmallVectorImpl<char> &path,
                                   llvm::FileRemover &remover, Location loc) {
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("neuron-host", suffix, path))
    return emitError(loc) << "host code: cannot create a temporary file: "
                          << ec.message();
  remover.setFile(path);
  return success();
}

FailureOr<std::vector<char>>
mlir::neuron::linkSharedLibrary(ArrayRef<char> object, Location loc) {
  SmallString<128> input, output, messages;
  llvm::FileRemover removeInput, removeOutput, removeMessages;
  if (failed(temporaryFile("o", input, removeInput, loc)) ||
      failed(temporaryFile("so", output, removeOutput, loc)) ||
      failed(temporaryFile("log", messages, removeMessages, loc)))
    return failure();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(input, ec);
    if (!ec)
      os.write(object.data(), object.size());
    if (ec || os.has_error()) {
      // Handled here: an error left set would end the process.
      os.clear_error();
      return emitError(loc) << "host code: cannot write " << input;
    }
  }

  std::vector<std::string> libraries;
  for (const char *soname : {"libm.so.6", "libgcc_s.so.1"}) {
    std::string path = loadedPath(soname);
    if (path.empty())
      return emitError(loc) << "host code: cannot find " << soname
                            << ", which host code links against";
    libraries.push_back(path);
  }
  // The linker this was built beside, else one on the PATH.
  std::string linker = NEURON_LD_LLD;
  if (!llvm::sys::fs::can_execute(linker)) {
    llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("ld.lld");
    if (!found)
      return emitError(loc) << "host code: no linker: " << NEURON_LD_LLD
                            << " is missing and no ld.lld is on the PATH "
                               "(Debian's lld-22 provides it)";
    linker = *found;
  }
  SmallVector<StringRef> args = {linker,        "-shared",
                                 "--as-needed", "-z",
                                 "noexecstack", "-z",
                                 "now",         "--hash-style=gnu",
                                 "-soname",     "neuron-host-code.so",
                                 "-o",          output,
                                 input};
  for (const std::string &path : libraries)
    args.push_back(path);
  std::optional<StringRef> redirects[] = {StringRef(""), StringRef(messages),
                                          StringRef(messages)};
  std::string error;
  int status = llvm::sys::ExecuteAndWait(linker, args, std::nullopt, redirects,
                                         0, 0, &error);
  if (status != 0) {
    std::string log;
    if (auto text = llvm::MemoryBuffer::getFile(messages))
      log = (*text)->getBuffer().trim().str();
    return emitError(loc) << "host code: linking with " << linker << " failed"
                          << (error.empty() ? "" : ": ") << error
                          << (log.empty() ? "" : ": ") << log;
  }

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> linked =
      llvm::MemoryBuffer::getFile(output);
  if (!linked)
    return emitError(loc) << "host code: cannot read the linked library: "
                          << linked.getError().message();
  return std::vector<char>((*linked)->getBufferStart(),
                           (*linked)->getBufferEnd());
}
