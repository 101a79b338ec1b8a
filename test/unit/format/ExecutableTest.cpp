//===- ExecutableTest.cpp - Tests for the .nxe executable container -------===//
//
// Round trips through ExecutableWriter and Executable, the error of each
// validation rule in FORMAT.md on a crafted file, and robustness against
// truncation, single-byte corruption and random mutation. Files are crafted
// from the byte layout in FORMAT.md, not from the library's own constants.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/Executable.h"
#include "runtime/format/Checksum.h"

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <random>

using namespace neuron::rt;
using namespace std::string_view_literals;
using json = nlohmann::json;

namespace {

//===----------------------------------------------------------------------===//
// The layout, as FORMAT.md gives it
//===----------------------------------------------------------------------===//

constexpr size_t kMajorAt = 8, kMinorAt = 10, kFlagsAt = 12, kHeaderSizeAt = 16,
                 kCountAt = 20, kManifestOffsetAt = 24, kManifestSizeAt = 32,
                 kTableAt = 40, kManifestCrcAt = 48, kHeaderCrcAt = 52,
                 kTableCrcAt = 56, kReservedAt = 60;
constexpr size_t kEntry = 56, kEntryOffsetAt = 32, kEntrySizeAt = 40,
                 kEntryAlignAt = 48, kEntryCrcAt = 52;

template <typename T> T get(const std::vector<uint8_t> &b, size_t at) {
  T v = 0;
  for (size_t i = 0; i < sizeof(T); ++i)
    v |= static_cast<T>(b[at + i]) << (8 * i);
  return v;
}

template <typename T> void put(std::vector<uint8_t> &b, size_t at, T v) {
  for (size_t i = 0; i < sizeof(T); ++i)
    b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

uint32_t crcOf(const std::vector<uint8_t> &b, uint64_t at, uint64_t size) {
  return crc32c(b.data() + at, size);
}

bool inFile(const std::vector<uint8_t> &b, uint64_t at, uint64_t size) {
  return at <= b.size() && size <= b.size() - at;
}

size_t entryAt(const std::vector<uint8_t> &b, size_t i) {
  return get<uint64_t>(b, kTableAt) + i * kEntry;
}

/// Recomputes the header checksum after a test changed a header field.
void resealHeader(std::vector<uint8_t> &b) {
  put<uint32_t>(b, kHeaderCrcAt, 0);
  put<uint32_t>(b, kHeaderCrcAt, crcOf(b, 0, 64));
}

/// Recomputes every checksum whose region lies inside the file, so a
/// mutation reaches the checks behind them.
void resealAll(std::vector<uint8_t> &b) {
  if (b.size() < 64)
    return;
  uint64_t mo = get<uint64_t>(b, kManifestOffsetAt);
  uint64_t ms = get<uint64_t>(b, kManifestSizeAt);
  if (inFile(b, mo, ms))
    put<uint32_t>(b, kManifestCrcAt, crcOf(b, mo, ms));
  uint64_t to = get<uint64_t>(b, kTableAt);
  uint64_t count = get<uint32_t>(b, kCountAt);
  if (inFile(b, to, count * kEntry)) {
    for (uint64_t i = 0; i < count; ++i) {
      size_t e = to + i * kEntry;
      uint64_t so = get<uint64_t>(b, e + kEntryOffsetAt);
      uint64_t ss = get<uint64_t>(b, e + kEntrySizeAt);
      if (inFile(b, so, ss))
        put<uint32_t>(b, e + kEntryCrcAt, crcOf(b, so, ss));
    }
    put<uint32_t>(b, kTableCrcAt, crcOf(b, to, count * kEntry));
  }
  resealHeader(b);
}

/// A section as stored: `name` is the raw 32-byte field before padding.
struct RawSection {
  std::string name;
  std::vector<uint8_t> data;
  uint32_t alignment = 64;
};

/// A file laid out as FORMAT.md says the writer lays it out, with any
/// manifest bytes, independently of ExecutableWriter.
std::vector<uint8_t> craft(const std::vector<uint8_t> &manifest, bool cbor,
                           const std::vector<RawSection> &sections) {
  auto align = [](uint64_t v, uint64_t a) { return (v + a - 1) / a * a; };
  uint64_t table = align(64 + manifest.size(), 8);
  uint64_t end = table + sections.size() * kEntry;
  std::vector<uint64_t> offsets;
  for (const RawSection &s : sections) {
    offsets.push_back(align(end, s.alignment));
    end = offsets.back() + s.data.size();
  }
  std::vector<uint8_t> b(end, 0);
  std::memcpy(b.data(), "NEURONXE", 8);
  put<uint16_t>(b, kMajorAt, 1);
  put<uint16_t>(b, kMinorAt, 0);
  put<uint32_t>(b, kFlagsAt, cbor ? 1 : 0);
  put<uint32_t>(b, kHeaderSizeAt, 64);
  put<uint32_t>(b, kCountAt, sections.size());
  put<uint64_t>(b, kManifestOffsetAt, 64);
  put<uint64_t>(b, kManifestSizeAt, manifest.size());
  put<uint64_t>(b, kTableAt, table);
  std::copy(manifest.begin(), manifest.end(), b.begin() + 64);
  for (size_t i = 0; i < sections.size(); ++i) {
    size_t e = table + i * kEntry;
    std::memcpy(b.data() + e, sections[i].name.data(),
                std::min<size_t>(sections[i].name.size(), 32));
    put<uint64_t>(b, e + kEntryOffsetAt, offsets[i]);
    put<uint64_t>(b, e + kEntrySizeAt, sections[i].data.size());
    put<uint32_t>(b, e + kEntryAlignAt, sections[i].alignment);
    std::copy(sections[i].data.begin(), sections[i].data.end(),
              b.begin() + offsets[i]);
  }
  resealAll(b);
  return b;
}

std::vector<uint8_t> bytesOf(std::string_view s) {
  return std::vector<uint8_t>(s.begin(), s.end());
}

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<uint8_t>(seed + 7 * i);
  return v;
}

/// Two small sections after an 11-byte JSON manifest: padding before the
/// table and between the sections.
std::vector<uint8_t> smallFile(bool cbor = false) {
  json manifest = {{"a", 12345}};
  return craft(cbor ? json::to_cbor(manifest) : bytesOf(manifest.dump()), cbor,
               {{"w0", pattern(5, 1), 64}, {"w1", pattern(3, 9), 16}});
}

/// The error of parsing `bytes` as "test.nxe"; it must be InvalidArgument.
std::string errorOf(std::vector<uint8_t> bytes) {
  absl::StatusOr<Executable> exe =
      Executable::parse(std::move(bytes), "test.nxe");
  EXPECT_FALSE(exe.ok());
  if (exe.ok())
    return "";
  EXPECT_EQ(exe.status().code(), absl::StatusCode::kInvalidArgument);
  std::string message(exe.status().message());
  EXPECT_EQ(message.rfind("test.nxe: ", 0), 0u) << message;
  return message;
}

#define EXPECT_CONTAINS(haystack, needle)                                      \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos)             \
      << "'" << (needle) << "' not in: " << (haystack)

json sampleManifest() {
  return {{"compiler", {{"name", "neuron-mlir"}, {"version", "0.1.0"}}},
          {"target",
           {{"chip", "trainium2"}, {"instance", "trn2.48xlarge"}, {"lnc", 2}}},
          {"kernels", {{{"name", "layer"}, {"engines", {"tensor", "vector"}}}}},
          {"scale", 0.125},
          {"note", "\xc2\xb5s per step"}};
}

//===----------------------------------------------------------------------===//
// Checksum
//===----------------------------------------------------------------------===//

TEST(Checksum, KnownVectors) {
  std::vector<uint8_t> check = bytesOf("123456789");
  EXPECT_EQ(crc32c(check.data(), check.size()), 0xE3069283u);
  EXPECT_EQ(crc32c(nullptr, 0), 0u);
  // RFC 3720 (iSCSI), appendix B.4.
  std::vector<uint8_t> zeros(32, 0), ones(32, 0xFF), ascending(32);
  for (int i = 0; i < 32; ++i)
    ascending[i] = i;
  EXPECT_EQ(crc32c(zeros.data(), 32), 0x8A9136AAu);
  EXPECT_EQ(crc32c(ones.data(), 32), 0x62A8AB43u);
  EXPECT_EQ(crc32c(ascending.data(), 32), 0x46DD794Eu);
  // Continuing a checksum equals checksumming the whole.
  EXPECT_EQ(crc32c(check.data() + 4, 5, crc32c(check.data(), 4)),
            crc32c(check.data(), 9));
  EXPECT_EQ(crc32cPortable(check.data(), check.size()), 0xE3069283u);
}

TEST(Checksum, HardwareAndTableAgree) {
  // Every length up to 64 and a long one, at every alignment of 8: the
  // eight-byte steps, the tail and unaligned starts.
  std::vector<uint8_t> bytes(4096 + 8);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = uint8_t(i * 131 + 7);
  for (size_t offset = 0; offset < 8; ++offset) {
    for (size_t size = 0; size <= 64; ++size)
      ASSERT_EQ(crc32c(bytes.data() + offset, size, 0x1234u),
                crc32cPortable(bytes.data() + offset, size, 0x1234u))
          << "offset " << offset << ", size " << size;
    EXPECT_EQ(crc32c(bytes.data() + offset, 4096),
              crc32cPortable(bytes.data() + offset, 4096));
  }
}

//===----------------------------------------------------------------------===//
// Round trips
//===----------------------------------------------------------------------===//

void expectRoundTrip(ManifestEncoding encoding) {
  ExecutableWriter writer(sampleManifest());
  writer.setManifestEncoding(encoding);
  std::vector<Section> sections = {{"weights", 64, pattern(100, 3)},
                                   {"bias", 16, pattern(7, 5)},
                                   {"empty", 64, {}},
                                   {"page", 4096, pattern(33, 11)},
                                   {"byte", 1, pattern(1, 42)}};
  for (const Section &s : sections)
    writer.addSection(s);
  absl::StatusOr<std::vector<uint8_t>> bytes = writer.serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  std::vector<uint8_t> file = *bytes;

  // The layout FORMAT.md describes.
  EXPECT_EQ(std::string(file.begin(), file.begin() + 8), "NEURONXE");
  EXPECT_EQ(get<uint32_t>(file, kFlagsAt),
            encoding == ManifestEncoding::Cbor ? 1u : 0u);
  EXPECT_EQ(get<uint64_t>(file, kManifestOffsetAt), 64u);
  std::vector<uint8_t> manifestBytes = encoding == ManifestEncoding::Cbor
                                           ? json::to_cbor(sampleManifest())
                                           : bytesOf(sampleManifest().dump());
  EXPECT_EQ(std::vector<uint8_t>(file.begin() + 64,
                                 file.begin() + 64 + manifestBytes.size()),
            manifestBytes);
  EXPECT_EQ(get<uint64_t>(file, kTableAt) % 8, 0u);
  EXPECT_EQ(get<uint32_t>(file, kReservedAt), 0u);

  absl::StatusOr<Executable> exe = Executable::parse(file, "rt.nxe");
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(exe->manifest(), sampleManifest());
  EXPECT_EQ(exe->manifestEncoding(), encoding);
  EXPECT_EQ(exe->versionMajor(), kFormatVersionMajor);
  EXPECT_EQ(exe->versionMinor(), kFormatVersionMinor);
  ASSERT_EQ(exe->sections().size(), sections.size());
  for (size_t i = 0; i < sections.size(); ++i) {
    const SectionView &view = exe->sections()[i];
    EXPECT_EQ(view.name, sections[i].name);
    EXPECT_EQ(view.alignment, sections[i].alignment);
    EXPECT_EQ(view.offset % sections[i].alignment, 0u) << view.name;
    ASSERT_EQ(view.size, sections[i].data.size());
    EXPECT_TRUE(
        std::equal(view.data, view.data + view.size, sections[i].data.begin()));
    EXPECT_TRUE(std::equal(view.data, view.data + view.size,
                           file.begin() + view.offset));
    EXPECT_EQ(exe->section(sections[i].name), &view);
  }
  EXPECT_EQ(exe->section("absent"), nullptr);
  // The file ends where the last section does.
  EXPECT_EQ(exe->sections().back().offset + 1, file.size());
}

TEST(Executable, RoundTripJson) { expectRoundTrip(ManifestEncoding::Json); }
TEST(Executable, RoundTripCbor) { expectRoundTrip(ManifestEncoding::Cbor); }

TEST(Executable, NoSectionsEmptyManifest) {
  absl::StatusOr<std::vector<uint8_t>> bytes =
      ExecutableWriter(json::object()).serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<Executable> exe = Executable::parse(*bytes);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_TRUE(exe->manifest().empty());
  EXPECT_TRUE(exe->sections().empty());
}

TEST(Executable, WriterMatchesSpecLayout) {
  // The writer and the layout crafted from FORMAT.md agree byte for byte.
  json manifest = {{"a", 12345}};
  ExecutableWriter writer(manifest);
  writer.addSection({"w0", 64, pattern(5, 1)});
  writer.addSection({"w1", 16, pattern(3, 9)});
  absl::StatusOr<std::vector<uint8_t>> bytes = writer.serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, smallFile());
  writer.setManifestEncoding(ManifestEncoding::Cbor);
  bytes = writer.serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, smallFile(/*cbor=*/true));
}

