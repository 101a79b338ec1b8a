//===- Executable.cpp - The .nxe executable container ---------------------===//
//
// ExecutableWriter lays a manifest and sections out as FORMAT.md specifies;
// ExecutableParser checks a file against the same specification, every
// offset and size with overflow-safe arithmetic, before anything is read.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/Executable.h"

#include "runtime/format/Checksum.h"
#include "runtime/format/FormatInternal.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <map>

namespace neuron::rt {

using json = nlohmann::json;

namespace {
/// Byte offsets of the header fields (FORMAT.md, "Header").
enum : size_t {
  kMagicAt = 0,
  kMajorAt = 8,
  kMinorAt = 10,
  kFlagsAt = 12,
  kHeaderSizeAt = 16,
  kSectionCountAt = 20,
  kManifestOffsetAt = 24,
  kManifestSizeAt = 32,
  kSectionTableAt = 40,
  kManifestChecksumAt = 48,
  kHeaderChecksumAt = 52,
  kSectionTableChecksumAt = 56,
};
/// Byte offsets of the fields of a section table entry.
enum : size_t {
  kEntryNameSize = 32,
  kEntryOffsetAt = 32,
  kEntrySizeAt = 40,
  kEntryAlignmentAt = 48,
  kEntryChecksumAt = 52,
};
} // namespace

static constexpr char kMagic[8] = {'N', 'E', 'U', 'R', 'O', 'N', 'X', 'E'};
/// Flag bit 0: the manifest is CBOR rather than JSON text.
static constexpr uint32_t kFlagCborManifest = 1u << 0;
/// Flags this version defines. Bits 0-15 change how a file must be read, so a
/// reader rejects a set bit it does not know; bits 16-31 may be ignored.
static constexpr uint32_t kKnownFlags = kFlagCborManifest;
static constexpr uint32_t kRequiredFlagsMask = 0x0000FFFFu;

/// The header's checksum: CRC-32C of its 64 bytes with the checksum field
/// taken as zero.
static uint32_t headerChecksum(const uint8_t *header) {
  static constexpr uint8_t zeros[4] = {0, 0, 0, 0};
  uint32_t crc = crc32c(header, kHeaderChecksumAt);
  crc = crc32c(zeros, 4, crc);
  return crc32c(header + kHeaderChecksumAt + 4,
                kHeaderSize - kHeaderChecksumAt - 4, crc);
}

/// Whether [offset, offset + size) lies within a file of `fileSize` bytes;
/// never overflows.
static bool inBounds(uint64_t offset, uint64_t size, uint64_t fileSize) {
  return offset <= fileSize && size <= fileSize - offset;
}

static bool isPowerOfTwo(uint64_t v) { return v && !(v & (v - 1)); }

static uint64_t alignTo(uint64_t v, uint64_t alignment) {
  return (v + alignment - 1) / alignment * alignment;
}

/// "a JSON array", for the found half of an error.
static std::string describeKind(const json &v) {
  return absl::StrCat("a JSON ", v.type_name());
}

/// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code
/// points past U+10FFFF). nlohmann's dump() aborts on anything else.
static bool isValidUtf8(std::string_view s) {
  size_t i = 0, n = s.size();
  while (i < n) {
    auto c = static_cast<uint8_t>(s[i]);
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xE  ? 3
                 : (c >> 3) == 0x1E ? 4
                                    : 0;
    if (len == 0 || len > n - i)
      return false;
    uint32_t cp = len == 1 ? c : c & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) {
      auto cc = static_cast<uint8_t>(s[i + k]);
      if ((cc & 0xC0) != 0x80)
        return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    static constexpr uint32_t minForLen[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < minForLen[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += len;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Manifest reading
//===----------------------------------------------------------------------===//

namespace {
/// Builds the manifest DOM from JSON text or CBOR while bounding what a
/// hostile manifest can do: nesting depth (nlohmann's CBOR reader, dump() and
/// copies recurse), declared container sizes (the DOM builder aborts on
/// absurd ones), invalid UTF-8 in CBOR strings (dump() aborts on it) and CBOR
/// byte strings (no JSON counterpart).
class ManifestSax : public json::json_sax_t {
public:
  ManifestSax(json &result, uint64_t inputSize)
      : dom(result, /*allow_exceptions=*/false), inputSize(inputSize) {}

  bool null() override { return dom.null(); }
  bool boolean(bool v) override { return dom.boolean(v); }
  bool number_integer(number_integer_t v) override {
    return dom.number_integer(v);
  }
  bool number_unsigned(number_unsigned_t v) override {
    return dom.number_unsigned(v);
  }
  bool number_float(number_float_t v, const string_t &s) override {
    return dom.number_float(v, s);
  }
  bool string(string_t &s) override {
    return isValidUtf8(s) ? dom.string(s)
                          : fail("a string that is not valid UTF-8");
  }
  bool binary(binary_t &) override {
    return fail("a CBOR byte string (a manifest holds JSON values only)");
  }
  bool start_object(std::size_t len) override {
    return enter(len) && dom.start_object(len);
  }
  bool key(string_t &k) override {
    return isValidUtf8(k) ? dom.key(k) : fail("a key that is not valid UTF-8");
  }
  bool end_object() override {
    --depth;
    return dom.end_object();
  }
  bool start_array(std::size_t len) override {
    return enter(len) && dom.start_array(len);
  }
  bool end_array() override {
    --depth;
    return dom.end_array();
  }
  bool parse_error(std::size_t, const std::string &,
                   const nlohmann::detail::exception &ex) override {
    std::string message = ex.what();
    // Drop the "[json.exception.parse_error.101] " prefix.
    if (size_t end = message.find("] "); end != std::string::npos)
      message = message.substr(end + 2);
    return fail(message);
  }

  /// What went wrong; empty while nothing has.
  std::string error;

private:
  bool fail(std::string message) {
    if (error.empty())
      error = std::move(message);
    return false;
  }
  bool enter(std::size_t len) {
    if (++depth > kMaxManifestDepth)
      return fail(absl::StrFormat("arrays and objects nested more than %d deep",
                                  kMaxManifestDepth));
    // Every element takes at least one byte.
    if (len != static_cast<std::size_t>(-1) && len > inputSize)
      return fail(absl::StrFormat(
          "a container declaring %d elements in a %d-byte manifest", len,
          inputSize));
    return true;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom;
  uint64_t inputSize;
  int depth = 0;
};
} // namespace

/// Checks what the reader will demand of a manifest to be written: bounded
/// nesting, valid UTF-8, no binary values. `path` is a JSON pointer.
static absl::Status checkManifestValue(const json &v, int depth,
                                       const std::string &path) {
  auto bad = [&](std::string_view expected, std::string_view found) {
    return formatError(
        "executable writer",
        absl::StrCat("manifest", path.empty() ? "" : " at ", path), expected,
        found);
  };
  if (v.is_binary())
    return bad("JSON values only", "a binary value");
  if (v.is_string() && !isValidUtf8(v.get_ref<const std::string &>()))
    return bad("valid UTF-8", "a string that is not");
  if (!v.is_structured())
    return absl::OkStatus();
  if (depth >= kMaxManifestDepth)
    return bad(
        absl::StrFormat("at most %d levels of nesting", kMaxManifestDepth),
        "more");
  if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i)
      NEURON_RETURN_IF_ERROR(
          checkManifestValue(v[i], depth + 1, absl::StrCat(path, "/", i)));
    return absl::OkStatus();
  }
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!isValidUtf8(it.key()))
      return bad("valid UTF-8", "a key that is not");
    NEURON_RETURN_IF_ERROR(checkManifestValue(
        it.value(), depth + 1, absl::StrCat(path, "/", it.key())));
  }
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// ExecutableWriter
//===----------------------------------------------------------------------===//

ExecutableWriter::ExecutableWriter(json manifest)
    : manifest(std::make_unique<json>(std::move(manifest))) {}
ExecutableWriter::ExecutableWriter(ExecutableWriter &&) noexcept = default;
ExecutableWriter &
ExecutableWriter::operator=(ExecutableWriter &&) noexcept = default;
ExecutableWriter::~ExecutableWriter() = default;

/// Checks one section to be written; `seen` collects the names.
static absl::Status checkSection(const Section &s, size_t index,
                                 std::map<std::string, size_t> &seen) {
  constexpr std::string_view who = "executable writer";
  std::string what = absl::StrFormat("section %d name", index);
  if (s.name.empty() || s.name.size() > kMaxSectionNameLength)
    return formatError(who, what,
                       absl::StrFormat("1 to %d bytes", kMaxSectionNameLength),
                       absl::StrFormat("%d bytes", s.name.size()));
  for (char c : s.name)
    if (c < 0x20 || c > 0x7E)
      return formatError(
          who, what, "printable ASCII",
          quoteBytes(reinterpret_cast<const uint8_t *>(s.name.data()),
                     s.name.size()));
  if (auto [it, inserted] = seen.emplace(s.name, index); !inserted)
    return formatError(who, what, "a unique name",
                       absl::StrFormat("\"%s\" again (section %d has it too)",
                                       s.name, it->second));
  if (!isPowerOfTwo(s.alignment) || s.alignment > kMaxSectionAlignment)
    return formatError(
        who, absl::StrFormat("section \"%s\" alignment", s.name),
        absl::StrFormat("a power of two from 1 to %d", kMaxSectionAlignment),
        absl::StrFormat("%d", s.alignment));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<uint8_t>> ExecutableWriter::serialize() const {
  if (!manifest->is_object())
    return formatError("executable writer", "manifest", "a JSON object",
                       describeKind(*manifest));
  NEURON_RETURN_IF_ERROR(checkManifestValue(*manifest, 0, ""));
  if (sections.size() > UINT32_MAX)
    return formatError("executable writer", "section count",
                       "at most 4294967295", std::to_string(sections.size()));
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < sections.size(); ++i)
    NEURON_RETURN_IF_ERROR(checkSection(sections[i], i, seen));

  std::vector<uint8_t> encoded;
  if (encoding == ManifestEncoding::Cbor) {
    encoded = json::to_cbor(*manifest);
  } else {
    std::string text = manifest->dump();
    encoded.assign(text.begin(), text.end());
  }

  // Header, manifest, table (8-aligned), then each section at its alignment.
  uint64_t tableOffset = alignTo(kHeaderSize + encoded.size(), 8);
  uint64_t end = tableOffset + sections.size() * uint64_t(kSectionEntrySize);
  std::vector<uint64_t> offsets;
  for (const Section &s : sections) {
    offsets.push_back(alignTo(end, s.alignment));
    end = offsets.back() + s.data.size();
  }
  std::vector<uint8_t> bytes(end, 0);
  uint8_t *base = bytes.data();

  std::memcpy(base + kHeaderSize, encoded.data(), encoded.size());
  for (size_t i = 0; i < sections.size(); ++i) {
    const Section &s = sections[i];
    uint8_t *entry = base + tableOffset + i * kSectionEntrySize;
    std::memcpy(entry, s.name.data(), s.name.size());
    storeLE<uint64_t>(entry + kEntryOffsetAt, offsets[i]);
    storeLE<uint64_t>(entry + kEntrySizeAt, s.data.size());
    storeLE<uint32_t>(entry + kEntryAlignmentAt, s.alignment);
    storeLE<uint32_t>(entry + kEntryChecksumAt,
                      crc32c(s.data.data(), s.data.size()));
    if (!s.data.empty())
      std::memcpy(base + offsets[i], s.data.data(), s.data.size());
  }

  std::memcpy(base + kMagicAt, kMagic, sizeof(kMagic));
  storeLE<uint16_t>(base + kMajorAt, kFormatVersionMajor);
  storeLE<uint16_t>(base + kMinorAt, kFormatVersionMinor);
  storeLE<uint32_t>(base + kFlagsAt,
                    encoding == ManifestEncoding::Cbor ? kFlagCborManifest : 0);
  storeLE<uint32_t>(base + kHeaderSizeAt, kHeaderSize);
  storeLE<uint32_t>(base + kSectionCountAt, sections.size());
  storeLE<uint64_t>(base + kManifestOffsetAt, kHeaderSize);
  storeLE<uint64_t>(base + kManifestSizeAt, encoded.size());
  storeLE<uint64_t>(base + kSectionTableAt, tableOffset);
  storeLE<uint32_t>(base + kManifestChecksumAt,
                    crc32c(encoded.data(), encoded.size()));
  storeLE<uint32_t>(
      base + kSectionTableChecksumAt,
      crc32c(base + tableOffset, sections.size() * kSectionEntrySize));
  storeLE<uint32_t>(base + kHeaderChecksumAt, headerChecksum(base));
  return bytes;
}

absl::Status ExecutableWriter::writeFile(const std::string &path) const {
  absl::StatusOr<std::vector<uint8_t>> bytes = serialize();
  if (!bytes.ok())
    return absl::Status(bytes.status().code(),
                        absl::StrCat(path, ": ", bytes.status().message()));
  return writeBinaryFile(path, *bytes, "executable");
}

//===----------------------------------------------------------------------===//
// Executable
//===----------------------------------------------------------------------===//

/// Validates a file in the order FORMAT.md gives ("Validation"), so every
/// field is checked before anything it locates is read.
class ExecutableParser {
public:
  ExecutableParser(std::vector<uint8_t> bytes, std::string_view name)
      : name(name) {
    exe.bytes = std::move(bytes);
    base = exe.bytes.data();
    fileSize = exe.bytes.size();
  }
  ExecutableParser(MappedFile file, std::string_view name) : name(name) {
    exe.mapping = std::make_unique<MappedFile>(std::move(file));
    base = exe.mapping->data();
    fileSize = exe.mapping->size();
  }

  absl::StatusOr<Executable> run() {
    NEURON_RETURN_IF_ERROR(checkHeader());
    NEURON_RETURN_IF_ERROR(checkManifestRegion());
    NEURON_RETURN_IF_ERROR(checkSectionTable());
    for (uint32_t i = 0; i < sectionCount; ++i)
      NEURON_RETURN_IF_ERROR(readEntry(i));
    NEURON_RETURN_IF_ERROR(checkOverlaps());
    for (size_t i = 0; i < exe.sectionViews.size(); ++i)
      NEURON_RETURN_IF_ERROR(
          checkSectionData(exe.sectionViews[i], checksums[i]));
    NEURON_RETURN_IF_ERROR(parseManifest());
    return std::move(exe);
  }

private:
  absl::Status error(std::string_view what, std::string_view expected,
                     std::string_view found) const {
    return formatError(name, what, expected, found);
  }
  std::string range(std::string_view label, uint64_t offset,
                    uint64_t size) const {
    return absl::StrFormat("%s at bytes [%d, %d)", label, offset,
                           offset + size);
  }
  static std::string hex(uint32_t v) { return absl::StrFormat("0x%08x", v); }

  absl::Status checkHeader();
  absl::Status checkManifestRegion();
  absl::Status checkSectionTable();
  absl::Status readEntry(uint32_t index);
  absl::Status checkOverlaps() const;
  absl::Status checkSectionData(const SectionView &s, uint32_t stored) const;
  absl::Status parseManifest();

  std::string name;
  Executable exe;
  const uint8_t *base;
  uint64_t fileSize;
  uint32_t sectionCount = 0;
  uint64_t manifestOffset = 0, manifestSize = 0, tableOffset = 0;
  std::map<std::string, uint32_t, std::less<>> names;
  /// The stored checksum of each entry of exe.sectionViews.
  std::vector<uint32_t> checksums;
};

absl::Status ExecutableParser::checkHeader() {
  if (fileSize < kHeaderSize)
    return error("header", absl::StrFormat("at least %d bytes", kHeaderSize),
                 absl::StrFormat("a %d-byte file", fileSize));
  if (std::memcmp(base + kMagicAt, kMagic, sizeof(kMagic)) != 0)
    return error("magic", "\"NEURONXE\" (a neuron-mlir executable)",
                 quoteBytes(base + kMagicAt, sizeof(kMagic)));
  // The version decides the layout of everything else, checksum included.
  exe.major = loadLE<uint16_t>(base + kMajorAt);
  exe.minor = loadLE<uint16_t>(base + kMinorAt);
  if (exe.major != kFormatVersionMajor)
    return error("format version",
                 absl::StrFormat("major version %d (this runtime reads %d.x "
                                 "files; it was built for %d.%d)",
                                 kFormatVersionMajor, kFormatVersionMajor,
                                 kFormatVersionMajor, kFormatVersionMinor),
                 absl::StrFormat("version %d.%d", exe.major, exe.minor));
  uint32_t headerSize = loadLE<uint32_t>(base + kHeaderSizeAt);
  if (headerSize != kHeaderSize)
    return error("header size", absl::StrFormat("%d", kHeaderSize),
                 absl::StrFormat("%d", headerSize));
  uint32_t stored = loadLE<uint32_t>(base + kHeaderChecksumAt);
  if (uint32_t computed = headerChecksum(base); computed != stored)
    return error("header checksum", hex(stored) + " (stored)",
                 hex(computed) + " (computed; the header is corrupt)");
  exe.identity = stored;
  uint32_t flags = loadLE<uint32_t>(base + kFlagsAt);
  if (uint32_t unknown = flags & kRequiredFlagsMask & ~kKnownFlags)
    return error(
        "flags",
        absl::StrFormat("no required flag (bits 0-15) but %s",
                        hex(kKnownFlags)),
        absl::StrFormat("%s (unknown bits %s)", hex(flags), hex(unknown)));
  exe.encoding = (flags & kFlagCborManifest) ? ManifestEncoding::Cbor
                                             : ManifestEncoding::Json;
  sectionCount = loadLE<uint32_t>(base + kSectionCountAt);
  manifestOffset = loadLE<uint64_t>(base + kManifestOffsetAt);
  manifestSize = loadLE<uint64_t>(base + kManifestSizeAt);
  tableOffset = loadLE<uint64_t>(base + kSectionTableAt);
  return absl::OkStatus();
}

absl::Status ExecutableParser::checkManifestRegion() {
  if (!inBounds(manifestOffset, manifestSize, fileSize))
    return error(
        "manifest",
        absl::StrFormat("a byte range inside the %d-byte file", fileSize),
        absl::StrFormat("offset %d and size %d", manifestOffset, manifestSize));
  uint32_t stored = loadLE<uint32_t>(base + kManifestChecksumAt);
  uint32_t computed = crc32c(base + manifestOffset, manifestSize);
  if (computed != stored)
    return error("manifest checksum", hex(stored) + " (stored)",
                 hex(computed) + " (computed; the manifest is corrupt)");
  return absl::OkStatus();
}

absl::Status ExecutableParser::checkSectionTable() {
  if (tableOffset > fileSize)
    return error("section table",
                 absl::StrFormat("an offset inside the %d-byte file", fileSize),
                 absl::StrFormat("offset %d", tableOffset));
  uint64_t fits = (fileSize - tableOffset) / kSectionEntrySize;
  if (sectionCount > fits)
    return error("section count",
                 absl::StrFormat("at most %d (the %d-byte entries that fit "
                                 "from offset %d to the end of the %d-byte "
                                 "file)",
                                 fits, kSectionEntrySize, tableOffset,
                                 fileSize),
                 absl::StrFormat("%d", sectionCount));
  uint32_t stored = loadLE<uint32_t>(base + kSectionTableChecksumAt);
  uint32_t computed =
      crc32c(base + tableOffset, uint64_t(sectionCount) * kSectionEntrySize);
  if (computed != stored)
    return error("section table checksum", hex(stored) + " (stored)",
                 hex(computed) + " (computed; the section table is corrupt)");
  return absl::OkStatus();
}

absl::Status ExecutableParser::readEntry(uint32_t index) {
  const uint8_t *entry = base + tableOffset + index * kSectionEntrySize;
  std::string what = absl::StrFormat("section %d name", index);
  const void *nul = std::memchr(entry, 0, kEntryNameSize);
  if (!nul)
    return error(what, "a NUL-terminated name of at most 31 bytes",
                 absl::StrFormat("%d bytes without a NUL: %s", kEntryNameSize,
                                 quoteBytes(entry, kEntryNameSize)));
  size_t length = static_cast<const uint8_t *>(nul) - entry;
  if (length == 0)
    return error(what, "a non-empty name", "an empty one");
  for (size_t i = 0; i < length; ++i)
    if (entry[i] < 0x20 || entry[i] > 0x7E)
      return error(what, "printable ASCII", quoteBytes(entry, length));
  for (size_t i = length + 1; i < kEntryNameSize; ++i)
    if (entry[i] != 0)
      return error(what, "NUL bytes after the name",
                   absl::StrFormat("byte 0x%02x at position %d", entry[i], i));
  SectionView s;
  s.name.assign(reinterpret_cast<const char *>(entry), length);
  if (auto [it, inserted] = names.emplace(s.name, index); !inserted)
    return error(what, "a unique name",
                 absl::StrFormat("\"%s\" again (section %d has it too)", s.name,
                                 it->second));

  std::string label = absl::StrFormat("section \"%s\"", s.name);
  s.offset = loadLE<uint64_t>(entry + kEntryOffsetAt);
  s.size = loadLE<uint64_t>(entry + kEntrySizeAt);
  s.alignment = loadLE<uint32_t>(entry + kEntryAlignmentAt);
  if (!isPowerOfTwo(s.alignment) || s.alignment > kMaxSectionAlignment)
    return error(
        label + " alignment",
        absl::StrFormat("a power of two from 1 to %d", kMaxSectionAlignment),
        absl::StrFormat("%d", s.alignment));
  if (!inBounds(s.offset, s.size, fileSize))
    return error(
        label,
        absl::StrFormat("a byte range inside the %d-byte file", fileSize),
        absl::StrFormat("offset %d and size %d", s.offset, s.size));
  if (s.offset % s.alignment != 0)
    return error(label + " offset",
                 absl::StrFormat("a multiple of its alignment %d", s.alignment),
                 absl::StrFormat("%d", s.offset));
  s.data = base + s.offset;
  checksums.push_back(loadLE<uint32_t>(entry + kEntryChecksumAt));
  exe.sectionViews.push_back(std::move(s));
  return absl::OkStatus();
}

absl::Status ExecutableParser::checkOverlaps() const {
  struct Region {
    uint64_t begin, size;
    std::string label;
  };
  std::vector<Region> regions = {{0, kHeaderSize, "the header"},
                                 {manifestOffset, manifestSize, "the manifest"},
                                 {tableOffset,
                                  uint64_t(sectionCount) * kSectionEntrySize,
                                  "the section table"}};
  for (const SectionView &s : exe.sectionViews)
    regions.push_back(
        {s.offset, s.size, absl::StrFormat("section \"%s\"", s.name)});
  // Empty regions occupy no bytes.
  regions.erase(std::remove_if(regions.begin(), regions.end(),
                               [](const Region &r) { return r.size == 0; }),
                regions.end());
  std::stable_sort(
      regions.begin(), regions.end(),
      [](const Region &a, const Region &b) { return a.begin < b.begin; });
  // All regions are in bounds, so begin + size does not overflow.
  const Region *last = nullptr;
  for (const Region &r : regions) {
    if (last && r.begin < last->begin + last->size)
      return error(
          range(r.label, r.begin, r.size), "no overlap with another region",
          "an overlap with " + range(last->label, last->begin, last->size));
    if (!last || r.begin + r.size > last->begin + last->size)
      last = &r;
  }
  return absl::OkStatus();
}

absl::Status ExecutableParser::checkSectionData(const SectionView &s,
                                                uint32_t stored) const {
  uint32_t computed = crc32c(s.data, s.size);
  if (computed != stored)
    return error(absl::StrFormat("section \"%s\" checksum", s.name),
                 hex(stored) + " (stored)",
                 hex(computed) + " (computed; the section data is corrupt)");
  return absl::OkStatus();
}

absl::Status ExecutableParser::parseManifest() {
  bool cbor = exe.encoding == ManifestEncoding::Cbor;
  json result;
  ManifestSax sax(result, manifestSize);
  const uint8_t *first = base + manifestOffset;
  bool ok = json::sax_parse(first, first + manifestSize, &sax,
                            cbor ? json::input_format_t::cbor
                                 : json::input_format_t::json,
                            /*strict=*/true);
  std::string_view expected =
      cbor ? "a JSON object encoded as CBOR" : "a JSON object as UTF-8 text";
  if (!ok)
    return error("manifest", expected,
                 sax.error.empty() ? "malformed input" : sax.error);
  if (!result.is_object())
    return error("manifest", expected, describeKind(result));
  exe.manifestJson = std::make_unique<json>(std::move(result));
  return absl::OkStatus();
}

Executable::Executable() = default;
Executable::Executable(Executable &&) noexcept = default;
Executable &Executable::operator=(Executable &&) noexcept = default;
Executable::~Executable() = default;

absl::StatusOr<Executable> Executable::parse(std::vector<uint8_t> bytes,
                                             std::string_view name) {
  return ExecutableParser(std::move(bytes), name).run();
}

absl::StatusOr<Executable> Executable::readFile(const std::string &path) {
  NEURON_ASSIGN_OR_RETURN(file, MappedFile::open(path, "executable"));
  return ExecutableParser(std::move(file), path).run();
}

const SectionView *Executable::section(std::string_view name) const {
  for (const SectionView &s : sectionViews)
    if (s.name == name)
      return &s;
  return nullptr;
}

} // namespace neuron::rt
