//===- Capabilities.h - Per-generation operator capability tables -*- C++
//-*-===//
//
// What each chip generation runs natively: one table per generation, read
// from runtime/target/data/capabilities/*.json (embedded at build time). The
// single source of the compiler's coverage pass, its report and the coverage
// docs. An op absent from a generation's table is unsupported there. No MLIR
// dependency: element types and ops are named as MLIR prints them.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_TARGET_CAPABILITIES_H
#define NEURON_RUNTIME_TARGET_CAPABILITIES_H

#include "runtime/target/Target.h"

namespace neuron::rt {

/// A limit on one attribute of an op.
struct AttributeRule {
  /// The attribute's name in the op ("dilations").
  std::string name;
  /// Every integer, or every element of an integer array, must be <= max.
  std::optional<int64_t> max;
  /// When non-empty, the enum keyword must be one of these.
  std::vector<std::string> oneOf;

  /// Whether one integer value (or array element) is within `max`.
  bool allowsValue(int64_t value) const { return !max || value <= *max; }
  /// Whether an enum keyword is allowed by `oneOf`.
  bool allowsKeyword(std::string_view keyword) const;
};

/// What one generation supports of one op ("neuron.matmul").
struct OpCapability {
  /// The full op name, "neuron.xxx".
  std::string op;
  /// tensor, vector, scalar, gpsimd, dma, collective or host.
  std::string engine;
  /// Element types allowed for data operands, and for results unless
  /// `resultDtypes` is given (MLIR spellings: f32, bf16, f8E4M3FN, i1, ...).
  std::vector<std::string> dtypes;
  /// Element types allowed for results; empty means `dtypes`.
  std::vector<std::string> resultDtypes;
  /// Element types allowed for index operands (gather's indices).
  std::vector<std::string> indexDtypes;
  /// The largest rank of any operand or result.
  int maxRank = 0;
  /// Whether dynamic dimensions are allowed.
  bool dynamicDims = false;
  /// Limits on attributes, in file order (sorted by name).
  std::vector<AttributeRule> attributes;
  /// Where the facts come from ("[SDK] path"), or that it is a modelling
  /// choice.
  std::string source;
  /// Why the entry is as it is.
  std::string note;

  bool allowsDtype(std::string_view dtype) const;
  bool allowsResultDtype(std::string_view dtype) const;
  bool allowsIndexDtype(std::string_view dtype) const;
  /// The rule for attribute `name`, or nullptr when it is unrestricted.
  const AttributeRule *rule(std::string_view name) const;
};

/// The capability table of one generation (one capabilities/*.json file).
struct CapabilityTable {
  /// "trn1", "inf2", "trn2": a ChipDesc::generation.
  std::string generation;
  /// The file the table came from, for error messages.
  std::string fileName;
  /// How the table was made.
  std::string note;
  /// The supported ops, sorted by name.
  std::vector<OpCapability> ops;

  /// The entry of `op`, or nullptr when this generation does not support it.
  const OpCapability *find(std::string_view op) const;
};

/// The embedded data/capabilities/*.json files, in file-name order.
std::vector<BuiltinTargetFile> builtinCapabilityFiles();

/// The capability tables of all known generations.
class CapabilityRegistry {
public:
  /// The tables embedded in the library (works from any directory).
  static absl::StatusOr<CapabilityRegistry> loadBuiltin();
  /// Every *.json file directly in `dir`.
  static absl::StatusOr<CapabilityRegistry>
  loadDirectory(const std::string &dir);

  /// Validates one table and adds it; on error nothing is added. Errors are
  /// InvalidArgument and read "FILE: json.path: expected ..., found ...".
  absl::Status addFromText(std::string_view fileName, std::string_view text);

  /// The table of `generation` ("trn2"), or nullptr.
  const CapabilityTable *forGeneration(std::string_view generation) const;
  /// The generations with a table, sorted.
  std::vector<std::string> generations() const;
  /// Generations whose table supports `op` (present in the table), sorted.
  std::vector<std::string> generationsWithOp(std::string_view op) const;

private:
  // Held by pointer so table pointers survive moves of the registry.
  std::vector<std::unique_ptr<CapabilityTable>> tables;
};

/// Markdown: a title naming the generation, the table's note, and one row per
/// op: op | engine | dtypes | result dtypes | index dtypes | max rank |
/// dynamic dims | attribute limits | note; then a list of the dialect ops NOT
/// supported. `allOps` lists every dialect op; rows follow its order, and
/// table ops missing from it come last.
std::string formatCapabilityMarkdown(const CapabilityTable &table,
                                     const std::vector<std::string> &allOps);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_TARGET_CAPABILITIES_H
