//===- HostCode.h - Loading and calling a program's host code ---*- C++ -*-===//
//
// An executable whose program has host_call steps carries their native code
// (docs/executable.md, "Host code"): an ELF shared library in the section
// the manifest's `host_code` names, compiled by the compiler for the triple
// it records, with one entry point per host call. Loading it runs code, so
// it is checked first: the section's bytes (size, checksum: the executable
// reader's), the triple against this machine's architecture and operating
// system, and the ELF header (class, byte order, machine, type, header
// tables inside the bytes). Only then does the system loader see it, from
// an anonymous in-memory file (a private temporary file where that is not
// available).
//
// An entry point takes one pointer per tensor, inputs then outputs, each to
// an MLIR memref descriptor: {allocated, aligned, offset, sizes[rank],
// strides[rank]}, all 64-bit. The runtime's tensors are contiguous and
// row-major, so a descriptor is the tensor's address, offset 0, its shape
// and its row-major strides.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SIM_HOSTCODE_H
#define NEURON_RUNTIME_SIM_HOSTCODE_H

#include "absl/status/statusor.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace neuron::rt {

class Executable;
struct Program;
struct Step;

/// A host call's entry point.
using HostEntry = void (*)(void **descriptors);

/// The manifest's `host_code`.
struct HostCodeDesc {
  std::string section;
  /// The LLVM target triple the library was compiled for.
  std::string triple;
};

/// The triple of the machine this runtime runs on, as LLVM names it
/// ("x86_64-unknown-linux-gnu"), from how this runtime was compiled.
std::string_view runtimeTriple();

/// OK when `size` bytes at `data` are an ELF shared library for `triple`
/// and `triple` names this machine's architecture and operating system;
/// FailedPrecondition for another machine, InvalidArgument for bytes that
/// are not such a library. Reads nothing outside the bytes.
absl::Status checkHostCode(const uint8_t *data, size_t size,
                           std::string_view triple);

/// A shared library of host code, loaded by the system loader; unloaded
/// when the last reference goes.
class HostLibrary {
public:
  /// Loads the checked library of `size` bytes at `data`.
  static absl::StatusOr<std::shared_ptr<HostLibrary>> open(const uint8_t *data,
                                                           size_t size);
  ~HostLibrary();
  HostLibrary(const HostLibrary &) = delete;
  HostLibrary &operator=(const HostLibrary &) = delete;

  /// The entry point named `symbol`; NotFound when the library has none.
  absl::StatusOr<HostEntry> entry(const std::string &symbol) const;

private:
  explicit HostLibrary(void *handle) : handle(handle) {}
  void *handle;
  /// The file the loader mapped, open while the library is loaded.
  int fd = -1;
};

/// Checks and loads `exe`'s host code for `program` (parsed from its
/// manifest) and resolves the entry point of every host_call step; errors
/// are prefixed "`origin`: ". Nothing to do for a program without host
/// calls.
absl::Status loadHostCode(Program &program, const Executable &exe,
                          std::string_view origin);

/// Runs host_call `step` of `program` through its entry point, its tensors'
/// bytes at `tensorBytes(id)`. FailedPrecondition when its host code is not
/// loaded (loadHostCode).
absl::Status runHostCall(const Step &step, const Program &program,
                         const std::function<uint8_t *(int64_t)> &tensorBytes);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_SIM_HOSTCODE_H
