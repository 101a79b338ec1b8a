//===- HostCodeTest.cpp - a program's host code: checks, loading, time ----===//
//
// What the runtime checks before the system loader sees a host-code section
// (the executable reader's size and checksum, the triple, the ELF header),
// loading a real shared library and resolving entry points, the manifest's
// host_code and symbol fields, a run without loaded host code, and a host
// call's time on the program clock. Running compiled host code is tested
// end to end against the CPU oracle (test/e2e/host_calls.test and others).
//
//===----------------------------------------------------------------------===//

#include "SimTestUtil.h"

#include "runtime/format/Executable.h"
#include "runtime/sim/HostCode.h"
#include "runtime/sim/Profile.h"
#include "runtime/sim/Timing.h"
#include "runtime/target/Target.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <elf.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

using namespace neuron::rt;
using namespace neuron::rt::test;

namespace {

/// A program of one host_call step "h" (entry point `symbol`) reading i32[10]
/// and writing i8[10] and i64[10], with its host code in section "host_code"
/// for `triple`.
json hostManifest(const std::string &triple = std::string(runtimeTriple()),
                  const std::string &symbol = "neuron_h") {
  json m = parseJson(R"json({
    "tensors": [{"id": 0, "dtype": "i32", "shape": [10], "kind": "input"},
                {"id": 1, "dtype": "i8", "shape": [10], "kind": "output"},
                {"id": 2, "dtype": "i64", "shape": [10], "kind": "output"}],
    "inputs": [{"tensor": 0}], "outputs": [{"tensor": 1}, {"tensor": 2}],
    "kernels": [],
    "program": [{"host_call": "h", "reason": "test", "inputs": [0],
                 "outputs": [1, 2], "ops": ""}],
    "host_code": {"section": "host_code", "format": "elf-shared-object"}})json");
  m["program"][0]["symbol"] = symbol;
  m["host_code"]["triple"] = triple;
  return m;
}

/// The bytes of this process's libm: a real shared library of this
/// machine, with `cos` and without any neuron entry point.
std::vector<uint8_t> libmBytes() {
  Dl_info info;
  void *cosine =
      reinterpret_cast<void *>(static_cast<double (*)(double)>(&cos));
  if (!dladdr(cosine, &info) || !info.dli_fname)
    return {};
  std::ifstream in(info.dli_fname, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

/// The smallest header checkHostCode accepts up to its tables: an ELF64
/// little-endian shared object of this machine with one program header.
std::vector<uint8_t> minimalElf() {
  std::vector<uint8_t> bytes(sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr), 0);
  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_type = ET_DYN;
#if defined(__x86_64__)
  header.e_machine = EM_X86_64;
#else
  header.e_machine = EM_AARCH64;
#endif
  header.e_phoff = sizeof(Elf64_Ehdr);
  header.e_phentsize = sizeof(Elf64_Phdr);
  header.e_phnum = 1;
  std::memcpy(bytes.data(), &header, sizeof header);
  return bytes;
}

absl::Status check(const std::vector<uint8_t> &bytes) {
  return checkHostCode(bytes.data(), bytes.size(), runtimeTriple());
}

template <typename Field>
std::vector<uint8_t> withHeaderField(Field Elf64_Ehdr::*field, Field value) {
  std::vector<uint8_t> bytes = minimalElf();
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof header);
  header.*field = value;
  std::memcpy(bytes.data(), &header, sizeof header);
  return bytes;
}

/// An executable of hostManifest(triple) whose host_code section holds
/// `library`.
absl::StatusOr<Executable> executableWith(std::vector<uint8_t> library,
                                          const std::string &triple) {
  ExecutableWriter writer(hostManifest(triple));
  writer.addSection({"host_code", 64, std::move(library)});
  absl::StatusOr<std::vector<uint8_t>> bytes = writer.serialize();
  if (!bytes.ok())
    return bytes.status();
  return Executable::parse(*std::move(bytes), "h.nxe");
}

} // namespace

//===----------------------------------------------------------------------===//
// The checks before loading
//===----------------------------------------------------------------------===//

TEST(HostCodeTest, ARealLibraryOfThisMachinePasses) {
  std::vector<uint8_t> libm = libmBytes();
  ASSERT_FALSE(libm.empty());
  EXPECT_TRUE(check(libm).ok()) << check(libm);
  EXPECT_TRUE(check(minimalElf()).ok()) << check(minimalElf());
}

TEST(HostCodeTest, TruncatedBytesAreInvalid) {
  std::vector<uint8_t> libm = libmBytes();
  for (size_t size : {size_t(0), size_t(4), size_t(63), size_t(100)}) {
    absl::Status s = checkHostCode(libm.data(), size, runtimeTriple());
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << size;
  }
  // Whole headers whose tables run past the end.
  std::vector<uint8_t> header(libm.begin(), libm.begin() + sizeof(Elf64_Ehdr));
  EXPECT_NE(check(header).message().find("program headers lie outside"),
            std::string::npos)
      << check(header);
}

