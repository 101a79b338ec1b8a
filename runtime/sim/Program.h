//===- Program.h - The validated program of an executable -------*- C++ -*-===//
//
// The executable manifest's tensors, kernels, instructions and program steps
// (docs/executable.md) as C++ structures. parseProgram checks everything the
// simulator relies on: every index, dtype and shape, every tile reference
// against its tensor or the kernel's on-chip limits, every instruction's
// fields against the op table, every wait against the signalling
// instructions it waits for, every kernel step's bindings, and every
// collective's tensors, shapes and start/done pairing against the SPMD grid.
// A manifest that parses runs without further bounds checks.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SIM_PROGRAM_H
#define NEURON_RUNTIME_SIM_PROGRAM_H

#include "runtime/sim/HostCode.h"
#include "runtime/sim/Numerics.h"
#include "runtime/support/LoopNests.h"
#include "runtime/target/CollectiveModel.h"

#include "absl/status/statusor.h"
#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace neuron::rt {

/// The manifest schema this runtime reads (docs/executable.md).
inline constexpr std::string_view kExecutableSchema = "neuron-executable/4";

/// `kind` of a manifest tensor.
enum class TensorKind { Input, Output, Constant, Scratch, View };

/// One HBM tensor of the program.
struct TensorDesc {
  DType dtype = DType::F32;
  /// Positive extents; empty for a scalar.
  std::vector<int64_t> shape;
  TensorKind kind = TensorKind::Scratch;
  std::string name;
  /// The container section holding a constant's bytes; empty otherwise.
  std::string section;
  /// Product of `shape` (1 for a scalar).
  int64_t elements = 1;
  /// A view: the tensor (never itself a view) whose bytes it names, from
  /// element `viewOffset` on; -1 otherwise.
  int64_t viewOf = -1;
  int64_t viewOffset = 0;

  /// The bytes its elements take (each tensor below 2^43).
  int64_t bytes() const { return elements * elementBytes(dtype); }
};

/// A program argument or result.
struct IoBinding {
  int64_t tensor = 0;
  std::string name;
  /// SPMD: per tensor dimension, the grid axes it is split over (major
  /// first); empty when the tensor is the same on every rank.
  std::vector<std::vector<int64_t>> sharding;
};

/// The on-chip capacities a kernel was compiled for; bytes are per partition.
struct Limits {
  int64_t partitions = 0;
  int64_t sbufBytes = 0;
  int64_t psumBytes = 0;
  int64_t psumBankBytes = 0;
  int64_t stationaryFree = 0;
  int64_t movingFree = 0;
  /// The K rows per partition an fp8 matmul may contract (2: the
  /// double-row mode).
  int64_t fp8Rows = 1;
};

// The instruction set (opcodes, engines, tile operands, the enums
// instructions carry) is the nisa dialect's, generated from its ODS by
// tblgen/NisaIsaGen.cpp into runtime/sim/NisaIsa.inc.

enum class MemorySpace {
#define NISA_MEMORY_SPACE(Symbol, keyword) Symbol,
#include "runtime/sim/NisaIsa.inc"
};

/// The rotating buffer slots of an on-chip tile allocated inside a loop:
/// each iteration of the outer `depth` loops of the instruction's nest
/// takes the next of `count` slots, `bytes` apart in every partition.
struct Slots {
  int64_t count = 1;
  int64_t bytes = 0;
  int64_t depth = 0;
};

