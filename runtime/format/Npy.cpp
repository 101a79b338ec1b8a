//===- Npy.cpp - NumPy .npy array files -----------------------------------===//
//
// The .npy layout: "\x93NUMPY", a major and minor version byte, the header
// length (u16 in 1.0, u32 in 2.0 and 3.0), a header holding a Python dict
// literal {'descr': ..., 'fortran_order': ..., 'shape': (...)}, then the
// raw elements.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/Npy.h"

#include "runtime/format/FormatInternal.h"
#include "runtime/support/Bf16.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>

namespace neuron::rt {

static constexpr char kNpyMagic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};
/// numpy aligns the start of the data to this.
static constexpr size_t kNpyAlign = 64;

namespace {
/// How one dtype is stored: the descr written and every descr read as it.
struct DtypeInfo {
  std::string_view dtype;
  size_t size;
  std::string_view written;
  std::string_view read[3];
};
} // namespace

/// The dtypes of the executable manifest. np.save of an ml_dtypes type
/// writes a void descr ('<V2' for bfloat16); '<f1' is what older ml_dtypes
/// versions gave float8_e5m2.
static constexpr DtypeInfo kDtypes[] = {
    {"f32", 4, "<f4", {"<f4"}},
    {"bf16", 2, "bfloat16", {"bfloat16", "<V2", "|V2"}},
    {"f16", 2, "<f2", {"<f2"}},
    {"f8E4M3FN", 1, "float8_e4m3fn", {"float8_e4m3fn"}},
    {"f8E5M2", 1, "float8_e5m2", {"float8_e5m2", "<f1"}},
    {"i8", 1, "|i1", {"|i1", "<i1"}},
    {"i16", 2, "<i2", {"<i2"}},
    {"i32", 4, "<i4", {"<i4"}},
    {"i64", 8, "<i8", {"<i8"}},
    {"i1", 1, "|b1", {"|b1"}},
};

static const DtypeInfo *findDtype(std::string_view dtype) {
  for (const DtypeInfo &info : kDtypes)
    if (info.dtype == dtype)
      return &info;
  return nullptr;
}

size_t npyElementSize(std::string_view dtype) {
  const DtypeInfo *info = findDtype(dtype);
  return info ? info->size : 0;
}

/// The dtype a descr reads as; null when unsupported.
static const DtypeInfo *dtypeForDescr(std::string_view descr) {
  for (const DtypeInfo &info : kDtypes)
    for (std::string_view d : info.read)
      if (!d.empty() && d == descr)
        return &info;
  return nullptr;
}

/// `shape` as Python writes a tuple: "()", "(3,)", "(2, 3)".
static std::string shapeRepr(const std::vector<int64_t> &shape) {
  if (shape.size() == 1)
    return absl::StrFormat("(%d,)", shape[0]);
  return absl::StrCat("(", absl::StrJoin(shape, ", "), ")");
}