TEST(Executable, MoveKeepsSectionData) {
  absl::StatusOr<Executable> exe = Executable::parse(smallFile());
  ASSERT_TRUE(exe.ok()) << exe.status();
  const uint8_t *before = exe->section("w1")->data;
  Executable moved = std::move(*exe);
  Executable assigned = std::move(moved);
  EXPECT_EQ(assigned.section("w1")->data, before);
  std::vector<uint8_t> expected = pattern(3, 9);
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), before));
  EXPECT_EQ(assigned.manifest()["a"], 12345);
}

TEST(Executable, FileRoundTripAndUnreadablePaths) {
  std::string dir = testing::TempDir();
  std::string path = dir + "/roundtrip.nxe";
  ExecutableWriter writer(sampleManifest());
  writer.addSection({"w", 64, pattern(10, 1)});
  ASSERT_TRUE(writer.writeFile(path).ok());
  absl::StatusOr<Executable> exe = Executable::readFile(path);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(exe->manifest(), sampleManifest());
  EXPECT_EQ(exe->section("w")->size, 10u);

  absl::StatusOr<Executable> missing =
      Executable::readFile(dir + "/no-such.nxe");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_CONTAINS(missing.status().message(), "no-such.nxe");

  absl::StatusOr<Executable> directory = Executable::readFile(dir);
  ASSERT_FALSE(directory.ok());
  EXPECT_CONTAINS(directory.status().message(), "not a regular file");

  absl::Status unwritable = writer.writeFile("/nonexistent-dir/x.nxe");
  ASSERT_FALSE(unwritable.ok());
  EXPECT_CONTAINS(unwritable.message(), "/nonexistent-dir/x.nxe");

  // A corrupt file on disk is named by its path.
  std::vector<uint8_t> bad = smallFile();
  bad[0] = 'X';
  {
    std::FILE *f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(bad.data(), 1, bad.size(), f);
    std::fclose(f);
  }
  absl::StatusOr<Executable> corrupt = Executable::readFile(path);
  ASSERT_FALSE(corrupt.ok());
  EXPECT_CONTAINS(corrupt.status().message(), path + ": magic");
}