/// An instruction operand: an access pattern into a kernel parameter (HBM) or
/// a tile of partitions x free elements (SBUF, PSUM), the free elements
/// contiguous unless the reference gives their strides. In a loop its
/// offset moves with the induction variables: `offset + sum(iv[l] *
/// ivStrides[l])` over the levels of the instruction's loop nest (outermost
/// first), plus the slot's bytes on chip.
struct TileRef {
  MemorySpace space = MemorySpace::Sbuf;
  DType dtype = DType::F32;
  /// HBM: element strides per dimension (>= 0). On chip: [P, F...], and
  /// the element strides of the free dimensions F..., empty when they are
  /// contiguous (row-major).
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  /// HBM: the kernel parameter. On chip: the first partition.
  int64_t param = 0;
  int64_t partition = 0;
  /// HBM: in elements. On chip: in bytes within each partition. At the
  /// first iteration of every loop.
  int64_t offset = 0;
  /// Per loop level of the instruction (outermost first): how far the offset
  /// moves per iteration (elements in HBM, bytes on chip); empty when the
  /// operand does not move.
  std::vector<int64_t> ivStrides;
  /// On chip: the rotating slots (count 1 when the tile does not rotate).
  Slots slots;
  /// Product of `shape`.
  int64_t elements = 1;
  /// HBM: the lowest and highest element offsets the pattern touches over
  /// every iteration.
  int64_t minElement = 0, maxElement = 0;
  /// Its JSON path, for errors found when a program binds the kernel.
  std::string path;

  /// On chip: partitions covered and elements per partition.
  int64_t partitionCount() const { return shape.empty() ? 1 : shape[0]; }
  int64_t freeElements() const {
    return partitionCount() ? elements / partitionCount() : 0;
  }
  /// On chip: whether the free elements are contiguous in each partition.
  bool contiguous() const { return strides.empty(); }
  /// On chip: the elements from a partition's first to its last, inclusive
  /// (the free elements when contiguous); 2^62 + 1 for any span past 2^62.
  int64_t freeSpan() const {
    if (strides.empty())
      return freeElements();
    constexpr int64_t kMax = int64_t(1) << 62;
    int64_t last = 0;
    for (size_t d = 0; d < strides.size(); ++d) {
      int64_t step = 0;
      if (__builtin_mul_overflow(shape[d + 1] - 1, strides[d], &step) ||
          __builtin_add_overflow(last, step, &last) || last > kMax)
        return kMax + 1;
    }
    return last + 1;
  }
};

enum class Opcode {
#define NISA_INSTRUCTION(Symbol, name, engine, operands) Symbol,
#include "runtime/sim/NisaIsa.inc"
};

/// Every opcode, in the dialect's order.
inline constexpr Opcode kOpcodes[] = {
#define NISA_INSTRUCTION(Symbol, name, engine, operands) Opcode::Symbol,
#include "runtime/sim/NisaIsa.inc"
};

/// The op's manifest name ("dma_copy", "matmul", ...).
std::string_view opName(Opcode op);

enum class Engine { Tensor, Vector, Scalar, GpSimd, Dma };

/// The engine `op` runs on.
Engine engineOf(Opcode op);

/// One tile operand of an op, as the dialect declares it.
struct TileOperand {
  /// Its manifest key ("src", "stationary", "on_true", ...).
  std::string_view name;
  bool optional = false;
};

/// `op`'s tile operands in the dialect's order; the written one is "dst".
const std::vector<TileOperand> &tileOperandsOf(Opcode op);

/// A unit runs its instructions in order: units 0..3 are the engines
/// tensor, vector, scalar, gpsimd (as Engine), one at a time; unit
/// kFirstDmaUnit + Q is DMA queue Q, whose transfers start in order, each
/// on any free DMA engine of the core, and retire in order. Those are the
/// units of physical core 0; physical core C of a logical core has its
/// own, C * kUnitsPerCore further on.
inline constexpr int64_t kFirstDmaUnit = 4;
/// DMA queues a manifest may name.
inline constexpr int64_t kMaxDmaQueues = 1024;
inline constexpr int64_t kUnitsPerCore = kFirstDmaUnit + kMaxDmaQueues;
/// Physical cores one kernel may run on.
inline constexpr int64_t kMaxPhysicalCores = 8;

/// The physical core of `unit` and the unit it is on that core.
inline int64_t coreOfUnit(int64_t unit) { return unit / kUnitsPerCore; }
inline int64_t localUnit(int64_t unit) { return unit % kUnitsPerCore; }
inline bool isDmaUnit(int64_t unit) {
  return localUnit(unit) >= kFirstDmaUnit;
}

/// "tensor", "vector", "scalar", "gpsimd" or "dmaQ", then "@C" on physical
/// core C > 0 ("tensor@1").
std::string unitName(int64_t unit);
/// The unit `name` names, or nullopt.
std::optional<int64_t> parseUnit(std::string_view name);

