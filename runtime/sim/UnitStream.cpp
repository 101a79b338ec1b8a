//===- UnitStream.cpp - A unit's instances in program order ---------------===//

#include "runtime/sim/UnitStream.h"

namespace neuron::rt {

UnitStream::UnitStream(const Kernel &kernel, int64_t unit)
    : iv(kernel.loops.size() + 1, 0) {
  std::vector<int64_t> open;      // loops entered, outermost first
  std::vector<size_t> bodyStart;  // ops index after each open loop's Begin
  auto close = [&] {
    const Loop &loop = kernel.loops[open.back()];
    size_t body = bodyStart.back();
    if (ops.size() == body) // nothing of this unit inside: drop the loop
      ops.pop_back();
    else
      ops.push_back({Op::End, int64_t(body), loop.depth, loop.trips});
    open.pop_back();
    bodyStart.pop_back();
  };
  for (size_t i = 0; i < kernel.instructions.size(); ++i) {
    std::vector<int64_t> nest = kernel.nestOf(int64_t(i));
    size_t common = 0;
    while (common < open.size() && common < nest.size() &&
           open[common] == nest[common])
      ++common;
    while (open.size() > common)
      close();
    for (size_t l = common; l < nest.size(); ++l) {
      const Loop &loop = kernel.loops[nest[l]];
      ops.push_back({Op::Begin, 0, loop.depth, loop.trips});
      open.push_back(nest[l]);
      bodyStart.push_back(ops.size());
    }
    if (unit == kAllUnits || unitOf(kernel.instructions[i]) == unit)
      ops.push_back({Op::Inst, int64_t(i), 0, 1});
  }
  while (!open.empty())
    close();
}

} // namespace neuron::rt
