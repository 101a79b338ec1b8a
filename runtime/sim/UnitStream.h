//===- UnitStream.h - A unit's instances in program order -------*- C++ -*-===//
//
// A cursor over one unit's instruction stream (or every instruction's):
// the kernel's instructions in program order through the loops that hold
// them, one instance at a time with its induction variables, never
// expanding the loops in memory. The timing simulator walks one per unit;
// the order check walks all instructions.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SIM_UNITSTREAM_H
#define NEURON_RUNTIME_SIM_UNITSTREAM_H

#include "runtime/sim/Program.h"

#include <cstdint>
#include <vector>

namespace neuron::rt {

/// The unit of a stream holding every instruction.
inline constexpr int64_t kAllUnits = -1;

/// One unit's instruction stream: the kernel's instructions naming the
/// unit (or all, for kAllUnits), in program order, through the loops that
/// hold them (loops holding none of them dropped). A cursor over it yields
/// instance after instance with its induction variables, holding only one
/// iteration vector.
class UnitStream {
public:
  UnitStream() = default;
  UnitStream(const Kernel &kernel, int64_t unit);

  /// Moves to the next instance; false when the stream has ended.
  bool next() {
    while (pc < ops.size()) {
      const Op &op = ops[pc];
      switch (op.kind) {
      case Op::Begin:
        iv[op.depth] = 0;
        ++pc;
        break;
      case Op::End:
        pc = ++iv[op.depth] < op.trips ? op.target : pc + 1;
        break;
      case Op::Inst:
        current = op.target;
        ++pc;
        return true;
      }
    }
    current = -1;
    return false;
  }
  /// The instance the cursor is at: its instruction (-1 at the end) and
  /// the induction variables of its loops, outermost first.
  int64_t instruction() const { return current; }
  const int64_t *inductionVariables() const { return iv.data(); }

private:
  struct Op {
    enum Kind { Begin, End, Inst } kind;
    /// Inst: the instruction; End: where the body starts again.
    int64_t target = 0;
    int64_t depth = 0, trips = 1;
  };
  std::vector<Op> ops;
  size_t pc = 0;
  std::vector<int64_t> iv;
  int64_t current = -1;
};

} // namespace neuron::rt

#endif // NEURON_RUNTIME_SIM_UNITSTREAM_H