/// `wait` of an instruction: start once `unit`'s semaphore reaches
/// `count + sum(iv[l] * ivCounts[l])` (at once when that is 0 or less).
struct UnitWait {
  int64_t unit = 0;
  int64_t count = 1;
  /// Per loop level of the instruction, outermost first; empty outside
  /// loops.
  std::vector<int64_t> ivCounts;
  /// The count is `fewer` lower in the first `iterations` iterations of
  /// loop level `loop` (none where `fewer` is 0).
  int64_t loop = 0, iterations = 0, fewer = 0;
};

/// `#nisa.activation` functions.
enum class ActivationFn {
#define NISA_ACTIVATION_FUNCTION(Symbol, keyword) Symbol,
#include "runtime/sim/NisaIsa.inc"
};

/// `#nisa.alu` operations.
enum class AluOp {
#define NISA_ALU_OP(Symbol, keyword) Symbol,
#include "runtime/sim/NisaIsa.inc"
};

/// One engine instruction; only the fields of its op are meaningful.
struct Instruction {
  Opcode op = Opcode::DmaCopy;
  /// The physical core of the kernel's logical core that runs it.
  int64_t core = 0;
  /// The innermost loop holding it (an index into Kernel::loops), or -1 at
  /// the kernel's top level; `depth` loops enclose it.
  int64_t loop = -1;
  int64_t depth = 0;
  Engine engine = Engine::Dma;
  /// dma_copy: its DMA queue.
  int64_t queue = 0;
  /// Results; dst of every op.
  TileRef dst;
  /// dma_copy, transpose, activation, tensor_scalar, scalar_tensor_tensor,
  /// tensor_reduce.
  TileRef src;
  /// matmul: stationary [K, M] and moving [K, N]; in the double-row mode
  /// [K, 2, M] and [K, 2, N].
  TileRef stationary, moving;
  /// matmul: the double-row fp8 mode (two K rows per partition).
  bool doubleRow = false;
  /// tensor_tensor; rhs also scalar_tensor_tensor's tensor operand.
  TileRef lhs, rhs;
  /// gather: an [R, C] HBM table and [P, 1] i32 row indices.
  TileRef table, indices;
  /// select: dst = predicate != 0 ? onTrue : onFalse.
  TileRef predicate, onTrue, onFalse;
  /// activation: optional [P, 1] per-partition bias, and factors its
  /// source is scaled by besides `scale`.
  std::optional<TileRef> bias, scales;
  /// tensor_scalar, scalar_tensor_tensor: the [P, 1] per-partition
  /// scalars, when not an immediate.
  std::optional<TileRef> scalars;
  /// dma_copy: a one-element i32 SBUF tile whose value v, read when the
  /// transfer starts, moves the start of movedSide() (src when
  /// offsetMovesSrc, else dst) by v * offsetStride elements; v must lie in
  /// [0, offsetLimit].
  std::optional<TileRef> offset;
  bool offsetMovesSrc = false;
  int64_t offsetStride = 0, offsetLimit = 0;
  bool accumulate = false;
  /// matmul: loop levels over which it accumulates: on the iterations where
  /// all their induction variables are 0 it overwrites `dst` instead (the
  /// sum starts).
  std::vector<int64_t> restart;
  ActivationFn function = ActivationFn::Identity;
  AluOp alu = AluOp::Add;
  /// scalar_tensor_tensor: the second operator, with rhs.
  AluOp alu1 = AluOp::Add;
  /// activation scale, tensor_scalar and scalar_tensor_tensor scalar,
  /// memset value.
  double scale = 1, scalar = 0, value = 0;
  /// iota.
  int64_t partitionStep = 0;
  /// Synchronisation: on completion add 1 to the unit's semaphore; start
  /// only once every wait is satisfied.
  bool signal = false;
  std::vector<UnitWait> waits;
  /// The compiler's predicted start and end, when it scheduled the kernel.
  std::optional<double> startNs, endNs;
};