//===----------------------------------------------------------------------===//
// Writer errors
//===----------------------------------------------------------------------===//

std::string writerError(const ExecutableWriter &writer) {
  absl::StatusOr<std::vector<uint8_t>> bytes = writer.serialize();
  EXPECT_FALSE(bytes.ok());
  if (bytes.ok())
    return "";
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(bytes.status().message());
}

std::string sectionError(Section s, Section first = {"first", 64, {}}) {
  ExecutableWriter writer(json::object());
  writer.addSection(std::move(first));
  writer.addSection(std::move(s));
  return writerError(writer);
}

TEST(ExecutableWriter, RejectsBadSections) {
  EXPECT_CONTAINS(sectionError({"first", 64, {}}),
                  "section 1 name: expected a unique name, found \"first\" "
                  "again (section 0 has it too)");
  EXPECT_CONTAINS(sectionError({"", 64, {}}),
                  "expected 1 to 31 bytes, found 0 bytes");
  EXPECT_CONTAINS(sectionError({std::string(32, 'x'), 64, {}}),
                  "expected 1 to 31 bytes, found 32 bytes");
  EXPECT_TRUE(ExecutableWriter(json::object()).serialize().ok()); // sanity
  EXPECT_CONTAINS(sectionError({"tab\there", 64, {}}),
                  "expected printable ASCII, found \"tab\\there\"");
  for (uint32_t alignment : {0u, 48u, 131072u})
    EXPECT_CONTAINS(sectionError({"s", alignment, {}}),
                    "section \"s\" alignment: expected a power of two from 1 "
                    "to 65536, found " +
                        std::to_string(alignment));
  // 31 bytes and alignment 65536 are the limits, not errors.
  ExecutableWriter ok(json::object());
  ok.addSection({std::string(31, 'n'), 65536, {1, 2, 3}});
  absl::StatusOr<std::vector<uint8_t>> bytes = ok.serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<Executable> exe = Executable::parse(*bytes);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(exe->sections()[0].offset, 65536u);
}