/// The element count of `shape`; false on a negative dimension or when the
/// byte size (count * elementSize) overflows.
static bool elementCount(const std::vector<int64_t> &shape, size_t elementSize,
                         uint64_t &count) {
  count = 0;
  if (std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; }))
    return false;
  // A zero dimension empties the array, however large the others are.
  if (std::count(shape.begin(), shape.end(), 0))
    return true;
  count = 1;
  const uint64_t limit = std::numeric_limits<uint64_t>::max() / 2 / elementSize;
  for (int64_t d : shape) {
    if (count > limit / static_cast<uint64_t>(d))
      return false;
    count *= static_cast<uint64_t>(d);
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Header parsing
//===----------------------------------------------------------------------===//

namespace {
/// A value of a .npy header dict: one of the Python literals numpy writes.
struct PyValue {
  enum Kind { String, Bool, Tuple } kind = String;
  std::string string;
  bool boolean = false;
  std::vector<int64_t> tuple;
};

/// Parses the Python dict literal of a .npy header: string keys, and string,
/// True/False or int-tuple values (Python 2's "3L" accepted). Anything else
/// is an error naming the character where it went wrong.
class HeaderParser {
public:
  explicit HeaderParser(std::string_view text) : text(text) {}

  bool parseDict(std::map<std::string, PyValue> &dict) {
    skipSpace();
    if (!consume('{'))
      return fail("a dict literal starting with '{'");
    skipSpace();
    while (!consume('}')) {
      std::string key;
      if (!parseString(key) || !expect(':'))
        return false;
      if (dict.count(key))
        return fail(absl::StrFormat("no second '%s' key", key));
      if (!parseValue(dict[key]))
        return false;
      skipSpace();
      if (consume(','))
        skipSpace();
      else if (!peek('}'))
        return fail("',' or '}'");
    }
    skipSpace();
    return pos == text.size() || fail("nothing after the dict");
  }

  /// "expected X at character N" once a parse has failed.
  std::string error;

private:
  bool peek(char c) const { return pos < text.size() && text[pos] == c; }
  bool consume(char c) {
    if (!peek(c))
      return false;
    ++pos;
    return true;
  }
  bool expect(char c) {
    skipSpace();
    if (!consume(c))
      return fail(absl::StrFormat("'%c'", c));
    skipSpace();
    return true;
  }
  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }
  bool fail(std::string_view expected) {
    if (error.empty())
      error = absl::StrFormat("%s at character %d", expected, pos);
    return false;
  }

  bool parseString(std::string &out) {
    if (!peek('\'') && !peek('"'))
      return fail("a quoted string");
    char quote = text[pos++];
    size_t end = text.find(quote, pos);
    if (end == std::string_view::npos)
      return fail("a closing quote");
    out = std::string(text.substr(pos, end - pos));
    if (out.find('\\') != std::string::npos)
      return fail("a string without escapes");
    pos = end + 1;
    return true;
  }

  bool parseInt(int64_t &out) {
    bool negative = consume('-');
    size_t start = pos;
    uint64_t v = 0;
    constexpr uint64_t max = std::numeric_limits<int64_t>::max();
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      unsigned digit = text[pos] - '0';
      if (v > (max - digit) / 10)
        return fail("an integer below 2^63");
      v = v * 10 + digit;
      ++pos;
    }
    if (pos == start)
      return fail("an integer");
    consume('L');
    out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    return true;
  }

  bool parseTuple(std::vector<int64_t> &out) {
    ++pos; // '('
    skipSpace();
    bool trailingComma = false;
    while (!consume(')')) {
      int64_t v;
      if (!parseInt(v))
        return false;
      out.push_back(v);
      skipSpace();
      trailingComma = consume(',');
      if (trailingComma)
        skipSpace();
      else if (!peek(')'))
        return fail("',' or ')'");
    }
    // "(3)" is the integer 3 in Python, not a tuple.
    if (out.size() == 1 && !trailingComma)
      return fail("a one-element tuple written \"(n,)\"");
    return true;
  }

  bool parseValue(PyValue &v) {
    if (peek('\'') || peek('"')) {
      v.kind = PyValue::String;
      return parseString(v.string);
    }
    if (peek('(')) {
      v.kind = PyValue::Tuple;
      return parseTuple(v.tuple);
    }
    for (bool b : {true, false}) {
      std::string_view word = b ? "True" : "False";
      if (text.substr(pos, word.size()) == word) {
        pos += word.size();
        v.kind = PyValue::Bool;
        v.boolean = b;
        return true;
      }
    }
    return fail("a string, True, False or a tuple of integers");
  }

  std::string_view text;
  size_t pos = 0;
};
} // namespace

static std::string_view kindName(const PyValue &v) {
  switch (v.kind) {
  case PyValue::String:
    return "a string";
  case PyValue::Bool:
    return "a boolean";
  case PyValue::Tuple:
    break;
  }
  return "a tuple";
}

/// Fills `array.dtype` and `array.shape` from the header dict.
static absl::Status readHeaderDict(std::string_view name,
                                   std::map<std::string, PyValue> &dict,
                                   Tensor &array) {
  for (const auto &entry : dict)
    if (entry.first != "descr" && entry.first != "fortran_order" &&
        entry.first != "shape")
      return formatError(name, "header",
                         "only the keys 'descr', 'fortran_order' and 'shape'",
                         absl::StrFormat("a key '%s'", entry.first));
  for (const char *key : {"descr", "fortran_order", "shape"})
    if (!dict.count(key))
      return formatError(name, "header",
                         "the keys 'descr', 'fortran_order' and 'shape'",
                         absl::StrFormat("no '%s'", key));

  const PyValue &descr = dict["descr"];
  if (descr.kind != PyValue::String)
    return formatError(name, "descr", "a dtype string such as '<f4'",
                       kindName(descr));
  std::string_view d = descr.string;
  if (const DtypeInfo *info = dtypeForDescr(d)) {
    array.dtype = std::string(info->dtype);
  } else {
    std::string found = absl::StrFormat("'%s'", d);
    if (d.size() > 1 && d[0] == '>' &&
        dtypeForDescr("<" + std::string(d.substr(1))))
      return formatError(name, "descr", "little-endian data ('<' byte order)",
                         found + " (big-endian)");
    if (d == "<V1" || d == "|V1")
      found += " (a one-byte void, as np.save stores any ml_dtypes float8: "
               "save with descr 'float8_e4m3fn' or 'float8_e5m2')";
    return formatError(name, "descr",
                       "'<f4', 'bfloat16' or '<V2', '<f2', 'float8_e4m3fn', "
                       "'float8_e5m2', '|i1', '<i4', '<i8' or '|b1'",
                       found);
  }

  const PyValue &order = dict["fortran_order"];
  if (order.kind != PyValue::Bool)
    return formatError(name, "fortran_order", "False", kindName(order));
  if (order.boolean)
    return formatError(name, "fortran_order",
                       "False (C order; save np.ascontiguousarray(a))",
                       "True (Fortran order is not supported)");

  const PyValue &shape = dict["shape"];
  if (shape.kind != PyValue::Tuple)
    return formatError(name, "shape", "a tuple of dimensions", kindName(shape));
  array.shape = shape.tuple;
  return absl::OkStatus();
}

