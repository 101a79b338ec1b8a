//===- JsonReader.cpp - Checked reading of JSON description files ---------===//
//
// The exception-free JSON reading shared by the target and capability
// parsers.
//
//===----------------------------------------------------------------------===//

#include "runtime/target/JsonReader.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace neuron::rt {

absl::Status jsonError(std::string_view file, std::string_view path,
                       std::string_view expected, std::string_view found) {
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s: %s: expected %s, found %s", file, path, expected, found));
}

std::string describeJson(const json &v) {
  if (v.is_null())
    return "null";
  if (v.is_boolean())
    return v.get<bool>() ? "a boolean true" : "a boolean false";
  if (v.is_number())
    return "a number " + v.dump();
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    return absl::StrFormat("a string \"%s\"",
                           s.size() > 40 ? s.substr(0, 40) + "..." : s);
  }
  if (v.is_array())
    return absl::StrFormat("an array of %d elements", v.size());
  return "an object";
}

namespace {
/// Records where and why a JSON text fails to parse. nlohmann's DOM parser
/// without exceptions only says "discarded"; its SAX interface has the offset.
struct SyntaxErrorFinder : json::json_sax_t {
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t &) override { return true; }
  bool string(string_t &) override { return true; }
  bool binary(binary_t &) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t &) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string &,
                   const nlohmann::detail::exception &ex) override {
    offset = position;
    message = ex.what();
    // Drop the "[json.exception.parse_error.101] " prefix.
    if (size_t end = message.find("] "); end != std::string::npos)
      message = message.substr(end + 2);
    return false;
  }
  size_t offset = 0;
  std::string message = "malformed JSON";
};
} // namespace

absl::StatusOr<json> parseJsonText(std::string_view fileName,
                                   std::string_view text) {
  json root = json::parse(text.begin(), text.end(), nullptr,
                          /*allow_exceptions=*/false);
  if (!root.is_discarded())
    return root;
  SyntaxErrorFinder finder;
  json::sax_parse(text.begin(), text.end(), &finder);
  return absl::InvalidArgumentError(
      absl::StrFormat("%s: invalid JSON at byte %d: %s", fileName,
                      finder.offset, finder.message));
}

std::string ObjectReader::pathOf(std::string_view key) const {
  if (key.find('.') != std::string_view::npos)
    return absl::StrFormat("%s[\"%s\"]", path, key);
  return path.empty() ? std::string(key) : absl::StrFormat("%s.%s", path, key);
}

absl::Status ObjectReader::error(std::string_view key,
                                 std::string_view expected,
                                 std::string_view found) const {
  return jsonError(file, pathOf(key), expected, found);
}

absl::Status ObjectReader::itemError(std::string_view key, size_t index,
                                     std::string_view expected,
                                     std::string_view found) const {
  return jsonError(file, absl::StrFormat("%s[%d]", pathOf(key), index),
                   expected, found);
}

absl::StatusOr<const json *> ObjectReader::field(std::string_view key,
                                                 std::string_view expected,
                                                 bool required) {
  seen.insert(std::string(key));
  auto it = node->find(std::string(key));
  if (it != node->end())
    return &*it;
  if (!required)
    return static_cast<const json *>(nullptr);
  return error(key, expected, "nothing (the field is missing)");
}

absl::Status ObjectReader::string(std::string_view key, std::string &out,
                                  bool required) {
  NEURON_ASSIGN_OR_RETURN(v, field(key, "a non-empty string", required));
  if (!v)
    return absl::OkStatus();
  if (!v->is_string() || v->get<std::string>().empty())
    return error(key, "a non-empty string", describeJson(*v));
  out = v->get<std::string>();
  return absl::OkStatus();
}

absl::Status ObjectReader::integer(std::string_view key,
                                   std::string_view expected, int64_t min,
                                   int64_t max, int64_t &out) {
  NEURON_ASSIGN_OR_RETURN(v, field(key, expected));
  // Non-negative literals parse as unsigned and may exceed int64_t.
  bool inRange = v->is_number_unsigned()
                     ? v->get<uint64_t>() <= static_cast<uint64_t>(max) &&
                           static_cast<int64_t>(v->get<uint64_t>()) >= min
                     : v->is_number_integer() && v->get<int64_t>() >= min &&
                           v->get<int64_t>() <= max;
  if (!inRange)
    return error(key, expected, describeJson(*v));
  out = v->get<int64_t>();
  return absl::OkStatus();
}

