//===- CapabilityParser.cpp - Read and validate capability tables ---------===//
//
// Reads data/capabilities/*.json (schema "neuron-capabilities/1") with the
// checked JSON reader, so every error names the file, the JSON path, what was
// expected and what was found, as the target parser's do.
//
//===----------------------------------------------------------------------===//

#include "runtime/target/JsonReader.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <climits>
#include <iterator>

namespace neuron::rt {

static constexpr std::string_view kSchema = "neuron-capabilities/1";
static constexpr std::string_view kRuleShape =
    "an object {max, one_of} with at least one of them";
// The engine kinds of the neuron dialect (NeuronEnums.td).
static const char *const kEngines[] = {
    "tensor", "vector", "scalar", "gpsimd", "dma", "collective", "host"};
// Element types as MLIR prints them: those the dialect's tensors may hold.
static const char *const kDtypes[] = {
    "f32", "bf16", "f16", "f8E4M3FN", "f8E5M2", "i8", "i32", "i64", "i1"};

template <size_t N>
static bool isOneOf(const char *const (&names)[N], std::string_view name) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

static std::string foundString(std::string_view s) {
  return absl::StrFormat("a string \"%s\"", s);
}

/// Reads the element-type list at `key`: known names, none repeated.
static absl::Status readDtypes(ObjectReader &r, std::string_view key,
                               std::vector<std::string> &out, bool required) {
  NEURON_RETURN_IF_ERROR(r.stringList(key, out, required, /*nonEmpty=*/true));
  for (size_t i = 0; i < out.size(); ++i) {
    if (!isOneOf(kDtypes, out[i]))
      return r.itemError(
          key, i,
          absl::StrFormat("an element type (%s)", absl::StrJoin(kDtypes, ", ")),
          foundString(out[i]));
    if (std::find(out.begin(), out.begin() + i, out[i]) != out.begin() + i)
      return r.itemError(key, i, "an element type not listed earlier",
                         foundString(out[i]));
  }
  return absl::OkStatus();
}

static absl::Status parseAttributes(ObjectReader &op, OpCapability &cap) {
  NEURON_ASSIGN_OR_RETURN(
      attrs, op.optObject("attributes", "an object {NAME: {max, one_of}}"));
  if (!attrs)
    return absl::OkStatus();
  for (const std::string &name : attrs->keys()) {
    NEURON_ASSIGN_OR_RETURN(r, attrs->object(name, kRuleShape));
    AttributeRule rule{name, std::nullopt, {}};
    NEURON_ASSIGN_OR_RETURN(maxField, r.field("max", "", /*required=*/false));
    if (maxField) {
      int64_t value = 0;
      NEURON_RETURN_IF_ERROR(
          r.integer("max", "a non-negative integer", 0, INT64_MAX, value));
      rule.max = value;
    }
    NEURON_RETURN_IF_ERROR(
        r.stringList("one_of", rule.oneOf, /*required=*/false, true));
    if (!rule.max && rule.oneOf.empty())
      return attrs->error(name, kRuleShape, "neither");
    NEURON_RETURN_IF_ERROR(r.finish());
    cap.attributes.push_back(std::move(rule));
  }
  return attrs->finish();
}

static absl::Status parseOp(ObjectReader &r, OpCapability &cap) {
  NEURON_RETURN_IF_ERROR(r.string("engine", cap.engine));
  if (!isOneOf(kEngines, cap.engine))
    return r.error(
        "engine",
        absl::StrFormat("an engine (%s)", absl::StrJoin(kEngines, ", ")),
        foundString(cap.engine));
  NEURON_RETURN_IF_ERROR(readDtypes(r, "dtypes", cap.dtypes, true));
  NEURON_RETURN_IF_ERROR(
      readDtypes(r, "result_dtypes", cap.resultDtypes, false));
  NEURON_RETURN_IF_ERROR(readDtypes(r, "index_dtypes", cap.indexDtypes, false));
  int64_t rank = 0;
  NEURON_RETURN_IF_ERROR(
      r.integer("max_rank", "a non-negative integer", 0, INT_MAX, rank));
  cap.maxRank = static_cast<int>(rank);
  NEURON_RETURN_IF_ERROR(r.boolean("dynamic_dims", cap.dynamicDims));
  NEURON_RETURN_IF_ERROR(parseAttributes(r, cap));
  NEURON_RETURN_IF_ERROR(r.string("source", cap.source));
  NEURON_RETURN_IF_ERROR(r.string("note", cap.note, /*required=*/false));
  return r.finish();
}

/// Whether `name` can name a generation and a file (coverage-NAME.md).
static bool isGenerationName(std::string_view name) {
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
  });
}

absl::StatusOr<CapabilityTable> parseCapabilityFile(std::string_view fileName,
                                                    std::string_view text) {
  NEURON_ASSIGN_OR_RETURN(root, parseJsonText(fileName, text));
  if (!root.is_object())
    return jsonError(fileName, "(top level)",
                     "an object {schema, generation, note, ops}",
                     describeJson(root));
  ObjectReader top(fileName, "", root);
  NEURON_RETURN_IF_ERROR(top.constant("schema", kSchema));

  CapabilityTable table;
  table.fileName = std::string(fileName);
  NEURON_RETURN_IF_ERROR(top.string("generation", table.generation));
  if (!isGenerationName(table.generation))
    return top.error("generation", "a name of a-z, 0-9, '-' and '_' (\"trn2\")",
                     foundString(table.generation));
  NEURON_RETURN_IF_ERROR(top.string("note", table.note));
  NEURON_ASSIGN_OR_RETURN(
      ops, top.object("ops", "an object {\"neuron.OP\": {...}}"));
  for (const std::string &name : ops.keys()) {
    if (name.rfind("neuron.", 0) != 0 || name.size() == 7)
      return ops.error(name, "an op name \"neuron.OP\"", foundString(name));
    NEURON_ASSIGN_OR_RETURN(
        r, ops.object(name, "an object {engine, dtypes, max_rank, ...}"));
    OpCapability cap;
    cap.op = name;
    NEURON_RETURN_IF_ERROR(parseOp(r, cap));
    table.ops.push_back(std::move(cap));
  }
  NEURON_RETURN_IF_ERROR(ops.finish());
  NEURON_RETURN_IF_ERROR(top.finish());
  return table;
}

} // namespace neuron::rt
