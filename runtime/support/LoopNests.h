//===- LoopNests.h - Walking instructions through their loops ----*- C++ -*-===//
//
// One walk of a kernel's instructions in program order through the loops
// enclosing them, for the compiler (passes/Semaphores) and the runtime
// (the reader's signal counts, the unit streams) alike. Header only, no
// dependencies.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SUPPORT_LOOPNESTS_H
#define NEURON_RUNTIME_SUPPORT_LOOPNESTS_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace neuron::rt {

/// Walks `count` instructions in program order, instruction i inside the
/// loops `nestOf(i)` (loop ids, outermost first): `enter(loop)` as each
/// loop opens (outermost first), `leave(loop)` as each closes (innermost
/// first), and `visit(i)` on each instruction, inside its loops.
template <typename NestOf, typename Enter, typename Leave, typename Visit>
void walkLoopNests(size_t count, NestOf &&nestOf, Enter &&enter,
                   Leave &&leave, Visit &&visit) {
  std::vector<int64_t> open; // loops entered, outermost first
  auto close = [&] {
    leave(open.back());
    open.pop_back();
  };
  for (size_t i = 0; i < count; ++i) {
    const auto &nest = nestOf(i);
    size_t common = 0;
    while (common < open.size() && common < size_t(nest.size()) &&
           open[common] == int64_t(nest[common]))
      ++common;
    while (open.size() > common)
      close();
    for (size_t l = common; l < size_t(nest.size()); ++l) {
      open.push_back(nest[l]);
      enter(int64_t(nest[l]));
    }
    visit(i);
  }
  while (!open.empty())
    close();
}

} // namespace neuron::rt

#endif // NEURON_RUNTIME_SUPPORT_LOOPNESTS_H
