//===- Coverage.h - judging ops against a capability table -----*- C++ -*-===//
//
// The rules of operator coverage, read from one generation's capability
// table (runtime/target/Capabilities.h): which ops are judged, whether one
// is supported, and if not, why and what would help.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_PASSES_COVERAGE_H
#define NEURON_PASSES_COVERAGE_H

#include "mlir/IR/Operation.h"

#include <optional>
#include <string>

namespace neuron::rt {
class CapabilityRegistry;
struct CapabilityTable;
} // namespace neuron::rt

namespace mlir::neuron {

/// Why an op cannot run on the target as it is, and what would help.
struct CoverageIssue {
  /// The rule broken: op, dtype, rank, dynamic-shape, attribute, not-raised,
  /// not-tiled (allowed by the table, not lowered by this compiler yet).
  std::string rule;
  /// A sentence naming the op, its types and the rule.
  std::string reason;
  /// What would help: another generation, a cast, a fallback policy.
  std::string hint;
};

/// Judges ops against the capability table of one generation.
class CoverageChecker {
public:
  CoverageChecker(const ::neuron::rt::CapabilityRegistry &registry,
                  const ::neuron::rt::CapabilityTable &table);

  /// Whether coverage judges `op`: neuron ops, and ops of other dialects
  /// that take or make tensors, at the top level of a function (not inside
  /// a host_call or a linalg body). Constants, tensor.empty and func ops are
  /// data or structure, not judged.
  static bool isJudged(Operation *op);

  /// Nothing when the target runs `op` as it is.
  std::optional<CoverageIssue> check(Operation *op) const;

  /// The generation judged against ("trn2").
  StringRef generation() const;

private:
  std::optional<CoverageIssue> checkNeuronOp(Operation *op) const;
  std::string hintFor(Operation *op, StringRef rule, StringRef extra) const;

  const ::neuron::rt::CapabilityRegistry &registry;
  const ::neuron::rt::CapabilityTable &table;
};

/// `'neuron.matmul' (tensor<4x8xi8>, tensor<8x16xi8>) -> tensor<4x16xi32>`.
std::string describeOp(Operation *op);

/// An error on `op` from `pass` unless `policy` is a fallback policy
/// (error, decompose or host).
LogicalResult checkFallbackPolicy(Operation *op, StringRef pass,
                                  StringRef policy);

/// Whether `fallback=decompose` has a rewrite for `op` as it is (the same
/// conditions the rewrites check).
bool hasDecomposition(Operation *op);

/// Whether the rule `issue` breaks is one a rewrite can mend (a missing op,
/// an element type, an attribute), as opposed to shapes it cannot change.
bool isDecomposable(const CoverageIssue &issue);

} // namespace mlir::neuron

#endif // NEURON_PASSES_COVERAGE_H
