//===- KernelGraph.h - Instruction dependences of a nisa kernel -*- C++ -*-===//
//
// The dependence graph nisa-schedule, nisa-insert-sync and nisa-verify-sync
// share: a kernel's instructions in block order, each with the units it
// runs on and, for every earlier instruction it must follow, why (a
// read-after-write, write-after-read or write-after-write on an overlapping
// buffer region) and where. On-chip regions are byte ranges of every
// partition (by `nisa.address`, or the tile itself when unallocated); HBM
// regions are the contiguous element runs of an access pattern into a
// kernel argument or global (its bounding range when a pattern has more
// than a few hundred runs). Arguments no instruction writes are not
// tracked: reading them orders nothing.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_PASSES_KERNELGRAPH_H
#define NEURON_PASSES_KERNELGRAPH_H

#include "runtime/target/CostModel.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
class Operation;
class Type;
class Value;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace mlir::neuron {

namespace rt = ::neuron::rt;

enum class Hazard { ReadAfterWrite, WriteAfterRead, WriteAfterWrite };

/// "read-after-write", ...
StringRef hazardName(Hazard hazard);

/// One ordering constraint: instruction `from` must complete before the
/// instruction that lists it starts.
struct Dependence {
  uint32_t from = 0;
  Hazard hazard = Hazard::ReadAfterWrite;
  /// The region both touch: index into KernelGraph::buffers, and the
  /// overlapping range (bytes per partition on chip, elements in HBM).
  uint32_t buffer = 0;
  int64_t lo = 0, hi = 0;
};

class KernelGraph {
public:
  /// Builds the graph of `kernel`'s instructions (every op implementing the
  /// engine interface, in block order); fails with a diagnostic on an
  /// operand whose region cannot be determined.
  static FailureOr<KernelGraph> build(func::FuncOp kernel);

  size_t size() const { return instructions.size(); }
  Operation *instruction(size_t i) const { return instructions[i]; }
  ArrayRef<Operation *> getInstructions() const { return instructions; }
  /// The instructions `i` depends on, one entry per earlier instruction.
  ArrayRef<Dependence> predecessors(size_t i) const {
    return ArrayRef<Dependence>(deps).slice(predBegin[i], predBegin[i + 1] - predBegin[i]);
  }
  /// "SBUF bytes [0, 1024) of each partition", "HBM argument 2 elements
  /// [0, 4096)".
  std::string describeRegion(const Dependence &d) const;

private:
  std::vector<Operation *> instructions;
  std::vector<Dependence> deps;
  std::vector<uint32_t> predBegin;
  /// Names of the tracked buffers ("SBUF", "PSUM", "HBM argument 2", ...)
  /// and whether ranges are bytes per partition (on chip) or elements.
  std::vector<std::string> bufferNames;
  std::vector<bool> onChip;
};

/// The buffer a chain of views (subview, transpose, reinterpret_cast,
/// expand/collapse_shape) of `value` starts from.
Value viewRoot(Value value);

/// An element type as executables spell it ("f32", "bf16", "i8", ...), or
/// "" when executables cannot hold it.
StringRef dtypeNameOf(Type type);

/// The unit an instruction runs on: "tensor", "vector", "scalar", "gpsimd"
/// or "dmaQ" for a dma_copy on queue Q.
std::string unitName(Operation *instruction);

/// The units a kernel's instructions run on, in block order.
struct UnitStreams {
  /// Unit index -> name ("tensor", "dma3", ...), in order of first use.
  std::vector<std::string> names;
  /// Per instruction: its unit and its position in that unit's stream.
  std::vector<uint32_t> unit, position;
  /// Per unit: its instructions in order.
  std::vector<std::vector<uint32_t>> streams;

  static UnitStreams of(const KernelGraph &g);
  /// The index of unit `name`, or -1.
  int find(StringRef name) const;
};

/// Its resource class and its cost query (runtime/target/CostModel.h), from
/// its operands' types.
rt::EngineClass engineClassOf(Operation *instruction);
rt::CostQuery costQueryOf(Operation *instruction);

} // namespace mlir::neuron

#endif // NEURON_PASSES_KERNELGRAPH_H