TEST(HostCodeTest, AnotherArchitectureIsAClearError) {
  std::vector<uint8_t> libm = libmBytes();
  absl::Status s =
      checkHostCode(libm.data(), libm.size(), "riscv64-unknown-linux-gnu");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("compiled for riscv64-unknown-linux-gnu; this "
                             "machine is " +
                             std::string(runtimeTriple())),
            std::string::npos)
      << s;
  s = checkHostCode(libm.data(), libm.size(), "x86_64-apple-darwin");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  // The triple says this machine, the ELF header another one.
  s = check(withHeaderField(&Elf64_Ehdr::e_machine, uint16_t(EM_RISCV)));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("ELF machine is 243"), std::string::npos) << s;
}

TEST(HostCodeTest, HeadersOtherThanASharedObjectAreInvalid) {
  std::vector<uint8_t> notElf = minimalElf();
  notElf[1] = 'X';
  EXPECT_NE(check(notElf).message().find("no ELF magic"), std::string::npos);
  std::vector<uint8_t> elf32 = minimalElf();
  elf32[EI_CLASS] = ELFCLASS32;
  EXPECT_NE(check(elf32).message().find("64-bit little-endian"),
            std::string::npos);
  std::vector<uint8_t> bigEndian = minimalElf();
  bigEndian[EI_DATA] = ELFDATA2MSB;
  EXPECT_FALSE(check(bigEndian).ok());
  EXPECT_NE(check(withHeaderField(&Elf64_Ehdr::e_type, uint16_t(ET_EXEC)))
                .message()
                .find("not a shared object"),
            std::string::npos);
  EXPECT_FALSE(
      check(withHeaderField(&Elf64_Ehdr::e_phoff, Elf64_Off(1) << 40)).ok());
  EXPECT_FALSE(
      check(withHeaderField(&Elf64_Ehdr::e_phnum, uint16_t(0xffff))).ok());
  EXPECT_FALSE(check(withHeaderField(&Elf64_Ehdr::e_shnum, uint16_t(3))).ok());
  // A loadable segment past the end.
  std::vector<uint8_t> segment = minimalElf();
  Elf64_Phdr load{};
  load.p_type = PT_LOAD;
  load.p_offset = 16;
  load.p_filesz = 1 << 20;
  std::memcpy(segment.data() + sizeof(Elf64_Ehdr), &load, sizeof load);
  EXPECT_NE(check(segment).message().find("segment 0 lies outside"),
            std::string::npos)
      << check(segment);
}

TEST(HostCodeTest, ACorruptSectionNeverReachesTheLoader) {
  std::vector<uint8_t> libm = libmBytes();
  ExecutableWriter writer(hostManifest());
  writer.addSection({"host_code", 64, libm});
  absl::StatusOr<std::vector<uint8_t>> bytes = writer.serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  // A byte of the library changed: the section's checksum.
  std::vector<uint8_t> flipped = *bytes;
  flipped[flipped.size() - libm.size() / 2] ^= 0x40;
  absl::StatusOr<Executable> exe = Executable::parse(flipped, "h.nxe");
  ASSERT_FALSE(exe.ok());
  EXPECT_NE(exe.status().message().find("section \"host_code\" checksum"),
            std::string::npos)
      << exe.status();
  // The file cut short.
  std::vector<uint8_t> cut(bytes->begin(), bytes->end() - 100);
  EXPECT_FALSE(Executable::parse(cut, "h.nxe").ok());
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

TEST(HostCodeTest, LoadingResolvesEntryPointsByName) {
  std::vector<uint8_t> libm = libmBytes();
  absl::StatusOr<std::shared_ptr<HostLibrary>> library =
      HostLibrary::open(libm.data(), libm.size());
  ASSERT_TRUE(library.ok()) << library.status();
  EXPECT_TRUE((*library)->entry("cos").ok());
  absl::StatusOr<HostEntry> missing = (*library)->entry("neuron_h");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(),
            "the host code has no entry point \"neuron_h\"");
}

TEST(HostCodeTest, LoadHostCodeChecksThenNamesTheMissingEntryPoint) {
  absl::StatusOr<Executable> exe =
      executableWith(libmBytes(), std::string(runtimeTriple()));
  ASSERT_TRUE(exe.ok()) << exe.status();
  Program program = parse(exe->manifest());
  absl::Status s = loadHostCode(program, *exe, "h.nxe");
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "h.nxe: host_call \"h\": the host code has no entry "
                         "point \"neuron_h\"");

  absl::StatusOr<Executable> other =
      executableWith(libmBytes(), "aarch64-unknown-linux-gnu");
  ASSERT_TRUE(other.ok());
  Program elsewhere = parse(other->manifest());
  s = loadHostCode(elsewhere, *other, "h.nxe");
  if (runtimeTriple().rfind("aarch64", 0) != 0) {
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_EQ(s.message().rfind("h.nxe: the host code was compiled for "
                                "aarch64-unknown-linux-gnu",
                                0),
              0u)
        << s;
  }
  EXPECT_EQ(elsewhere.steps[0].entry, nullptr);
}