TEST(ExecutableWriter, RejectsBadManifests) {
  EXPECT_CONTAINS(writerError(ExecutableWriter(json::array({1, 2}))),
                  "manifest: expected a JSON object, found a JSON array");
  EXPECT_CONTAINS(writerError(ExecutableWriter(json{{"k", "\xff\xfe"}})),
                  "manifest at /k: expected valid UTF-8");
  json deep = 1;
  for (int i = 0; i < kMaxManifestDepth; ++i)
    deep = json::array({deep});
  EXPECT_CONTAINS(writerError(ExecutableWriter(json{{"deep", deep}})),
                  "at most 128 levels of nesting");
  // One level less is the deepest a reader accepts.
  json ok = 1;
  for (int i = 0; i < kMaxManifestDepth - 1; ++i)
    ok = json::array({ok});
  absl::StatusOr<std::vector<uint8_t>> bytes =
      ExecutableWriter(json{{"deep", ok}}).serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_TRUE(Executable::parse(*bytes).ok());
  EXPECT_CONTAINS(
      writerError(ExecutableWriter(json{{"b", json::binary({1, 2})}})),
      "manifest at /b: expected JSON values only, found a binary value");
}

//===----------------------------------------------------------------------===//
// Header validation
//===----------------------------------------------------------------------===//

TEST(ExecutableValidation, ShorterThanHeader) {
  EXPECT_EQ(errorOf({}),
            "test.nxe: header: expected at least 64 bytes, found a 0-byte "
            "file");
  std::vector<uint8_t> file = smallFile();
  file.resize(63);
  EXPECT_EQ(errorOf(file), "test.nxe: header: expected at least 64 bytes, "
                           "found a 63-byte file");
}

TEST(ExecutableValidation, WrongMagicShowsBytes) {
  std::vector<uint8_t> file = smallFile();
  std::memcpy(file.data(), "PK\x03\x04\x14\x00\x00\x00", 8);
  EXPECT_EQ(errorOf(file), "test.nxe: magic: expected \"NEURONXE\" (a "
                           "neuron-mlir executable), found "
                           "\"PK\\x03\\x04\\x14\\x00\\x00\\x00\"");
}

TEST(ExecutableValidation, UnsupportedMajorVersion) {
  std::vector<uint8_t> file = smallFile();
  put<uint16_t>(file, kMajorAt, 2);
  put<uint16_t>(file, kMinorAt, 3);
  EXPECT_EQ(errorOf(file),
            "test.nxe: format version: expected major version 1 (this runtime "
            "reads 1.x files; it was built for 1.0), found version 2.3");
  put<uint16_t>(file, kMajorAt, 0);
  resealHeader(file);
  EXPECT_CONTAINS(errorOf(file), "found version 0.3");
}

TEST(ExecutableValidation, NewerMinorVersionAccepted) {
  std::vector<uint8_t> file = smallFile();
  put<uint16_t>(file, kMinorAt, 7);
  resealHeader(file);
  absl::StatusOr<Executable> exe = Executable::parse(file);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(exe->versionMajor(), 1);
  EXPECT_EQ(exe->versionMinor(), 7);
}