/// A checked .npy header: the array's dtype and shape (no data), where its
/// data starts and how many elements it has.
struct NpyLayout {
  Tensor array;
  size_t dataOffset = 0;
  uint64_t count = 0;
};

/// Parses and checks the header of the .npy bytes [base, base + size),
/// including that the data after it has the shape's size.
static absl::StatusOr<NpyLayout> parseNpyLayout(const uint8_t *base,
                                                size_t size,
                                                std::string_view name) {
  if (size < 10)
    return formatError(name, "file",
                       "at least 10 bytes (magic, version, header length)",
                       absl::StrFormat("a %d-byte file", size));
  if (std::memcmp(base, kNpyMagic, sizeof(kNpyMagic)) != 0)
    return formatError(name, "magic", "\"\\x93NUMPY\" (a NumPy .npy file)",
                       quoteBytes(base, sizeof(kNpyMagic)));
  uint8_t major = base[6], minor = base[7];
  if (major < 1 || major > 3 || minor != 0)
    return formatError(name, "format version", "1.0, 2.0 or 3.0",
                       absl::StrFormat("%d.%d", major, minor));
  size_t prefix = major == 1 ? 10 : 12;
  if (size < prefix)
    return formatError(name, "file",
                       absl::StrFormat("at least %d bytes", prefix),
                       absl::StrFormat("a %d-byte file", size));
  uint64_t headerLength =
      major == 1 ? loadLE<uint16_t>(base + 8) : loadLE<uint32_t>(base + 8);
  if (headerLength > size - prefix)
    return formatError(
        name, "header length",
        absl::StrFormat("at most %d (the bytes after the %d-byte prefix)",
                        size - prefix, prefix),
        absl::StrFormat("%d", headerLength));

  std::string_view header(reinterpret_cast<const char *>(base + prefix),
                          headerLength);
  std::map<std::string, PyValue> dict;
  HeaderParser parser(header);
  if (!parser.parseDict(dict)) {
    std::string shown(header.substr(0, 120));
    return formatError(
        name, "header",
        "a Python dict literal {'descr': ..., 'fortran_order': ..., "
        "'shape': (...)}",
        absl::StrFormat(
            "%s (expected %s)",
            quoteBytes(reinterpret_cast<const uint8_t *>(shown.data()),
                       shown.size()),
            parser.error));
  }
  NpyLayout layout;
  Tensor &array = layout.array;
  NEURON_RETURN_IF_ERROR(readHeaderDict(name, dict, array));

  size_t elementSize = npyElementSize(array.dtype);
  uint64_t count = 0;
  if (!elementCount(array.shape, elementSize, count))
    return formatError(name, "shape",
                       "non-negative dimensions whose product fits in memory",
                       shapeRepr(array.shape));
  uint64_t dataSize = size - prefix - headerLength;
  if (count * elementSize != dataSize)
    return formatError(
        name, "data",
        absl::StrFormat("%d bytes (%d elements of %d bytes for shape %s)",
                        count * elementSize, count, elementSize,
                        shapeRepr(array.shape)),
        absl::StrFormat("%d bytes", dataSize));
  layout.dataOffset = prefix + headerLength;
  layout.count = count;
  return layout;
}

/// parseNpy; the data comes out of `owned` (the same bytes as `bytes`)
/// when given, so a large file's data is not copied.
static absl::StatusOr<Tensor> parseNpyBytes(const std::vector<uint8_t> &bytes,
                                            std::string_view name,
                                            const NpyReadOptions &options,
                                            std::vector<uint8_t> *owned) {
  NEURON_ASSIGN_OR_RETURN(layout, parseNpyLayout(bytes.data(), bytes.size(),
                                                 name));
  Tensor &array = layout.array;
  const uint64_t count = layout.count;
  const uint8_t *base = bytes.data();
  const size_t dataSize = bytes.size() - layout.dataOffset;
  const uint8_t *data = base + layout.dataOffset;

  if (options.f32AsBf16 && array.dtype == "f32") {
    array.dtype = "bf16";
    array.data.resize(count * 2);
    for (uint64_t i = 0; i < count; ++i)
      storeLE<uint16_t>(array.data.data() + 2 * i,
                        f32BitsToBf16(loadLE<uint32_t>(data + 4 * i)));
    return std::move(array);
  }
  if (!owned) {
    array.data.assign(data, data + dataSize);
    return std::move(array);
  }
  owned->erase(owned->begin(), owned->begin() + (data - base));
  array.data = std::move(*owned);
  return std::move(array);
}