TEST(HostCodeTest, ARunWithoutLoadedHostCodeStopsBeforeAnythingRuns) {
  Program program = parse(hostManifest());
  absl::StatusOr<std::vector<Tensor>> out = Device().run(
      program, {makeTensor(DType::I32, {10}, std::vector<double>(10, 1))});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(out.status().message(),
            "program[0]: host_call \"h\": its host code is not loaded (the "
            "executable's host_code section; loadHostCode)");
}

//===----------------------------------------------------------------------===//
// The manifest
//===----------------------------------------------------------------------===//

TEST(HostCodeTest, HostCodeAndEntryPointsAreChecked) {
  Program program = parse(hostManifest());
  ASSERT_TRUE(program.hostCode.has_value());
  EXPECT_EQ(program.hostCode->section, "host_code");
  EXPECT_EQ(program.steps[0].symbol, "neuron_h");

  json m = hostManifest();
  m.erase("host_code");
  EXPECT_EQ(errorOf(m), "manifest: host_code: expected the host calls' code "
                        "(a host_code object), found none");
  m = hostManifest();
  m["host_code"]["format"] = "mach-o";
  EXPECT_NE(errorOf(m).find("host_code.format"), std::string::npos);
  m = hostManifest();
  m["host_code"]["extra"] = 1;
  EXPECT_NE(errorOf(m).find("unknown field"), std::string::npos);
  m = hostManifest("x86_64-pc-linux-gnu", "neuron h; rm -rf");
  EXPECT_NE(errorOf(m).find("program[0].symbol: expected an entry point name"),
            std::string::npos)
      << errorOf(m);
  m = hostManifest("x86_64-pc-linux-gnu", std::string(300, 'a'));
  EXPECT_FALSE(errorOf(m).empty());
  m = hostManifest();
  m["program"][0].erase("symbol");
  EXPECT_NE(errorOf(m).find("program[0].symbol"), std::string::npos);
  // Host code without host calls.
  m = hostManifest();
  m["program"] = json::array();
  m["outputs"] = json::array();
  m["tensors"] = json::array({m["tensors"][0]});
  EXPECT_NE(errorOf(m).find("the program has no host calls"), std::string::npos)
      << errorOf(m);
}

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

// A host call's time on the program clock: its inputs and results over the
// target's host link (trn2: 32 GB/s), plus its host compute when a
// functional run measured it.
TEST(HostCodeTest, HostCallTimeIsItsTransfersAndMeasuredCompute) {
  Program program = parse(hostManifest());
  absl::StatusOr<TargetRegistry> registry = TargetRegistry::loadBuiltin();
  ASSERT_TRUE(registry.ok());
  absl::StatusOr<ResolvedTarget> target = registry->resolve("trn2");
  ASSERT_TRUE(target.ok());
  absl::StatusOr<CostModel> model = CostModel::forTarget(*target);
  ASSERT_TRUE(model.ok());
  // i32[10] in, i8[10] and i64[10] out: 130 bytes at 32 B/ns.
  const double transfer = 130 / 32.0;

  absl::StatusOr<ProgramTiming> unmeasured =
      simulateProgramTiming(program, *model);
  ASSERT_TRUE(unmeasured.ok()) << unmeasured.status();
  ASSERT_EQ(unmeasured->hostCalls.size(), 1u);
  EXPECT_EQ(unmeasured->hostCalls[0].bytes, 130);
  EXPECT_DOUBLE_EQ(unmeasured->hostCalls[0].transferNs, transfer);
  EXPECT_FALSE(unmeasured->hostCalls[0].computeNs.has_value());
  EXPECT_DOUBLE_EQ(unmeasured->totalNs, transfer);

  TimingOptions options;
  options.hostComputeNs[0] = 1000;
  absl::StatusOr<ProgramTiming> measured =
      simulateProgramTiming(program, *model, std::nullopt, options);
  ASSERT_TRUE(measured.ok()) << measured.status();
  EXPECT_DOUBLE_EQ(measured->steps[0].durationNs, transfer + 1000);
  EXPECT_DOUBLE_EQ(measured->totalNs, transfer + 1000);
  json profile = profileJson(program, *measured, *model, json::object());
  EXPECT_EQ(profile["host_calls"][0]["compute_ns"], 1000.0);
  EXPECT_EQ(profile["host_calls"][0]["transfer_ns"], transfer);
}