TEST(ExecutableValidation, HeaderSizeMismatch) {
  std::vector<uint8_t> file = smallFile();
  put<uint32_t>(file, kHeaderSizeAt, 128);
  resealHeader(file);
  EXPECT_EQ(errorOf(file), "test.nxe: header size: expected 64, found 128");
}

TEST(ExecutableValidation, HeaderChecksumMismatch) {
  std::vector<uint8_t> file = smallFile();
  uint32_t stored = get<uint32_t>(file, kHeaderCrcAt);
  file[kReservedAt] ^= 1;
  std::string message = errorOf(file);
  EXPECT_CONTAINS(message, "test.nxe: header checksum: expected 0x");
  char hex[16];
  std::snprintf(hex, sizeof(hex), "0x%08x", stored);
  EXPECT_CONTAINS(message, std::string(hex) + " (stored), found 0x");
}

TEST(ExecutableValidation, Flags) {
  std::vector<uint8_t> file = smallFile();
  put<uint32_t>(file, kFlagsAt, 1u << 3);
  resealHeader(file);
  EXPECT_EQ(errorOf(file),
            "test.nxe: flags: expected no required flag (bits 0-15) but "
            "0x00000001, found 0x00000008 (unknown bits 0x00000008)");
  // An unknown optional flag is ignored.
  put<uint32_t>(file, kFlagsAt, 1u << 20);
  resealHeader(file);
  EXPECT_TRUE(Executable::parse(file).ok());
}

//===----------------------------------------------------------------------===//
// Manifest validation
//===----------------------------------------------------------------------===//

TEST(ExecutableValidation, ManifestOutOfBounds) {
  std::vector<uint8_t> file = smallFile();
  std::string size = std::to_string(file.size());
  put<uint64_t>(file, kManifestOffsetAt, file.size() - 4);
  resealHeader(file);
  EXPECT_EQ(errorOf(file),
            "test.nxe: manifest: expected a byte range inside the " + size +
                "-byte file, found offset " + std::to_string(file.size() - 4) +
                " and size 11");
  // offset + size overflows 64 bits: still caught.
  put<uint64_t>(file, kManifestOffsetAt, 64);
  put<uint64_t>(file, kManifestSizeAt, UINT64_MAX);
  resealHeader(file);
  EXPECT_CONTAINS(errorOf(file),
                  "found offset 64 and size 18446744073709551615");
  put<uint64_t>(file, kManifestOffsetAt, UINT64_MAX - 1);
  put<uint64_t>(file, kManifestSizeAt, 4);
  resealHeader(file);
  EXPECT_CONTAINS(errorOf(file),
                  "found offset 18446744073709551614 and size 4");
}

TEST(ExecutableValidation, ManifestChecksumMismatch) {
  std::vector<uint8_t> file = smallFile();
  file[64 + 5] ^= 0x10;
  EXPECT_CONTAINS(errorOf(file), "test.nxe: manifest checksum: expected 0x");
}

TEST(ExecutableValidation, ManifestOverlapsHeader) {
  std::vector<uint8_t> file = smallFile();
  put<uint64_t>(file, kManifestOffsetAt, 0);
  put<uint64_t>(file, kManifestSizeAt, 8);
  resealAll(file);
  EXPECT_EQ(errorOf(file),
            "test.nxe: the manifest at bytes [0, 8): expected no overlap with "
            "another region, found an overlap with the header at bytes [0, "
            "64)");
}

/// The error for a file whose manifest is `manifest`.
std::string manifestError(std::string_view manifest, bool cbor = false) {
  return errorOf(craft(bytesOf(manifest), cbor, {{"s", {1, 2}, 64}}));
}

TEST(ExecutableValidation, ManifestNotJsonObject) {
  EXPECT_EQ(manifestError("[1, 2]"),
            "test.nxe: manifest: expected a JSON object as UTF-8 text, found "
            "a JSON array");
  EXPECT_EQ(manifestError("\"text\""),
            "test.nxe: manifest: expected a JSON object as UTF-8 text, found "
            "a JSON string");
  EXPECT_CONTAINS(manifestError("{\"a\": nope}"),
                  "test.nxe: manifest: expected a JSON object as UTF-8 text, "
                  "found parse error at line 1, column 8");
  EXPECT_CONTAINS(manifestError(""), "found parse error");
  EXPECT_CONTAINS(manifestError("{} {}"), "found parse error");
  EXPECT_CONTAINS(manifestError("{\"a\": \"\xff\"}"), "found parse error");
}

TEST(ExecutableValidation, ManifestNestingBounded) {
  // Deeper than the limit: rejected without recursing (no stack overflow
  // even 200000 deep).
  for (int depth : {kMaxManifestDepth, 200000}) {
    std::string deep =
        "{\"a\":" + std::string(depth, '[') + std::string(depth, ']') + "}";
    EXPECT_CONTAINS(manifestError(deep),
                    "found arrays and objects nested more than 128 deep");
    std::string cbor = "\xa1\x61\x61" + std::string(depth, '\x81') + '\x00';
    EXPECT_CONTAINS(manifestError(cbor, /*cbor=*/true),
                    "found arrays and objects nested more than 128 deep");
  }
  std::string ok = "{\"a\":" + std::string(kMaxManifestDepth - 1, '[') +
                   std::string(kMaxManifestDepth - 1, ']') + "}";
  EXPECT_TRUE(Executable::parse(craft(bytesOf(ok), false, {})).ok());
}

