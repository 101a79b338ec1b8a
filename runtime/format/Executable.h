//===- Executable.h - The .nxe executable container -------------*- C++ -*-===//
//
// Writing and reading the container of compiled executables: a checksummed
// header, a JSON manifest (as text or CBOR) and named, aligned binary sections
// holding constants. The byte layout is specified in runtime/format/FORMAT.md.
// The compiler writes with ExecutableWriter; the runtime reads with
// Executable, which validates every offset, size and checksum so a damaged or
// hostile file is an InvalidArgument error, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_FORMAT_EXECUTABLE_H
#define NEURON_RUNTIME_FORMAT_EXECUTABLE_H

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::rt {

class MappedFile;

/// The format version this library writes. It reads every 1.x file: a newer
/// minor version only adds what older readers may ignore.
constexpr uint16_t kFormatVersionMajor = 1;
constexpr uint16_t kFormatVersionMinor = 0;

/// Size of the fixed file header and of one section table entry, in bytes.
constexpr uint32_t kHeaderSize = 64;
constexpr uint32_t kSectionEntrySize = 56;
/// Section names hold 1 to this many bytes of printable ASCII.
constexpr size_t kMaxSectionNameLength = 31;
/// Section alignments are powers of two up to this.
constexpr uint32_t kMaxSectionAlignment = 65536;
/// Manifests nest arrays and objects at most this deep.
constexpr int kMaxManifestDepth = 128;

/// How the manifest is stored (header flag bit 0).
enum class ManifestEncoding { Json, Cbor };

/// A section to write: `data` lands at a file offset that is a multiple of
/// `alignment` (a power of two from 1 to kMaxSectionAlignment).
struct Section {
  std::string name;
  uint32_t alignment = 64;
  std::vector<uint8_t> data;
};

/// Builds an executable from a manifest and sections.
class ExecutableWriter {
public:
  /// `manifest` must be a JSON object (checked by serialize()).
  explicit ExecutableWriter(nlohmann::json manifest);
  ExecutableWriter(ExecutableWriter &&) noexcept;
  ExecutableWriter &operator=(ExecutableWriter &&) noexcept;
  ~ExecutableWriter();

  /// JSON text (the default) or CBOR.
  void setManifestEncoding(ManifestEncoding encoding) {
    this->encoding = encoding;
  }
  /// Appends a section; names must be unique (checked by serialize()).
  void addSection(Section section) { sections.push_back(std::move(section)); }

  /// The file's bytes; InvalidArgument when the manifest is not an object, is
  /// nested too deeply or holds invalid UTF-8, or a section is malformed.
  absl::StatusOr<std::vector<uint8_t>> serialize() const;
  /// serialize() into the file at `path`.
  absl::Status writeFile(const std::string &path) const;

private:
  std::unique_ptr<nlohmann::json> manifest;
  ManifestEncoding encoding = ManifestEncoding::Json;
  std::vector<Section> sections;
};

/// A validated section of a loaded executable.
struct SectionView {
  std::string name;
  /// Where the data lies in the file; `offset` is a multiple of `alignment`.
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t alignment = 1;
  /// The data, inside the owning Executable's bytes (which keep their address
  /// when the Executable moves). File offsets are aligned; this address is
  /// only as aligned as the allocator made the buffer (at least 16 bytes).
  const uint8_t *data = nullptr;
};

/// A loaded, fully validated executable. Move-only: sections point into it.
class Executable {
public:
  /// Validates `bytes` (the whole file); errors are InvalidArgument and read
  /// "NAME: what: expected ..., found ...".
  static absl::StatusOr<Executable> parse(std::vector<uint8_t> bytes,
                                          std::string_view name = "<memory>");
  /// Maps and parses the file at `path` (its sections stay in the file until
  /// read: runtime/format/FileIO.h, MappedFile); errors name the path.
  static absl::StatusOr<Executable> readFile(const std::string &path);

  Executable(Executable &&) noexcept;
  Executable &operator=(Executable &&) noexcept;
  ~Executable();

  /// The manifest, always a JSON object.
  const nlohmann::json &manifest() const { return *manifestJson; }
  ManifestEncoding manifestEncoding() const { return encoding; }
  uint16_t versionMajor() const { return major; }
  uint16_t versionMinor() const { return minor; }
  /// The header checksum. It covers the manifest's and the section table's
  /// checksums, and the table every section's, so two files with the same
  /// one hold the same program (up to CRC-32C collisions).
  uint32_t checksum() const { return identity; }

  /// The section named `name`; nullptr if absent.
  const SectionView *section(std::string_view name) const;
  /// All sections in section table order.
  const std::vector<SectionView> &sections() const { return sectionViews; }

private:
  Executable();

  /// The file's bytes: owned (parse) or mapped (readFile).
  std::vector<uint8_t> bytes;
  std::unique_ptr<MappedFile> mapping;
  std::unique_ptr<nlohmann::json> manifestJson;
  ManifestEncoding encoding = ManifestEncoding::Json;
  uint16_t major = 0, minor = 0;
  uint32_t identity = 0;
  std::vector<SectionView> sectionViews;

  friend class ExecutableParser;
};

} // namespace neuron::rt

#endif // NEURON_RUNTIME_FORMAT_EXECUTABLE_H
