//===- JsonReader.h - Checked reading of JSON description files -*- C++ -*-===//
//
// Not part of the public API. The exception-free JSON reading shared by the
// target and capability parsers: every value's type is checked before it is
// read, and every error reads "FILE: json.path: expected ..., found ...".
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_TARGET_JSONREADER_H
#define NEURON_RUNTIME_TARGET_JSONREADER_H

#include "runtime/target/TargetInternal.h"

#include <nlohmann/json.hpp>

#include <set>

namespace neuron::rt {

using json = nlohmann::json;

/// "FILE: PATH: expected EXPECTED, found FOUND" as an InvalidArgument error.
absl::Status jsonError(std::string_view file, std::string_view path,
                       std::string_view expected, std::string_view found);

/// What a JSON value is, for the "found ..." half of an error.
std::string describeJson(const json &v);

/// Parses `text`; a syntax error names the file and the byte offset.
absl::StatusOr<json> parseJsonText(std::string_view fileName,
                                   std::string_view text);

/// Reads the fields of one JSON object, remembering file and path so every
/// error says where it is; finish() rejects fields nobody asked for, so a
/// misspelt optional field is an error rather than silently ignored.
class ObjectReader {
public:
  ObjectReader(std::string_view file, std::string path, const json &node)
      : file(file), path(std::move(path)), node(&node) {}

  /// The JSON path of `key` in this object; keys holding a dot are quoted
  /// (`ops["neuron.add"]`) so the path stays unambiguous.
  std::string pathOf(std::string_view key) const;

  /// An error at `key`.
  absl::Status error(std::string_view key, std::string_view expected,
                     std::string_view found) const;
  /// An error at element `index` of the array at `key`.
  absl::Status itemError(std::string_view key, size_t index,
                         std::string_view expected,
                         std::string_view found) const;

  /// The value at `key`; nullptr when it is absent and optional.
  absl::StatusOr<const json *>
  field(std::string_view key, std::string_view expected, bool required = true);

  /// A non-empty string; `out` is untouched when absent and optional.
  absl::Status string(std::string_view key, std::string &out,
                      bool required = true);
  /// An integer in [min, max] (max >= 0), described as `expected`.
  absl::Status integer(std::string_view key, std::string_view expected,
                       int64_t min, int64_t max, int64_t &out);
  /// An integer in [1, 2^20].
  absl::Status positiveInt(std::string_view key, int &out);
  /// A JSON true or false.
  absl::Status boolean(std::string_view key, bool &out);
  /// A string that must equal `value` (a schema tag).
  absl::Status constant(std::string_view key, std::string_view value);
  /// An array of non-empty strings, with at least one when `nonEmpty`; `out`
  /// is untouched when absent and optional.
  absl::Status stringList(std::string_view key, std::vector<std::string> &out,
                          bool required = true, bool nonEmpty = false);

  /// A reader for `v`, a value found at `key` of this object.
  ObjectReader child(std::string_view key, const json &v) const {
    return ObjectReader(file, pathOf(key), v);
  }
  /// A reader for the object at `key`.
  absl::StatusOr<ObjectReader> object(std::string_view key,
                                      std::string_view shape = "an object");
  /// A reader for the object at `key`, or nullopt when it is absent.
  absl::StatusOr<std::optional<ObjectReader>>
  optObject(std::string_view key, std::string_view shape = "an object");
  /// Readers for the elements of the non-empty array of objects at `key`.
  absl::StatusOr<std::vector<ObjectReader>>
  objectArray(std::string_view key, std::string_view elementShape);

  /// All keys of the object; they count as expected.
  std::vector<std::string> keys();

  /// Fails on the first key that no reader method asked for.
  absl::Status finish() const;

private:
  std::string file;
  std::string path;
  const json *node;
  std::set<std::string> seen;
};

} // namespace neuron::rt

#endif // NEURON_RUNTIME_TARGET_JSONREADER_H
