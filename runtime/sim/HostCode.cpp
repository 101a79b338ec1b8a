//===- HostCode.cpp - Loading and calling a program's host code -----------===//

#include "runtime/sim/HostCode.h"

#include "runtime/format/Executable.h"
#include "runtime/sim/Program.h"
#include "runtime/support/StatusMacros.h"

#include "absl/strings/str_format.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace neuron::rt {

#if defined(__x86_64__)
static constexpr std::string_view kArch = "x86_64";
static constexpr uint16_t kMachine = EM_X86_64;
#elif defined(__aarch64__)
static constexpr std::string_view kArch = "aarch64";
static constexpr uint16_t kMachine = EM_AARCH64;
#else
#error "host code: add this architecture's triple name and ELF machine"
#endif

std::string_view runtimeTriple() {
  static const std::string triple = std::string(kArch) + "-unknown-linux-gnu";
  return triple;
}

absl::Status checkHostCode(const uint8_t *data, size_t size,
                           std::string_view triple) {
  std::string_view arch = triple.substr(0, triple.find('-'));
  if (arch != kArch || triple.find("-linux") == std::string_view::npos)
    return absl::FailedPreconditionError(absl::StrFormat(
        "the host code was compiled for %s; this machine is %s: recompile "
        "the graph on a machine like this one",
        triple, runtimeTriple()));
  auto invalid = [&](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "the host code is not a shared library for %s: %s", triple, why));
  };
  Elf64_Ehdr header;
  if (size < sizeof header)
    return invalid(absl::StrFormat("%d bytes, fewer than an ELF header", size));
  std::memcpy(&header, data, sizeof header);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
    return invalid("no ELF magic number");
  if (header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_ident[EI_DATA] != ELFDATA2LSB ||
      header.e_ident[EI_VERSION] != EV_CURRENT)
    return invalid("not a 64-bit little-endian ELF file");
  if (header.e_machine != kMachine)
    return invalid(absl::StrFormat("its ELF machine is %d, not %s's %d",
                                   header.e_machine, kArch, kMachine));
  if (header.e_type != ET_DYN)
    return invalid("not a shared object");
  auto inside = [&](uint64_t offset, uint64_t count, uint64_t entry) {
    return offset <= size &&
           count <= (size - offset) / std::max<uint64_t>(entry, 1);
  };
  if (header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phnum == 0 ||
      !inside(header.e_phoff, header.e_phnum, sizeof(Elf64_Phdr)))
    return invalid("its program headers lie outside its bytes");
  if (header.e_shnum != 0 &&
      (header.e_shentsize != sizeof(Elf64_Shdr) ||
       !inside(header.e_shoff, header.e_shnum, sizeof(Elf64_Shdr))))
    return invalid("its section headers lie outside its bytes");
  for (uint16_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment;
    std::memcpy(&segment, data + header.e_phoff + i * sizeof segment,
                sizeof segment);
    if (segment.p_type == PT_LOAD &&
        !inside(segment.p_offset, segment.p_filesz, 1))
      return invalid(absl::StrFormat("segment %d lies outside its bytes", i));
  }
  return absl::OkStatus();
}

/// An open file holding `size` bytes at `data`: an anonymous in-memory file,
/// or else a temporary file already unlinked.
static absl::StatusOr<int> fileWith(const uint8_t *data, size_t size) {
  int fd = memfd_create("neuron-host-code", MFD_CLOEXEC);
  if (fd < 0) {
    const char *dir = std::getenv("TMPDIR");
    std::string path =
        std::string(dir && *dir ? dir : "/tmp") + "/neuron-host-code-XXXXXX";
    fd = mkstemp(path.data());
    if (fd < 0)
      return absl::InternalError(absl::StrFormat(
          "cannot create a file for the host code: %s", std::strerror(errno)));
    unlink(path.c_str());
  }
  for (size_t written = 0; written < size;) {
    ssize_t n = write(fd, data + written, size - written);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      close(fd);
      return absl::InternalError(absl::StrFormat(
          "cannot write the host code: %s", std::strerror(errno)));
    }
    written += size_t(n);
  }
  return fd;
}