absl::StatusOr<Tensor> parseNpy(const std::vector<uint8_t> &bytes,
                                  std::string_view name,
                                  const NpyReadOptions &options) {
  return parseNpyBytes(bytes, name, options, nullptr);
}

absl::StatusOr<Tensor> readNpy(const std::string &path,
                                 const NpyReadOptions &options) {
  NEURON_ASSIGN_OR_RETURN(bytes, readBinaryFile(path, ".npy file"));
  return parseNpyBytes(bytes, path, options, &bytes);
}

absl::StatusOr<MappedNpy> mapNpy(const std::string &path) {
  NEURON_ASSIGN_OR_RETURN(file, MappedFile::open(path, ".npy file"));
  auto shared = std::make_shared<const MappedFile>(std::move(file));
  NEURON_ASSIGN_OR_RETURN(layout,
                          parseNpyLayout(shared->data(), shared->size(), path));
  MappedNpy mapped;
  mapped.dtype = std::move(layout.array.dtype);
  mapped.shape = std::move(layout.array.shape);
  mapped.data = shared->data() + layout.dataOffset;
  mapped.size = shared->size() - layout.dataOffset;
  mapped.file = std::move(shared);
  return mapped;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// The .npy bytes of `array`; errors name `name`.
static absl::StatusOr<std::vector<uint8_t>>
serializeNpyNamed(const Tensor &array, std::string_view name) {
  const DtypeInfo *info = findDtype(array.dtype);
  if (!info)
    return formatError(name, "dtype",
                       "\"f32\", \"bf16\", \"f16\", \"f8E4M3FN\", "
                       "\"f8E5M2\", \"i8\", \"i32\", \"i64\" or \"i1\"",
                       absl::StrFormat("\"%s\"", array.dtype));
  size_t elementSize = info->size;
  uint64_t count = 0;
  if (!elementCount(array.shape, elementSize, count))
    return formatError(name, "shape",
                       "non-negative dimensions whose product fits in memory",
                       shapeRepr(array.shape));
  if (count * elementSize != array.data.size())
    return formatError(
        name, "data",
        absl::StrFormat("%d bytes (%d elements of %d bytes for shape %s)",
                        count * elementSize, count, elementSize,
                        shapeRepr(array.shape)),
        absl::StrFormat("%d bytes", array.data.size()));

  // What np.save writes: the dict, spare spaces so the first dimension can
  // grow in place (numpy's GROWTH_AXIS_MAX_DIGITS), then spaces and a newline
  // so the data starts at a multiple of kNpyAlign.
  std::string header =
      absl::StrFormat("{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                      info->written, shapeRepr(array.shape));
  if (!array.shape.empty())
    header.append(
        21 - std::min<size_t>(21, std::to_string(array.shape[0]).size()), ' ');
  auto headerLength = [&](size_t prefix) {
    size_t unpadded = header.size() + 1;
    return unpadded + (kNpyAlign - (prefix + unpadded) % kNpyAlign);
  };
  uint8_t major = headerLength(10) <= 0xFFFF ? 1 : 2;
  size_t prefix = major == 1 ? 10 : 12;
  size_t length = headerLength(prefix);

  std::vector<uint8_t> bytes(prefix + length + array.data.size(), ' ');
  std::memcpy(bytes.data(), kNpyMagic, sizeof(kNpyMagic));
  bytes[6] = major;
  bytes[7] = 0;
  if (major == 1)
    storeLE<uint16_t>(bytes.data() + 8, length);
  else
    storeLE<uint32_t>(bytes.data() + 8, length);
  std::memcpy(bytes.data() + prefix, header.data(), header.size());
  bytes[prefix + length - 1] = '\n';
  if (!array.data.empty())
    std::memcpy(bytes.data() + prefix + length, array.data.data(),
                array.data.size());
  return bytes;
}

absl::StatusOr<std::vector<uint8_t>> serializeNpy(const Tensor &array) {
  return serializeNpyNamed(array, "npy writer");
}

absl::Status writeNpy(const std::string &path, const Tensor &array) {
  NEURON_ASSIGN_OR_RETURN(bytes, serializeNpyNamed(array, path));
  return writeBinaryFile(path, bytes, ".npy file");
}

} // namespace neuron::rt