absl::Status ObjectReader::positiveInt(std::string_view key, int &out) {
  int64_t value = 0;
  NEURON_RETURN_IF_ERROR(integer(key, "a positive integer", 1, 1 << 20, value));
  out = static_cast<int>(value);
  return absl::OkStatus();
}

absl::Status ObjectReader::boolean(std::string_view key, bool &out) {
  NEURON_ASSIGN_OR_RETURN(v, field(key, "true or false"));
  if (!v->is_boolean())
    return error(key, "true or false", describeJson(*v));
  out = v->get<bool>();
  return absl::OkStatus();
}

absl::Status ObjectReader::constant(std::string_view key,
                                    std::string_view value) {
  std::string expected = absl::StrFormat("\"%s\"", value);
  NEURON_ASSIGN_OR_RETURN(v, field(key, expected));
  if (!v->is_string() || v->get<std::string>() != value)
    return error(key, expected, describeJson(*v));
  return absl::OkStatus();
}

absl::Status ObjectReader::stringList(std::string_view key,
                                      std::vector<std::string> &out,
                                      bool required, bool nonEmpty) {
  std::string_view expected =
      nonEmpty ? "a non-empty array of strings" : "an array of strings";
  NEURON_ASSIGN_OR_RETURN(v, field(key, expected, required));
  if (!v)
    return absl::OkStatus();
  if (!v->is_array() || (nonEmpty && v->empty()))
    return error(key, expected, describeJson(*v));
  for (size_t i = 0; i < v->size(); ++i) {
    const json &item = (*v)[i];
    if (!item.is_string() || item.get<std::string>().empty())
      return itemError(key, i, "a non-empty string", describeJson(item));
    out.push_back(item.get<std::string>());
  }
  return absl::OkStatus();
}

absl::StatusOr<ObjectReader> ObjectReader::object(std::string_view key,
                                                  std::string_view shape) {
  NEURON_ASSIGN_OR_RETURN(v, field(key, shape));
  if (!v->is_object())
    return error(key, shape, describeJson(*v));
  return ObjectReader(file, pathOf(key), *v);
}

absl::StatusOr<std::optional<ObjectReader>>
ObjectReader::optObject(std::string_view key, std::string_view shape) {
  if (!node->contains(std::string(key))) {
    seen.insert(std::string(key));
    return std::optional<ObjectReader>();
  }
  NEURON_ASSIGN_OR_RETURN(reader, object(key, shape));
  return std::optional<ObjectReader>(std::move(reader));
}

absl::StatusOr<std::vector<ObjectReader>>
ObjectReader::objectArray(std::string_view key, std::string_view elementShape) {
  std::string expected =
      absl::StrFormat("a non-empty array of %s", elementShape);
  NEURON_ASSIGN_OR_RETURN(v, field(key, expected));
  if (!v->is_array() || v->empty())
    return error(key, expected, describeJson(*v));
  std::vector<ObjectReader> readers;
  for (size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_object())
      return itemError(key, i, elementShape, describeJson((*v)[i]));
    readers.emplace_back(file, absl::StrFormat("%s[%d]", pathOf(key), i),
                         (*v)[i]);
  }
  return readers;
}

std::vector<std::string> ObjectReader::keys() {
  std::vector<std::string> result;
  for (auto it = node->begin(); it != node->end(); ++it)
    result.push_back(*seen.insert(it.key()).first);
  return result;
}

absl::Status ObjectReader::finish() const {
  for (auto it = node->begin(); it != node->end(); ++it)
    if (!seen.count(it.key()))
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: %s: unknown field (known here: %s)", file,
                          pathOf(it.key()), absl::StrJoin(seen, ", ")));
  return absl::OkStatus();
}

} // namespace neuron::rt