TEST(ExecutableValidation, ManifestCborErrors) {
  auto cborError = [](std::string_view bytes) {
    return manifestError(bytes, /*cbor=*/true);
  };
  EXPECT_EQ(cborError("\x80"sv), "test.nxe: manifest: expected a JSON object "
                                 "encoded as CBOR, found a JSON array");
  // Declared sizes far beyond the manifest: an error, not an abort.
  EXPECT_CONTAINS(cborError("\xbb\x7f\xff\xff\xff\xff\xff\xff\xff"sv),
                  "found a container declaring 9223372036854775807 elements "
                  "in a 9-byte manifest");
  // 2^64 - 1 is nlohmann's "size unknown": read element by element.
  EXPECT_CONTAINS(cborError("\xbb\xff\xff\xff\xff\xff\xff\xff\xff"sv),
                  "found parse error at byte 10");
  EXPECT_CONTAINS(
      cborError("\xa1\x61\x61\x9b\x7f\xff\xff\xff\xff\xff\xff\xff"sv),
      "declaring 9223372036854775807 elements");
  EXPECT_CONTAINS(
      cborError("\xa1\x61\x61\x7b\x7f\xff\xff\xff\xff\xff\xff\xff"sv),
      "found parse error");
  EXPECT_CONTAINS(cborError("\xa1\x61\x61\x62\xc3\x28"sv),
                  "found a string that is not valid UTF-8");
  EXPECT_CONTAINS(cborError("\xa1\x62\xed\xa0\x61\x00"sv),
                  "found a key that is not valid UTF-8");
  EXPECT_CONTAINS(cborError("\xa1\x61\x61\x42\x01\x02"sv),
                  "found a CBOR byte string");
  EXPECT_CONTAINS(cborError("\xa0\x00"sv), "found parse error");
  EXPECT_CONTAINS(cborError("\xa1\x61\x61\xc1\x00"sv), "found parse error");
  EXPECT_CONTAINS(cborError(""sv), "found parse error");
  EXPECT_CONTAINS(cborError("\xa2\x61\x61"sv), "found parse error");
  // The JSON text parser is not used for a CBOR manifest and vice versa.
  EXPECT_CONTAINS(cborError("{}"sv), "found parse error");
  EXPECT_CONTAINS(manifestError("\xa0"sv), "found parse error");
  std::string valid = "\xa1\x61\x61\x18\x2a";
  absl::StatusOr<Executable> exe =
      Executable::parse(craft(bytesOf(valid), true, {}));
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(exe->manifest(), json({{"a", 42}}));
}

//===----------------------------------------------------------------------===//
// Section table validation
//===----------------------------------------------------------------------===//

TEST(ExecutableValidation, SectionTableOutOfBounds) {
  std::vector<uint8_t> file = smallFile();
  uint64_t end = file.size();
  put<uint64_t>(file, kTableAt, end + 8);
  resealHeader(file);
  EXPECT_EQ(errorOf(file), "test.nxe: section table: expected an offset "
                           "inside the " +
                               std::to_string(end) +
                               "-byte file, found offset " +
                               std::to_string(end + 8));
}

TEST(ExecutableValidation, SectionCountBoundedByFileSize) {
  std::vector<uint8_t> file = smallFile();
  uint64_t table = get<uint64_t>(file, kTableAt);
  uint64_t fits = (file.size() - table) / kEntry;
  put<uint32_t>(file, kCountAt, 0xFFFFFFFFu);
  resealHeader(file);
  EXPECT_EQ(errorOf(file), "test.nxe: section count: expected at most " +
                               std::to_string(fits) +
                               " (the 56-byte entries that fit from offset " +
                               std::to_string(table) + " to the end of the " +
                               std::to_string(file.size()) +
                               "-byte file), found 4294967295");
}

TEST(ExecutableValidation, SectionTableChecksumMismatch) {
  std::vector<uint8_t> file = smallFile();
  file[entryAt(file, 1) + 1] = 'X'; // "w1" -> "wX"
  EXPECT_CONTAINS(errorOf(file),
                  "test.nxe: section table checksum: expected 0x");
}

/// The error after `change` edits the table of smallFile() (resealed).
template <typename F> std::string tableError(F change) {
  std::vector<uint8_t> file = smallFile();
  change(file);
  resealAll(file);
  return errorOf(file);
}

