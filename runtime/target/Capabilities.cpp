//===- Capabilities.cpp - Capability registry and coverage Markdown -------===//
//
// Lookups in the per-generation capability tables, the registry holding the
// built-in (embedded) or on-disk tables, and the Markdown page of one table.
//
//===----------------------------------------------------------------------===//

#include "runtime/target/Capabilities.h"
#include "runtime/target/TargetInternal.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>

namespace neuron::rt {

static const BuiltinTargetFile kEmbeddedCapabilities[] = {
#include "BuiltinCapabilities.inc"
};

static bool contains(const std::vector<std::string> &list, std::string_view s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

bool AttributeRule::allowsKeyword(std::string_view keyword) const {
  return oneOf.empty() || contains(oneOf, keyword);
}

bool OpCapability::allowsDtype(std::string_view dtype) const {
  return contains(dtypes, dtype);
}

bool OpCapability::allowsResultDtype(std::string_view dtype) const {
  return contains(resultDtypes.empty() ? dtypes : resultDtypes, dtype);
}

bool OpCapability::allowsIndexDtype(std::string_view dtype) const {
  return contains(indexDtypes, dtype);
}

const AttributeRule *OpCapability::rule(std::string_view name) const {
  for (const AttributeRule &r : attributes)
    if (r.name == name)
      return &r;
  return nullptr;
}

const OpCapability *CapabilityTable::find(std::string_view op) const {
  for (const OpCapability &c : ops)
    if (c.op == op)
      return &c;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// CapabilityRegistry
//===----------------------------------------------------------------------===//

std::vector<BuiltinTargetFile> builtinCapabilityFiles() {
  return {std::begin(kEmbeddedCapabilities), std::end(kEmbeddedCapabilities)};
}

absl::StatusOr<CapabilityRegistry> CapabilityRegistry::loadBuiltin() {
  CapabilityRegistry registry;
  for (const BuiltinTargetFile &f : builtinCapabilityFiles())
    NEURON_RETURN_IF_ERROR(registry.addFromText(f.fileName, f.text));
  return registry;
}

absl::StatusOr<CapabilityRegistry>
CapabilityRegistry::loadDirectory(const std::string &dir) {
  NEURON_ASSIGN_OR_RETURN(files, readJsonDirectory(dir, "capability table"));
  CapabilityRegistry registry;
  for (const auto &[fileName, text] : files)
    NEURON_RETURN_IF_ERROR(registry.addFromText(fileName, text));
  return registry;
}

absl::Status CapabilityRegistry::addFromText(std::string_view fileName,
                                             std::string_view text) {
  NEURON_ASSIGN_OR_RETURN(table, parseCapabilityFile(fileName, text));
  if (const CapabilityTable *other = forGeneration(table.generation))
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: generation: duplicate generation \"%s\" (already defined in %s)",
        fileName, table.generation, other->fileName));
  tables.push_back(std::make_unique<CapabilityTable>(std::move(table)));
  return absl::OkStatus();
}

const CapabilityTable *
CapabilityRegistry::forGeneration(std::string_view generation) const {
  for (const auto &t : tables)
    if (t->generation == generation)
      return t.get();
  return nullptr;
}

std::vector<std::string> CapabilityRegistry::generations() const {
  std::vector<std::string> names;
  for (const auto &t : tables)
    names.push_back(t->generation);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string>
CapabilityRegistry::generationsWithOp(std::string_view op) const {
  std::vector<std::string> names;
  for (const auto &t : tables)
    if (t->find(op))
      names.push_back(t->generation);
  std::sort(names.begin(), names.end());
  return names;
}

//===----------------------------------------------------------------------===//
// Markdown
//===----------------------------------------------------------------------===//

/// `text` made safe for one Markdown table cell.
static std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else
      out += c == '\n' ? ' ' : c;
  }
  return out;
}

static std::string listOrDash(const std::vector<std::string> &items) {
  return items.empty() ? "-" : absl::StrJoin(items, ", ");
}

/// "dilations <= 8; layout one of a, b": the limits of `cap`.
static std::string attributeLimits(const OpCapability &cap) {
  std::vector<std::string> limits;
  for (const AttributeRule &r : cap.attributes) {
    std::vector<std::string> parts;
    if (r.max)
      parts.push_back(absl::StrFormat("<= %d", *r.max));
    if (!r.oneOf.empty())
      parts.push_back("one of " + absl::StrJoin(r.oneOf, ", "));
    limits.push_back(
        absl::StrFormat("%s %s", r.name, absl::StrJoin(parts, " and ")));
  }
  return limits.empty() ? "-" : absl::StrJoin(limits, "; ");
}

static std::string row(const OpCapability &cap) {
  std::string note =
      cap.note.empty() ? "Source: " + cap.source
                       : absl::StrFormat("%s Source: %s", cap.note, cap.source);
  std::vector<std::string> cells = {
      "`" + cap.op + "`",
      cap.engine,
      absl::StrJoin(cap.dtypes, ", "),
      cap.resultDtypes.empty() ? "as dtypes" : listOrDash(cap.resultDtypes),
      listOrDash(cap.indexDtypes),
      absl::StrFormat("%d", cap.maxRank),
      cap.dynamicDims ? "yes" : "no",
      attributeLimits(cap),
      note};
  for (std::string &c : cells)
    c = cell(c);
  return "| " + absl::StrJoin(cells, " | ") + " |\n";
}

std::string formatCapabilityMarkdown(const CapabilityTable &table,
                                     const std::vector<std::string> &allOps) {
  std::string_view file = table.fileName;
  file = file.substr(file.find_last_of('/') + 1);
  std::string out = absl::StrFormat(
      "# Operator coverage: %s\n\n"
      "<!-- Generated from runtime/target/data/capabilities/%s; do not "
      "edit. -->\n\n%s\n\n"
      "An op absent from this table is not supported natively on %s.\n\n"
      "| op | engine | dtypes | result dtypes | index dtypes | max rank | "
      "dynamic dims | attribute limits | note |\n"
      "|---|---|---|---|---|---|---|---|---|\n",
      table.generation, file, table.note, table.generation);
  for (const std::string &op : allOps)
    if (const OpCapability *cap = table.find(op))
      out += row(*cap);
  for (const OpCapability &cap : table.ops)
    if (!contains(allOps, cap.op))
      out += row(cap);

  out += absl::StrFormat("\n## Not supported on %s\n\n", table.generation);
  std::vector<std::string> missing;
  for (const std::string &op : allOps)
    if (!table.find(op))
      missing.push_back(absl::StrFormat("- `%s`\n", op));
  out += missing.empty() ? "Every dialect op is supported.\n"
                         : absl::StrJoin(missing, "");
  return out;
}

} // namespace neuron::rt