/// A dma_copy's side whose start its `offset` moves.
inline const TileRef &movedSide(const Instruction &inst) {
  return inst.offsetMovesSrc ? inst.src : inst.dst;
}

/// Every element movedSide(inst) may touch over the starts its offset
/// allows: the pattern with an outer dimension of offsetLimit + 1 starts.
TileRef reachOf(const Instruction &inst);

/// `inst`'s tile operand `name` (a TileOperand's), or nullptr when it has
/// none of that name (an absent optional one).
TileRef *operandRef(Instruction &inst, std::string_view name);
const TileRef *operandRef(const Instruction &inst, std::string_view name);

/// The unit `inst` runs on: its engine, or its DMA queue.
inline int64_t unitOf(const Instruction &inst) {
  return inst.core * kUnitsPerCore +
         (inst.engine == Engine::Dma ? kFirstDmaUnit + inst.queue
                                     : static_cast<int64_t>(inst.engine));
}

/// A kernel's `schedule`: the compiler's prediction (docs/executable.md).
struct KernelSchedule {
  double predictedNs = 0, boundNs = 0, criticalPathNs = 0, serialNs = 0;
  /// predictedNs / boundNs as the compiler recorded it (optional).
  std::optional<double> predictedOverBound;
  /// Busy time per Engine; Dma summed over the DMA engines.
  std::array<double, 5> busyNs{};
  /// The DMA engines the bound divides Dma's busy time over.
  int64_t dmaEngines = 1;
  /// Instruction indices along the critical path, first to last.
  std::vector<int64_t> criticalPath;
};

/// A loop of a kernel: its body, a contiguous run of the kernel's
/// instructions (`first` to `end` - 1, nested loops included), runs `trips`
/// times.
struct Loop {
  int64_t trips = 1;
  /// The enclosing loop, or -1 at the kernel's top level.
  int64_t parent = -1;
  /// Loops enclosing it.
  int64_t depth = 0;
  int64_t first = 0, end = 0;
};

struct Kernel {
  std::string name;
  int64_t parameters = 0;
  /// The physical cores its instructions run on (each with its own engines,
  /// DMA queues, SBUF and PSUM of `limits`), 0 .. cores - 1.
  int64_t cores = 1;
  Limits limits;
  /// Loops before the loops nested in them; instructions in program order
  /// (each unit runs, in this order and through the same loops, the
  /// instructions naming it).
  std::vector<Loop> loops;
  std::vector<Instruction> instructions;
  /// Present when the compiler scheduled the kernel; without it the
  /// instructions run one after another.
  std::optional<KernelSchedule> schedule;

  /// The loops enclosing instruction `i`, outermost first.
  std::vector<int64_t> nestOf(int64_t i) const;
  /// How many times instruction `i` runs (the product of its loops' trips).
  int64_t instancesOf(int64_t i) const;
  /// Instructions run in all: every instruction times its loops' trips.
  int64_t dynamicInstructions() const;
};

/// walkLoopNests over `kernel`'s instructions and loops.
template <typename Enter, typename Leave, typename Visit>
void walkLoops(const Kernel &kernel, Enter &&enter, Leave &&leave,
               Visit &&visit) {
  walkLoopNests(
      kernel.instructions.size(),
      [&](size_t i) { return kernel.nestOf(int64_t(i)); }, enter, leave,
      visit);
}

/// The element (HBM) or byte (on chip) offset of `ref` at the induction
/// variables `iv` of its instruction's nest, whose trips are `trips`
/// (outermost first).
int64_t offsetAt(const TileRef &ref, const int64_t *iv, const int64_t *trips);

enum class StepKind { Kernel, HostCall, CollectiveStart, CollectiveDone };

/// How all_reduce and reduce_scatter combine the group's values.
enum class Reduction { Sum, Max, Min };