TEST(ExecutableValidation, SectionNames) {
  EXPECT_EQ(tableError([](std::vector<uint8_t> &f) {
              std::memset(f.data() + entryAt(f, 0), 'n', 32);
            }),
            "test.nxe: section 0 name: expected a NUL-terminated name of at "
            "most 31 bytes, found 32 bytes without a NUL: \"" +
                std::string(32, 'n') + "\"");
  EXPECT_EQ(tableError([](std::vector<uint8_t> &f) { f[entryAt(f, 1)] = 0; }),
            "test.nxe: section 1 name: expected a non-empty name, found an "
            "empty one");
  EXPECT_EQ(
      tableError([](std::vector<uint8_t> &f) { f[entryAt(f, 0) + 1] = 0x7F; }),
      "test.nxe: section 0 name: expected printable ASCII, found \"w\\x7f\"");
  EXPECT_EQ(
      tableError([](std::vector<uint8_t> &f) { f[entryAt(f, 0) + 20] = 'z'; }),
      "test.nxe: section 0 name: expected NUL bytes after the name, found "
      "byte 0x7a at position 20");
  EXPECT_EQ(tableError([](std::vector<uint8_t> &f) {
              f[entryAt(f, 1) + 1] = '0'; // "w1" -> "w0"
            }),
            "test.nxe: section 1 name: expected a unique name, found \"w0\" "
            "again (section 0 has it too)");
}

TEST(ExecutableValidation, SectionAlignment) {
  for (uint32_t alignment : {0u, 3u, 48u, 1u << 17})
    EXPECT_EQ(tableError([&](std::vector<uint8_t> &f) {
                put<uint32_t>(f, entryAt(f, 0) + kEntryAlignAt, alignment);
              }),
              "test.nxe: section \"w0\" alignment: expected a power of two "
              "from 1 to 65536, found " +
                  std::to_string(alignment));
}

TEST(ExecutableValidation, MisalignedSection) {
  std::vector<uint8_t> file = smallFile();
  uint64_t offset = get<uint64_t>(file, entryAt(file, 0) + kEntryOffsetAt);
  EXPECT_EQ(tableError([](std::vector<uint8_t> &f) {
              size_t e = entryAt(f, 0) + kEntryOffsetAt;
              put<uint64_t>(f, e, get<uint64_t>(f, e) + 8);
            }),
            "test.nxe: section \"w0\" offset: expected a multiple of its "
            "alignment 64, found " +
                std::to_string(offset + 8));
}

TEST(ExecutableValidation, SectionOutOfBounds) {
  std::vector<uint8_t> file = smallFile();
  std::string size = std::to_string(file.size());
  EXPECT_CONTAINS(
      tableError([](std::vector<uint8_t> &f) {
        put<uint64_t>(f, entryAt(f, 1) + kEntrySizeAt, 1000);
      }),
      "test.nxe: section \"w1\": expected a byte range inside the " + size +
          "-byte file, found offset");
  // offset + size overflows 64 bits.
  EXPECT_CONTAINS(tableError([](std::vector<uint8_t> &f) {
                    put<uint64_t>(f, entryAt(f, 1) + kEntryOffsetAt, 64);
                    put<uint64_t>(f, entryAt(f, 1) + kEntrySizeAt, UINT64_MAX);
                  }),
                  "found offset 64 and size 18446744073709551615");
  EXPECT_CONTAINS(tableError([](std::vector<uint8_t> &f) {
                    put<uint64_t>(f, entryAt(f, 1) + kEntryOffsetAt,
                                  UINT64_MAX - 15);
                    put<uint64_t>(f, entryAt(f, 1) + kEntrySizeAt, 32);
                  }),
                  "found offset 18446744073709551600 and size 32");
}

TEST(ExecutableValidation, OverlappingRegions) {
  std::vector<uint8_t> file = smallFile();
  uint64_t w0 = get<uint64_t>(file, entryAt(file, 0) + kEntryOffsetAt);
  // w1 (3 bytes) inside w0 (5 bytes).
  EXPECT_EQ(tableError([&](std::vector<uint8_t> &f) {
              put<uint64_t>(f, entryAt(f, 1) + kEntryOffsetAt, w0);
            }),
            absl::StrFormat("test.nxe: section \"w1\" at bytes [%d, %d): "
                            "expected no overlap with another region, found "
                            "an overlap with section \"w0\" at bytes [%d, %d)",
                            w0, w0 + 3, w0, w0 + 5));
  EXPECT_CONTAINS(tableError([](std::vector<uint8_t> &f) {
                    put<uint64_t>(f, entryAt(f, 0) + kEntryOffsetAt, 64);
                  }),
                  "found an overlap with the manifest at bytes [64, 75)");
  EXPECT_CONTAINS(tableError([](std::vector<uint8_t> &f) {
                    put<uint64_t>(f, entryAt(f, 0) + kEntryOffsetAt, 0);
                  }),
                  "found an overlap with the header at bytes [0, 64)");
  EXPECT_CONTAINS(tableError([](std::vector<uint8_t> &f) {
                    put<uint64_t>(f, entryAt(f, 1) + kEntryOffsetAt,
                                  get<uint64_t>(f, kTableAt));
                  }),
                  "found an overlap with the section table");
  // Empty sections occupy nothing, so they may sit anywhere in bounds.
  std::vector<uint8_t> empty =
      craft(bytesOf("{}"), false, {{"a", {}, 1}, {"b", {}, 1}});
  put<uint64_t>(empty, entryAt(empty, 0) + kEntryOffsetAt, 3);
  put<uint64_t>(empty, entryAt(empty, 1) + kEntryOffsetAt, 3);
  resealAll(empty);
  EXPECT_TRUE(Executable::parse(empty).ok());
}

