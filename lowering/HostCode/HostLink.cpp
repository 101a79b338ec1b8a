//===- HostLink.cpp - Linking host code with lld, in process --------------===//
//
// lld's ELF driver runs in this process on temporary files, so compiling
// needs no linker installed. The library names libm and libgcc_s as
// needed (by soname, found where this process loaded them): the loader of
// the runtime then resolves the entry points' calls to them itself.
//
//===----------------------------------------------------------------------===//

#include "lowering/HostCode/HostCode.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include "lld/Common/Driver.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>
#include <link.h>

LLD_HAS_DRIVER(elf)

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

namespace {
/// A temporary file, removed when this goes.
struct TempFile {
  llvm::SmallString<128> path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};
} // namespace

FailureOr<std::vector<char>>
mlir::neuron::linkSharedLibrary(ArrayRef<char> object, Location loc) {
  TempFile input, output;
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "neuron-host", "o", fd, input.path))
    return emitError(loc) << "host code: cannot create a temporary file: "
                          << ec.message();
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(object.data(), object.size());
    if (os.has_error())
      return emitError(loc) << "host code: cannot write " << input.path;
  }
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("neuron-host", "so", output.path))
    return emitError(loc) << "host code: cannot create a temporary file: "
                          << ec.message();

  std::vector<std::string> libraries;
  for (const char *soname : {"libm.so.6", "libgcc_s.so.1"}) {
    std::string path = loadedPath(soname);
    if (path.empty())
      return emitError(loc) << "host code: cannot find " << soname
                            << ", which host code links against";
    libraries.push_back(path);
  }
  std::vector<const char *> args = {"ld.lld",
                                    "-shared",
                                    "--as-needed",
                                    "-z",
                                    "noexecstack",
                                    "-z",
                                    "now",
                                    "--hash-style=gnu",
                                    "-soname",
                                    "neuron-host-code.so",
                                    "-o",
                                    output.path.c_str(),
                                    input.path.c_str()};
  for (const std::string &path : libraries)
    args.push_back(path.c_str());

  std::string messages;
  llvm::raw_string_ostream diagnostics(messages);
  lld::Result result = lld::lldMain(args, diagnostics, diagnostics,
                                    {{lld::Gnu, &lld::elf::link}});
  if (result.retCode != 0)
    return emitError(loc) << "host code: linking failed: " << messages;

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> linked =
      llvm::MemoryBuffer::getFile(output.path);
  if (!linked)
    return emitError(loc) << "host code: cannot read the linked library: "
                          << linked.getError().message();
  return std::vector<char>((*linked)->getBufferStart(),
                           (*linked)->getBufferEnd());
}
