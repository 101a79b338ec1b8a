//===- Semaphores.h - Semaphore counts of a kernel's units ------*- C++ -*-===//
//
// The arithmetic nisa-insert-sync and nisa-verify-sync share. Every unit
// (an engine, or a DMA queue) runs its instructions in program order and
// owns a counting semaphore that each of its signalling instructions
// raises by one on completion. How many signals a unit has given before an
// instance of an instruction, in program order, is an affine function of
// the induction variables of its loops; so is the count that proves a
// dependence's earlier instance complete (the threshold of a wait).
//
// For a dependence on the same iteration of the shared loops the
// threshold is exact: the signals up to the last instance of `from` in
// that iteration. For one reaching back `distance` iterations (a rotating
// slot reused, a loop-carried hazard) it is written relative to the
// waiting instruction: its unit-U signals so far minus the fewest that
// can separate the two instances. That fewest is found in closed form at
// the outer loops' last iteration: going back `distance` iterations there
// crosses the fewest outer-loop boundaries, and every boundary crossed
// only adds signals (docs/loops.md gives the argument).
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_PASSES_SEMAPHORES_H
#define NEURON_PASSES_SEMAPHORES_H

#include "passes/KernelGraph.h"

#include <optional>

namespace mlir::neuron {

/// The signals of one unit through a kernel's loops.
class SignalCounts {
public:
  /// Counts the signals of instructions `i` with `unit[i] == which` and
  /// `signals[i]`.
  SignalCounts(const KernelGraph &g, ArrayRef<uint32_t> unit,
               const std::vector<bool> &signals, uint32_t which);

  /// The unit's signals before instance `iv` of instruction `i`, in
  /// program order, over the induction variables of its loops.
  AffineIndex before(size_t i) const;
  /// All its signals in the kernel.
  int64_t total() const { return all; }

private:
  const KernelGraph &g;
  /// Per loop: signals in one iteration of its body.
  std::vector<int64_t> perIteration;
  /// Per instruction: signals before its first instance.
  std::vector<int64_t> first;
  int64_t all = 0;
};

/// A count to wait for over an instruction's loops: `count`, less `fewer`
/// in the first `iterations` iterations of its loop `loop` (0 the
/// outermost; none where `fewer` is 0): #nisa.wait's `fewer_first`.
struct Threshold {
  Threshold(AffineIndex count = {}) : count(std::move(count)) {}

  AffineIndex count;
  int64_t loop = 0, iterations = 0, fewer = 0;

  /// Its value at `iv`.
  int64_t at(ArrayRef<int64_t> iv) const;
};

/// The count of `from`'s unit (counted by `counts`) that proves the
/// instance of `d.from` that dependence `d` of instruction `to` names
/// complete, over `to`'s loops; nullopt when no iteration of `to` has such
/// an instance (a slot never reused). Exact but where a dependence carried
/// by several loops reaches back over boundaries of more than the loop
/// around the innermost of them (docs/loops.md).
std::optional<Threshold> thresholdOf(const KernelGraph &g,
                                     const SignalCounts &counts,
                                     const Dependence &d, size_t to);

/// The lowest value of `a - b` over loops of `trips`, and the iteration
/// where it is reached.
std::pair<int64_t, SmallVector<int64_t, 4>>
minimumOver(const Threshold &a, const Threshold &b, ArrayRef<int64_t> trips);

/// The lowest value of `f` over loops of `trips`, and the iteration where
/// it is reached.
std::pair<int64_t, SmallVector<int64_t, 4>>
minimumOver(const AffineIndex &f, ArrayRef<int64_t> trips);

/// `a - b`.
AffineIndex difference(const AffineIndex &a, const AffineIndex &b);

/// An iteration of loops of `trips` where `needed` is positive (a count to
/// wait for) and `wait` falls short of it, or nullopt when there is none.
/// The lowest `wait - needed` over the part of the box where `needed` is
/// positive lies at a corner of the box or where an edge enters that part;
/// thresholds with fewer first iterations are affine on each part of the
/// box their `iterations` cut it into.
std::optional<SmallVector<int64_t, 4>>
shortfall(const Threshold &wait, const Threshold &needed,
          ArrayRef<int64_t> trips);

} // namespace mlir::neuron

#endif // NEURON_PASSES_SEMAPHORES_H