TEST(ExecutableValidation, SectionChecksumMismatch) {
  std::vector<uint8_t> file = smallFile();
  uint64_t w1 = get<uint64_t>(file, entryAt(file, 1) + kEntryOffsetAt);
  file[w1 + 2] ^= 0x40;
  EXPECT_CONTAINS(errorOf(file), "test.nxe: section \"w1\" checksum: expected "
                                 "0x");
}

//===----------------------------------------------------------------------===//
// Robustness
//===----------------------------------------------------------------------===//

TEST(ExecutableRobustness, TruncationAtEveryLength) {
  for (bool cbor : {false, true}) {
    std::vector<uint8_t> file = smallFile(cbor);
    ASSERT_TRUE(Executable::parse(file).ok());
    for (size_t n = 0; n < file.size(); ++n) {
      std::vector<uint8_t> prefix(file.begin(), file.begin() + n);
      absl::StatusOr<Executable> exe = Executable::parse(prefix, "cut.nxe");
      ASSERT_FALSE(exe.ok()) << "length " << n;
      EXPECT_EQ(exe.status().code(), absl::StatusCode::kInvalidArgument);
    }
  }
}

/// Whether byte `at` of smallFile() lies in a checksummed region.
bool covered(const std::vector<uint8_t> &file, uint64_t at) {
  auto within = [&](uint64_t begin, uint64_t size) {
    return at >= begin && at < begin + size;
  };
  if (within(0, 64) ||
      within(get<uint64_t>(file, kManifestOffsetAt),
             get<uint64_t>(file, kManifestSizeAt)) ||
      within(get<uint64_t>(file, kTableAt),
             get<uint32_t>(file, kCountAt) * kEntry))
    return true;
  for (size_t i = 0; i < get<uint32_t>(file, kCountAt); ++i)
    if (within(get<uint64_t>(file, entryAt(file, i) + kEntryOffsetAt),
               get<uint64_t>(file, entryAt(file, i) + kEntrySizeAt)))
      return true;
  return false;
}

TEST(ExecutableRobustness, SingleByteCorruptionAtEveryPosition) {
  for (bool cbor : {false, true}) {
    std::vector<uint8_t> file = smallFile(cbor);
    size_t padding = 0;
    for (size_t at = 0; at < file.size(); ++at) {
      for (uint8_t flip : {0x01, 0x80, 0xFF}) {
        std::vector<uint8_t> bad = file;
        bad[at] ^= flip;
        absl::StatusOr<Executable> exe = Executable::parse(bad, "bad.nxe");
        if (covered(file, at)) {
          EXPECT_FALSE(exe.ok()) << "byte " << at << " ^ " << int(flip);
          continue;
        }
        // Padding is not checked: the file reads the same.
        ++padding;
        ASSERT_TRUE(exe.ok()) << "byte " << at << ": " << exe.status();
        EXPECT_EQ(exe->manifest(), json({{"a", 12345}}));
        EXPECT_EQ(exe->sections().size(), 2u);
      }
    }
    EXPECT_GT(padding, 0u) << "the file should have padding bytes";
  }
}

TEST(ExecutableRobustness, RandomMutationsNeverCrash) {
  std::mt19937 rng(12345);
  std::vector<std::vector<uint8_t>> seeds = {smallFile(false), smallFile(true)};
  {
    ExecutableWriter writer(sampleManifest());
    writer.setManifestEncoding(ManifestEncoding::Cbor);
    writer.addSection({"a", 8, pattern(20, 1)});
    writer.addSection({"b", 1, {}});
    writer.addSection({"c", 32, pattern(9, 2)});
    seeds.push_back(*writer.serialize());
  }
  size_t accepted = 0;
  for (int iteration = 0; iteration < 20000; ++iteration) {
    std::vector<uint8_t> file = seeds[iteration % seeds.size()];
    int edits = 1 + rng() % 6;
    for (int k = 0; k < edits; ++k) {
      size_t at = rng() % file.size();
      switch (rng() % 4) {
      case 0:
        file[at] = rng();
        break;
      case 1:
        file[at] ^= 1u << (rng() % 8);
        break;
      case 2: // A boundary value in a header or table field.
        if (at + 8 <= file.size())
          put<uint64_t>(file, at,
                        rng() % 2 ? UINT64_MAX - rng() % 64 : rng() % 512);
        break;
      default:
        file.resize(rng() % (file.size() + 1));
        if (file.empty())
          file.push_back(0);
        break;
      }
    }
    // Reseal most mutants so they get past the checksums to the checks
    // behind them.
    if (rng() % 4 != 0)
      resealAll(file);
    absl::StatusOr<Executable> exe = Executable::parse(file, "fuzz.nxe");
    if (!exe.ok()) {
      EXPECT_EQ(exe.status().code(), absl::StatusCode::kInvalidArgument);
      continue;
    }
    ++accepted;
    EXPECT_TRUE(exe->manifest().is_object());
    for (const SectionView &s : exe->sections())
      EXPECT_LE(s.offset + s.size, file.size());
  }
  EXPECT_GT(accepted, 0u);
}

} // namespace
