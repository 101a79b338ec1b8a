//===- Decompose.h - rewrites of unsupported ops ---------------*- C++ -*-===//
//
// The rewrites of `fallback=decompose`: each fires only on an op the
// coverage checker rejects, and replaces it with ops the generation may
// have; what is still unsupported afterwards is judged again.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_PASSES_DECOMPOSE_H
#define NEURON_PASSES_DECOMPOSE_H

#include "mlir/IR/Location.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace mlir {
class Operation;
class RewritePatternSet;

namespace neuron {
class CoverageChecker;

/// What the rewrites did, for the report.
struct DecomposeLog {
  /// Ops rewritten, by the original op's name.
  std::map<std::string, int64_t> decomposed;
  /// Precision changes, each with where it happened.
  std::vector<std::pair<Location, std::string>> warnings;
};

/// Adds the rewrites; they consult `checker` and record into `log`, both of
/// which must outlive the pattern set.
void populateCoverageDecompositions(RewritePatternSet &patterns,
                                    const CoverageChecker &checker,
                                    DecomposeLog &log);

/// Expands softmax, layer_norm and rms_norm into reductions and
/// elementwise ops, except those `hasRecipe` accepts (a stage with its own
/// on-chip recipe for them).
void populateCompositeExpansionPatterns(
    RewritePatternSet &patterns,
    std::function<bool(Operation *)> hasRecipe = nullptr);

} // namespace neuron
} // namespace mlir

#endif // NEURON_PASSES_DECOMPOSE_H
