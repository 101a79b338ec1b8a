//===- NpyTest.cpp - Tests for .npy reading and writing -------------------===//
//
// Round trips per dtype and rank, files laid out byte for byte as np.save
// writes them (crafted from the .npy specification, since numpy is not a
// test dependency), bf16 rounding, every error, and robustness.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/Npy.h"
#include "runtime/support/Bf16.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace neuron::rt;
using namespace std::string_view_literals;

namespace {

#define EXPECT_CONTAINS(haystack, needle)                                      \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos)             \
      << "'" << (needle) << "' not in: " << (haystack)

template <typename T> std::vector<uint8_t> rawBytes(std::vector<T> values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

/// A .npy file: magic, version `major`.0, the header length field for that
/// version, `header` exactly as given, then `data`.
std::vector<uint8_t> npyFile(std::string_view header,
                             const std::vector<uint8_t> &data,
                             uint8_t major = 1) {
  std::vector<uint8_t> b = {0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
  uint32_t length = header.size();
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    b.push_back(static_cast<uint8_t>(length >> (8 * i)));
  b.insert(b.end(), header.begin(), header.end());
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

/// `dict` padded as numpy pads it for a version 1.0 file: to a total of
/// `total` bytes with spaces and a final newline.
std::string padded(std::string_view dict, size_t total) {
  std::string h(dict);
  h.append(total - 10 - 1 - h.size(), ' ');
  return h + "\n";
}

std::string errorOf(const std::vector<uint8_t> &bytes,
                    NpyReadOptions options = {}) {
  absl::StatusOr<Tensor> a = parseNpy(bytes, "in.npy", options);
  EXPECT_FALSE(a.ok());
  if (a.ok())
    return "";
  EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument);
  std::string message(a.status().message());
  EXPECT_EQ(message.rfind("in.npy: ", 0), 0u) << message;
  return message;
}

/// The error for a file with header dict `dict` and `dataSize` zero bytes.
std::string headerError(std::string_view dict, size_t dataSize = 0) {
  return errorOf(npyFile(dict, std::vector<uint8_t>(dataSize)));
}

//===----------------------------------------------------------------------===//
// Round trips
//===----------------------------------------------------------------------===//

void expectRoundTrip(const Tensor &array) {
  absl::StatusOr<std::vector<uint8_t>> bytes = serializeNpy(array);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  // Data starts at a multiple of 64 after a newline-terminated header.
  uint16_t length = (*bytes)[8] | (*bytes)[9] << 8;
  EXPECT_EQ((10 + length) % 64, 0u);
  EXPECT_EQ((*bytes)[10 + length - 1], '\n');
  EXPECT_EQ(bytes->size(), 10u + length + array.data.size());
  absl::StatusOr<Tensor> back = parseNpy(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->dtype, array.dtype);
  EXPECT_EQ(back->shape, array.shape);
  EXPECT_EQ(back->data, array.data);
}

TEST(Npy, RoundTripEachDtype) {
  std::vector<float> f(24);
  for (size_t i = 0; i < f.size(); ++i)
    f[i] = 0.5f * i - 3;
  expectRoundTrip({"f32", {2, 3, 4}, rawBytes(f)});
  expectRoundTrip({"i32", {5}, rawBytes<int32_t>({-2, -1, 0, 1, 1 << 30})});
  expectRoundTrip({"i8", {2, 2}, rawBytes<int8_t>({-128, -1, 0, 127})});
  expectRoundTrip({"i16", {3}, rawBytes<int16_t>({-32768, -1, 32767})});
  expectRoundTrip(
      {"bf16",
       {1, 2, 3},
       rawBytes<uint16_t>({0x3F80, 0xBF80, 0x4000, 0x7F80, 0xFFC0, 0x0001})});
  expectRoundTrip({"f16", {2}, rawBytes<uint16_t>({0x3C00, 0xFC00})});
  expectRoundTrip({"f8E4M3FN", {3}, {0x38, 0x7E, 0xFF}});
  expectRoundTrip({"f8E5M2", {1, 1}, {0x3C}});
  expectRoundTrip({"i64", {2}, rawBytes<int64_t>({INT64_MIN, 1})});
  expectRoundTrip({"i1", {2, 2}, {0, 1, 1, 0}});
}

TEST(Npy, DescrsWritten) {
  // The descr in each written header, as the table in Npy.h gives it.
  for (auto [dtype, descr] : std::vector<std::pair<std::string, std::string>>{
           {"f32", "'<f4'"},
           {"bf16", "'bfloat16'"},
           {"f16", "'<f2'"},
           {"f8E4M3FN", "'float8_e4m3fn'"},
           {"f8E5M2", "'float8_e5m2'"},
           {"i8", "'|i1'"},
           {"i16", "'<i2'"},
           {"i32", "'<i4'"},
           {"i64", "'<i8'"},
           {"i1", "'|b1'"}}) {
    std::vector<uint8_t> bytes =
        *serializeNpy({dtype, {}, std::vector<uint8_t>(npyElementSize(dtype))});
    std::string header(bytes.begin() + 10, bytes.end());
    EXPECT_EQ(header.rfind("{'descr': " + descr +
                               ", 'fortran_order': False, "
                               "'shape': (), }",
                           0),
              0u)
        << dtype << ": " << header;
  }
  EXPECT_EQ(npyElementSize("f64"), 0u);
}

TEST(Npy, RoundTripZeroDimensionalAndEmpty) {
  expectRoundTrip({"f32", {}, rawBytes<float>({3.5f})});
  expectRoundTrip({"i32", {}, rawBytes<int32_t>({-7})});
  expectRoundTrip({"i8", {}, rawBytes<int8_t>({5})});
  expectRoundTrip({"bf16", {}, rawBytes<uint16_t>({0x4049})});
  expectRoundTrip({"f32", {0, 3}, {}});
  expectRoundTrip({"i8", {4, 0, 1000000}, {}});
}

TEST(Npy, LargeHeaderUsesVersion2) {
  Tensor array{"i8", std::vector<int64_t>(30000, 1), {42}};
  absl::StatusOr<std::vector<uint8_t>> bytes = serializeNpy(array);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ((*bytes)[6], 2);
  uint32_t length =
      (*bytes)[8] | (*bytes)[9] << 8 | (*bytes)[10] << 16 | (*bytes)[11] << 24;
  EXPECT_GT(length, 0xFFFFu);
  EXPECT_EQ((12 + length) % 64, 0u);
  absl::StatusOr<Tensor> back = parseNpy(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape.size(), 30000u);
  EXPECT_EQ(back->data, std::vector<uint8_t>{42});
}

TEST(Npy, FileRoundTripAndUnreadablePaths) {
  std::string path = testing::TempDir() + "/a.npy";
  Tensor array{"f32", {2}, rawBytes<float>({1.f, 2.f})};
  ASSERT_TRUE(writeNpy(path, array).ok());
  absl::StatusOr<Tensor> back = readNpy(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->data, array.data);

  absl::StatusOr<Tensor> missing = readNpy(testing::TempDir() + "/none.npy");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_CONTAINS(missing.status().message(), "none.npy");
  EXPECT_FALSE(readNpy(testing::TempDir()).ok());
  EXPECT_FALSE(writeNpy("/nonexistent-dir/a.npy", array).ok());
}

TEST(Npy, MappedFilesReadAsReadNpyDoes) {
  std::string path = testing::TempDir() + "/mapped.npy";
  Tensor array{"i32", {2, 3}, rawBytes<int32_t>({1, 2, 3, 4, 5, 6})};
  ASSERT_TRUE(writeNpy(path, array).ok());
  absl::StatusOr<MappedNpy> mapped = mapNpy(path);
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  EXPECT_EQ(mapped->dtype, "i32");
  EXPECT_EQ(mapped->shape, array.shape);
  EXPECT_EQ(std::vector<uint8_t>(mapped->data, mapped->data + mapped->size),
            array.data);
  TensorRef ref = mapped->ref();
  EXPECT_EQ(ref.size, array.data.size());

  // The same errors as readNpy: missing, a folder, an empty or a truncated
  // file.
  std::string missing = testing::TempDir() + "/none.npy";
  EXPECT_EQ(mapNpy(missing).status(), readNpy(missing).status());
  EXPECT_EQ(mapNpy(testing::TempDir()).status(),
            readNpy(testing::TempDir()).status());
  std::vector<uint8_t> bytes = *serializeNpy(array);
  for (size_t n : {size_t(0), size_t(9), bytes.size() - 1}) {
    ASSERT_TRUE(writeBinaryFile(
                    path, std::vector<uint8_t>(bytes.begin(), bytes.begin() + n),
                    ".npy file")
                    .ok());
    absl::StatusOr<MappedNpy> cut = mapNpy(path);
    ASSERT_FALSE(cut.ok()) << "length " << n;
    EXPECT_EQ(cut.status(), readNpy(path).status()) << "length " << n;
  }
}

//===----------------------------------------------------------------------===//
// Files as numpy writes them
//===----------------------------------------------------------------------===//

TEST(Npy, ReadsAndWritesNumpyBytes) {
  // np.save(f, np.arange(6, dtype=np.float32).reshape(2, 3)) with numpy
  // >= 1.23: the dict, 20 spare spaces for growing the first dimension,
  // padding to a 128-byte header, a newline.
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, "
                     "3), }";
  std::string header = padded(dict, 128);
  ASSERT_EQ(header.size(), 0x76u);
  std::vector<uint8_t> file =
      npyFile(header, rawBytes<float>({0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(std::vector<uint8_t>(file.begin(), file.begin() + 10),
            std::vector<uint8_t>(
                {0x93, 'N', 'U', 'M', 'P', 'Y', 0x01, 0x00, 0x76, 0x00}));
  absl::StatusOr<Tensor> a = parseNpy(file);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->dtype, "f32");
  EXPECT_EQ(a->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a->data, rawBytes<float>({0, 1, 2, 3, 4, 5}));
  // The writer produces the same bytes.
  EXPECT_EQ(*serializeNpy(*a), file);

  // np.save(f, np.int8(-3).reshape(())): 0-d, no spare spaces.
  std::vector<uint8_t> scalar = npyFile(
      padded("{'descr': '|i1', 'fortran_order': False, 'shape': (), }", 128),
      {0xFD});
  a = parseNpy(scalar);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->dtype, "i8");
  EXPECT_TRUE(a->shape.empty());
  EXPECT_EQ(a->data, std::vector<uint8_t>{0xFD});
  EXPECT_EQ(*serializeNpy(*a), scalar);

  // A header whose dict, spare spaces and newline end exactly at byte 128
  // gets 64 more bytes of padding, as numpy pads it.
  std::vector<int64_t> shape = {1, 10, 10, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  std::string dict14 = "{'descr': '<i4', 'fortran_order': False, 'shape': "
                       "(1, 10, 10, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), }";
  ASSERT_EQ(10 + dict14.size() + 20 + 1, 128u);
  std::vector<uint8_t> aligned = npyFile(
      padded(dict14, 192), rawBytes<int32_t>(std::vector<int32_t>(100)));
  a = parseNpy(aligned);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->shape, shape);
  EXPECT_EQ(*serializeNpy(*a), aligned);
}

TEST(Npy, ReadsMlDtypesNames) {
  for (auto [descr, dtype] : std::vector<std::pair<std::string, std::string>>{
           {"float8_e4m3fn", "f8E4M3FN"},
           {"float8_e5m2", "f8E5M2"},
           {"<f1", "f8E5M2"},
           {"<i1", "i8"}}) {
    absl::StatusOr<Tensor> a = parseNpy(npyFile(
        "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (2,), }",
        {0x40, 0xC0}));
    ASSERT_TRUE(a.ok()) << descr << ": " << a.status();
    EXPECT_EQ(a->dtype, dtype);
  }
}

TEST(Npy, ReadsMlDtypesBfloat16) {
  // np.save of ml_dtypes bfloat16 np.arange(4) stores descr '<V2'.
  std::vector<uint8_t> data = {0x00, 0x00, 0x80, 0x3F, 0x00, 0x40, 0x40, 0x40};
  for (std::string_view descr : {"<V2"sv, "|V2"sv, "bfloat16"sv}) {
    std::string dict = "{'descr': '" + std::string(descr) +
                       "', 'fortran_order': False, 'shape': (4,), }";
    absl::StatusOr<Tensor> a = parseNpy(npyFile(padded(dict, 128), data));
    ASSERT_TRUE(a.ok()) << descr << ": " << a.status();
    EXPECT_EQ(a->dtype, "bf16");
    EXPECT_EQ(a->data, data);
  }
}

TEST(Npy, ReadsOtherHeaderSpellings) {
  // Version 2.0 and 3.0 (4-byte length), Python 2 longs, double quotes, no
  // trailing comma, keys in another order, '<i1'.
  std::vector<uint8_t> data = rawBytes<int32_t>({1, 2, 3, 4, 5, 6});
  for (uint8_t major : {2, 3}) {
    absl::StatusOr<Tensor> a = parseNpy(npyFile(
        "{'descr': '<i4', 'fortran_order': False, 'shape': (3L, 2L), }    \n",
        data, major));
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(a->shape, (std::vector<int64_t>{3, 2}));
  }
  absl::StatusOr<Tensor> a = parseNpy(npyFile(
      "{\"shape\":(6,),\"fortran_order\":False,\"descr\":\"<i4\"}", data));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->dtype, "i32");
  a = parseNpy(
      npyFile("{'descr':'<i1','fortran_order':False,'shape':(2,)}", {1, 2}));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->dtype, "i8");
}

//===----------------------------------------------------------------------===//
// bf16 rounding
//===----------------------------------------------------------------------===//

float fromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

TEST(Npy, Bf16RoundingOfTheF32Reader) {
  EXPECT_EQ(f32ToBf16(1.0f), 0x3F80);
  EXPECT_EQ(f32ToBf16(-2.5f), 0xC020);
  // Ties go to even: down from an even, up from an odd last bit.
  EXPECT_EQ(f32ToBf16(fromBits(0x3F808000)), 0x3F80);
  EXPECT_EQ(f32ToBf16(fromBits(0x3F818000)), 0x3F82);
  EXPECT_EQ(f32ToBf16(fromBits(0x3F808001)), 0x3F81);
  EXPECT_EQ(f32ToBf16(fromBits(0x3F807FFF)), 0x3F80);
  EXPECT_EQ(f32ToBf16(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_EQ(f32ToBf16(-std::numeric_limits<float>::infinity()), 0xFF80);
  EXPECT_EQ(f32ToBf16(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(f32ToBf16(fromBits(0x7F7F7FFF)), 0x7F7F);
  EXPECT_EQ(f32ToBf16(fromBits(0x00000001)), 0x0000);
  EXPECT_EQ(f32ToBf16(-0.0f), 0x8000);
  // NaN stays NaN (quiet), even one whose payload is in the low bits only.
  EXPECT_EQ(f32ToBf16(fromBits(0x7F800001)), 0x7FC0);
  EXPECT_EQ(f32ToBf16(fromBits(0xFFC00000)), 0xFFC0);
}

TEST(Npy, F32AsBf16Option) {
  Tensor f32{
      "f32",
      {2, 2},
      rawBytes<float>({1.0f, fromBits(0x3F818000), -0.0f, std::nanf("")})};
  std::vector<uint8_t> bytes = *serializeNpy(f32);
  NpyReadOptions options;
  options.f32AsBf16 = true;
  absl::StatusOr<Tensor> a = parseNpy(bytes, "x.npy", options);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->dtype, "bf16");
  EXPECT_EQ(a->shape, f32.shape);
  EXPECT_EQ(a->data, rawBytes<uint16_t>({0x3F80, 0x3F82, 0x8000, 0x7FC0}));
  // Without the option the file reads as it is.
  EXPECT_EQ(parseNpy(bytes)->dtype, "f32");
  // Other dtypes are unaffected.
  Tensor i32{"i32", {1}, rawBytes<int32_t>({7})};
  a = parseNpy(*serializeNpy(i32), "x.npy", options);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->dtype, "i32");
  EXPECT_EQ(a->data, i32.data);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST(NpyErrors, ShortFileAndMagic) {
  EXPECT_EQ(errorOf({0x93, 'N', 'U'}),
            "in.npy: file: expected at least 10 bytes (magic, version, header "
            "length), found a 3-byte file");
  EXPECT_EQ(errorOf({'P', 'K', 3, 4, 0, 0, 1, 0, 0, 0}),
            "in.npy: magic: expected \"\\x93NUMPY\" (a NumPy .npy file), "
            "found \"PK\\x03\\x04\\x00\\x00\"");
}

TEST(NpyErrors, UnsupportedVersion) {
  std::vector<uint8_t> file =
      npyFile("{'descr': '<i4', 'fortran_order': False, 'shape': (), }\n",
              rawBytes<int32_t>({1}));
  file[6] = 4;
  EXPECT_EQ(errorOf(file),
            "in.npy: format version: expected 1.0, 2.0 or 3.0, found 4.0");
  file[6] = 1;
  file[7] = 1;
  EXPECT_CONTAINS(errorOf(file), "found 1.1");
  file[6] = 0;
  file[7] = 0;
  EXPECT_CONTAINS(errorOf(file), "found 0.0");
}

TEST(NpyErrors, HeaderLengthBeyondFile) {
  std::vector<uint8_t> file = npyFile("{}", {});
  file[8] = 0xFF;
  file[9] = 0xFF;
  EXPECT_EQ(errorOf(file), "in.npy: header length: expected at most 2 (the "
                           "bytes after the 10-byte prefix), found 65535");
  std::vector<uint8_t> v2 = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0xFF, 0xFF};
  EXPECT_CONTAINS(errorOf(v2), "expected at least 12 bytes");
  v2.insert(v2.end(), {0xFF, 0xFF});
  EXPECT_CONTAINS(errorOf(v2), "found 4294967295");
}

TEST(NpyErrors, HeaderNotADict) {
  EXPECT_EQ(headerError("[1, 2]"),
            "in.npy: header: expected a Python dict literal {'descr': ..., "
            "'fortran_order': ..., 'shape': (...)}, found \"[1, 2]\" "
            "(expected a dict literal starting with '{' at character 0)");
  EXPECT_CONTAINS(
      headerError("{'descr': '<f4' 'shape': (), 'fortran_order': False}"),
      "(expected ',' or '}' at character 16)");
  EXPECT_CONTAINS(headerError("{'descr': '<f4', 'fortran_order': False, "
                              "'shape': (2, 3), } junk"),
                  "expected nothing after the dict");
  EXPECT_CONTAINS(headerError("{'descr': '<f4', 'shape': [2, 3], "
                              "'fortran_order': False}"),
                  "expected a string, True, False or a tuple of integers");
  EXPECT_CONTAINS(headerError("{'descr': '<f4', 'fortran_order': False, "
                              "'shape': (3)}"),
                  "a one-element tuple written \"(n,)\"");
  EXPECT_CONTAINS(headerError("{'descr': '<f4', 'fortran_order': False, "
                              "'shape': (99999999999999999999,)}"),
                  "an integer below 2^63");
  EXPECT_CONTAINS(headerError("{'descr: 1}"), "a closing quote");
  EXPECT_CONTAINS(headerError("{'descr': '<f4', 'descr': '<f4'}"),
                  "no second 'descr' key");
  EXPECT_CONTAINS(headerError(""), "a dict literal starting with '{'");
  EXPECT_CONTAINS(headerError("{"), "a quoted string at character 1");
}

TEST(NpyErrors, HeaderKeys) {
  EXPECT_EQ(headerError("{'descr': '<f4', 'fortran_order': False}"),
            "in.npy: header: expected the keys 'descr', 'fortran_order' and "
            "'shape', found no 'shape'");
  EXPECT_EQ(headerError("{'descr': '<f4', 'fortran_order': False, 'shape': (),"
                        " 'extra': True}",
                        4),
            "in.npy: header: expected only the keys 'descr', 'fortran_order' "
            "and 'shape', found a key 'extra'");
  EXPECT_EQ(headerError("{'descr': True, 'fortran_order': False, 'shape': ()}"),
            "in.npy: descr: expected a dtype string such as '<f4', found a "
            "boolean");
  EXPECT_EQ(headerError("{'descr': '<f4', 'fortran_order': 'no', 'shape': ()}"),
            "in.npy: fortran_order: expected False, found a string");
  EXPECT_EQ(headerError("{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "'2,3'}"),
            "in.npy: shape: expected a tuple of dimensions, found a string");
}

TEST(NpyErrors, UnsupportedDtypes) {
  EXPECT_EQ(headerError("{'descr': '<f8', 'fortran_order': False, 'shape': "
                        "()}",
                        8),
            "in.npy: descr: expected '<f4', 'bfloat16' or '<V2', '<f2', "
            "'float8_e4m3fn', 'float8_e5m2', '|i1', '<i4', '<i8' or '|b1', "
            "found '<f8'");
  EXPECT_EQ(headerError("{'descr': '>f4', 'fortran_order': False, 'shape': "
                        "()}",
                        4),
            "in.npy: descr: expected little-endian data ('<' byte order), "
            "found '>f4' (big-endian)");
  EXPECT_CONTAINS(headerError("{'descr': '>i4', 'fortran_order': False, "
                              "'shape': ()}",
                              4),
                  "(big-endian)");
  EXPECT_CONTAINS(headerError("{'descr': '|u1', 'fortran_order': False, "
                              "'shape': ()}",
                              1),
                  "found '|u1'");
  EXPECT_CONTAINS(headerError("{'descr': '<V1', 'fortran_order': False, "
                              "'shape': ()}",
                              1),
                  "found '<V1' (a one-byte void, as np.save stores any "
                  "ml_dtypes float8: save with descr 'float8_e4m3fn' or "
                  "'float8_e5m2')");
  EXPECT_CONTAINS(headerError("{'descr': '>i8', 'fortran_order': False, "
                              "'shape': ()}",
                              8),
                  "(big-endian)");
}

TEST(NpyErrors, FortranOrder) {
  EXPECT_EQ(headerError("{'descr': '<f4', 'fortran_order': True, 'shape': (2, "
                        "2), }",
                        16),
            "in.npy: fortran_order: expected False (C order; save "
            "np.ascontiguousarray(a)), found True (Fortran order is not "
            "supported)");
}

TEST(NpyErrors, ShapeAndDataSize) {
  EXPECT_EQ(headerError("{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(2, -1)}"),
            "in.npy: shape: expected non-negative dimensions whose product "
            "fits in memory, found (2, -1)");
  EXPECT_CONTAINS(headerError("{'descr': '<f4', 'fortran_order': False, "
                              "'shape': (4294967296, 4294967296, 16)}"),
                  "found (4294967296, 4294967296, 16)");
  EXPECT_EQ(headerError("{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(2, 3)}",
                        20),
            "in.npy: data: expected 24 bytes (6 elements of 4 bytes for shape "
            "(2, 3)), found 20 bytes");
  EXPECT_CONTAINS(headerError("{'descr': '<V2', 'fortran_order': False, "
                              "'shape': (3,)}",
                              7),
                  "expected 6 bytes (3 elements of 2 bytes for shape (3,)), "
                  "found 7 bytes");
  EXPECT_CONTAINS(headerError("{'descr': '|i1', 'fortran_order': False, "
                              "'shape': ()}"),
                  "expected 1 bytes (1 elements of 1 bytes for shape ()), "
                  "found 0 bytes");
}

TEST(NpyErrors, WriterRejectsInconsistentArrays) {
  auto writeError = [](const Tensor &a) {
    absl::Status s = writeNpy(testing::TempDir() + "/w.npy", a);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    return std::string(s.message());
  };
  EXPECT_CONTAINS(writeError({"f64", {1}, std::vector<uint8_t>(8)}),
                  "w.npy: dtype: expected \"f32\", \"bf16\", \"f16\", "
                  "\"f8E4M3FN\", \"f8E5M2\", \"i8\", \"i32\", \"i64\" or "
                  "\"i1\", found \"f64\"");
  EXPECT_CONTAINS(writeError({"f32", {2}, std::vector<uint8_t>(4)}),
                  "w.npy: data: expected 8 bytes (2 elements of 4 bytes for "
                  "shape (2,)), found 4 bytes");
  EXPECT_CONTAINS(writeError({"i8", {-1}, {}}),
                  "w.npy: shape: expected non-negative dimensions");
  EXPECT_CONTAINS(writeError({"i32", {INT64_MAX, INT64_MAX}, {}}),
                  "fits in memory");
}

//===----------------------------------------------------------------------===//
// Robustness
//===----------------------------------------------------------------------===//

TEST(NpyRobustness, TruncationAtEveryLength) {
  std::vector<uint8_t> file =
      *serializeNpy({"i32", {2, 2}, rawBytes<int32_t>({1, 2, 3, 4})});
  for (size_t n = 0; n < file.size(); ++n) {
    absl::StatusOr<Tensor> a =
        parseNpy(std::vector<uint8_t>(file.begin(), file.begin() + n));
    ASSERT_FALSE(a.ok()) << "length " << n;
    EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST(NpyRobustness, RandomMutationsNeverCrash) {
  std::mt19937 rng(4321);
  std::vector<uint8_t> seed =
      *serializeNpy({"bf16", {2, 3}, std::vector<uint8_t>(12, 0x3F)});
  for (int iteration = 0; iteration < 20000; ++iteration) {
    std::vector<uint8_t> file = seed;
    int edits = 1 + rng() % 4;
    for (int k = 0; k < edits; ++k) {
      size_t at = rng() % file.size();
      if (rng() % 8 == 0)
        file.resize(at + 1);
      else
        file[at] = "{}(),:' 0123456789-LTrueFalse<|>V\n"[rng() % 34];
    }
    NpyReadOptions options;
    options.f32AsBf16 = rng() % 2;
    absl::StatusOr<Tensor> a = parseNpy(file, "fuzz.npy", options);
    if (a.ok()) {
      EXPECT_EQ(a->data.size() % npyElementSize(a->dtype), 0u);
    }
  }
}

} // namespace