absl::StatusOr<std::shared_ptr<HostLibrary>>
HostLibrary::open(const uint8_t *data, size_t size) {
  NEURON_ASSIGN_OR_RETURN(fd, fileWith(data, size));
  // The loader knows a library by its path: the file stays open while the
  // library is loaded, so no later file reuses the path.
  std::string path = absl::StrFormat("/proc/self/fd/%d", fd);
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *error = dlerror();
    close(fd);
    return absl::InvalidArgumentError(absl::StrFormat(
        "the system loader refused the host code: %s", error ? error : "?"));
  }
  auto library = std::shared_ptr<HostLibrary>(new HostLibrary(handle));
  library->fd = fd;
  return library;
}

HostLibrary::~HostLibrary() {
  dlclose(handle);
  close(fd);
}

absl::StatusOr<HostEntry> HostLibrary::entry(const std::string &symbol) const {
  void *address = dlsym(handle, symbol.c_str());
  if (!address)
    return absl::NotFoundError(
        absl::StrFormat("the host code has no entry point \"%s\"", symbol));
  return reinterpret_cast<HostEntry>(address);
}

absl::Status loadHostCode(Program &program, const Executable &exe,
                          std::string_view origin) {
  if (!program.hostCode)
    return absl::OkStatus();
  std::string prefix = origin.empty() ? "" : std::string(origin) + ": ";
  auto fail = [&](const absl::Status &status) {
    return absl::Status(status.code(), prefix + std::string(status.message()));
  };
  const HostCodeDesc &desc = *program.hostCode;
  const SectionView *section = exe.section(desc.section);
  if (!section)
    return fail(absl::InvalidArgumentError(
        absl::StrFormat("no section '%s' for the host code", desc.section)));
  if (absl::Status checked =
          checkHostCode(section->data, section->size, desc.triple);
      !checked.ok())
    return fail(checked);
  absl::StatusOr<std::shared_ptr<HostLibrary>> library =
      HostLibrary::open(section->data, section->size);
  if (!library.ok())
    return fail(library.status());
  for (Step &step : program.steps) {
    if (!step.isHostCall())
      continue;
    absl::StatusOr<HostEntry> entry = (*library)->entry(step.symbol);
    if (!entry.ok())
      return fail(
          absl::Status(entry.status().code(),
                       absl::StrFormat("host_call \"%s\": %s", step.hostCall,
                                       entry.status().message())));
    step.entry = *entry;
  }
  program.hostLibrary = *std::move(library);
  return absl::OkStatus();
}

absl::Status runHostCall(const Step &step, const Program &program,
                         const std::function<uint8_t *(int64_t)> &tensorBytes) {
  if (!step.entry)
    return absl::FailedPreconditionError(
        "its host code is not loaded (the executable's host_code section)");
  std::vector<std::vector<int64_t>> descriptors;
  std::vector<void *> args;
  auto describe = [&](int64_t id) {
    const TensorDesc &t = program.tensors[id];
    size_t rank = t.shape.size();
    std::vector<int64_t> d(3 + 2 * rank);
    uint8_t *bytes = tensorBytes(id);
    std::memcpy(&d[0], &bytes, sizeof bytes);
    std::memcpy(&d[1], &bytes, sizeof bytes);
    int64_t stride = 1;
    for (size_t i = rank; i-- > 0;) {
      d[3 + i] = t.shape[i];
      d[3 + rank + i] = stride;
      stride *= t.shape[i];
    }
    descriptors.push_back(std::move(d));
  };
  for (int64_t id : step.inputs)
    describe(id);
  for (int64_t id : step.outputs)
    describe(id);
  for (std::vector<int64_t> &d : descriptors)
    args.push_back(d.data());
  step.entry(args.data());
  return absl::OkStatus();
}

} // namespace neuron::rt