/// A collective_start's fields (docs/executable.md, "Program").
struct Collective {
  /// The id pairing the start with its done.
  int64_t id = 0;
  CollectiveOp op = CollectiveOp::AllReduce;
  /// Tensor ids: read at the start, written at the done.
  int64_t input = 0, output = 0;
  /// The program's grid, and the axes along which a group's ranks differ.
  std::vector<int64_t> grid, axes;
  /// all_reduce, reduce_scatter.
  Reduction reduction = Reduction::Sum;
  /// all_gather, reduce_scatter, all_slice: the dimension gathered, or
  /// scattered (split into the group's parts).
  int64_t axis = 0;
  /// all_to_all.
  int64_t splitAxis = 0, concatAxis = 0;
  /// The compiler's choice and estimate, when it placed the collective.
  std::optional<CollectiveAlgorithm> algorithm;
  std::optional<int64_t> chunks;
  std::optional<double> predictedNs;
  /// Ranks in one group: the product of the grid's sizes along `axes`.
  int64_t groupSize = 1;
};

/// The manifest keyword of `op` ("all_reduce", ...).
std::string_view collectiveOpName(CollectiveOp op);

/// A program step: a kernel invocation, a host call, or the start or done of
/// a collective.
struct Step {
  StepKind kind = StepKind::Kernel;
  bool isKernel() const { return kind == StepKind::Kernel; }
  bool isHostCall() const { return kind == StepKind::HostCall; }
  bool isCollective() const {
    return kind == StepKind::CollectiveStart ||
           kind == StepKind::CollectiveDone;
  }
  /// Kernel step: index into Program::kernels and one tensor per parameter.
  int64_t kernel = 0;
  std::vector<int64_t> bindings;
  /// Kernel step: the collectives (their start steps) it awaits inside: it
  /// starts while they are in flight, and its reads of their outputs wait
  /// for them (`awaits` in the manifest names their ids).
  std::vector<int64_t> awaits;
  /// Host call: name, why it is on the host, tensors and the region's MLIR
  /// text.
  std::string hostCall, reason;
  std::vector<int64_t> inputs, outputs;
  std::string ops;
  /// Host call: its entry point's name in the program's host code, and the
  /// entry point once the host code is loaded (loadHostCode).
  std::string symbol;
  HostEntry entry = nullptr;
  /// collective_start: its fields; collective_done: a copy of its start's.
  Collective collective;
  /// The step index of the matching done (for a start) or start (for a
  /// done); -1 otherwise.
  int64_t partner = -1;
};

struct Program;

/// Whether tensors `a` and `b` of `program` share bytes (a view shares its
/// root's).
bool tensorsOverlap(const Program &program, int64_t a, int64_t b);

/// Whether `inst`, run by kernel step `step`, reads tensor `tensor` (an HBM
/// operand bound to a tensor sharing its bytes).
bool readsTensor(const Program &program, const Step &step,
                 const Instruction &inst, int64_t tensor);

/// The executable part of a manifest.
struct Program {
  std::vector<TensorDesc> tensors;
  std::vector<IoBinding> inputs, outputs;
  std::vector<Kernel> kernels;
  std::vector<Step> steps;
  /// `spmd.grid`: one rank per logical core, rank = row-major index of the
  /// coordinates; empty when the program runs on one core.
  std::vector<int64_t> grid;
  /// `host_code`: where the host calls' native code is; present exactly
  /// when the program has host calls. The library once loaded.
  std::optional<HostCodeDesc> hostCode;
  std::shared_ptr<HostLibrary> hostLibrary;

  bool isSpmd() const { return !grid.empty(); }
  /// The number of ranks (1 without `spmd`).
  int64_t ranks() const {
    int64_t n = 1;
    for (int64_t s : grid)
      n *= s;
    return n;
  }
};

/// Reads and validates `tensors`, `spmd`, `inputs`, `outputs`, `kernels`
/// and `program` of `manifest` (other fields are the format's business). Never
/// crashes; errors are InvalidArgument and read "manifest: JSON.PATH: expected
/// ..., found ...".
absl::StatusOr<Program> parseProgram(const nlohmann::json &manifest);

/// PermissionDenied naming `program`'s host calls when it has any (their
/// regions run on the machine that runs the program: users who run
/// executables they did not compile refuse them), after "`origin`: ";
/// OK otherwise. `option` names the option that asked for the refusal.
absl::Status refuseHostCode(const Program &program, std::string_view origin,
                            std::string_view option);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_SIM_PROGRAM_H
