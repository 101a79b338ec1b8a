//===- UnitStream.cpp - A unit's instances in program order ---------------===//

#include "runtime/sim/UnitStream.h"

namespace neuron::rt {

UnitStream::UnitStream(const Kernel &kernel, int64_t unit)
    : iv(kernel.loops.size() + 1, 0) {
  std::vector<size_t> bodyStart; // ops index after each open loop's Begin
  walkLoops(
      kernel,
      [&](int64_t l) {
        const Loop &loop = kernel.loops[l];
        ops.push_back({Op::Begin, 0, loop.depth, loop.trips});
        bodyStart.push_back(ops.size());
      },
      [&](int64_t l) {
        const Loop &loop = kernel.loops[l];
        size_t body = bodyStart.back();
        bodyStart.pop_back();
        if (ops.size() == body) // nothing of this unit inside: drop the loop
          ops.pop_back();
        else
          ops.push_back({Op::End, int64_t(body), loop.depth, loop.trips});
      },
      [&](size_t i) {
        if (unit == kAllUnits || unitOf(kernel.instructions[i]) == unit)
          ops.push_back({Op::Inst, int64_t(i), 0, 1});
      });
}

} // namespace neuron::rt
