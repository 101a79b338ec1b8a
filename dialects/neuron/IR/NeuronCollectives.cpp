//===- NeuronCollectives.cpp - collective op verifiers --------------------===//
//
// One shape rule for the synchronous collectives and collective_start: the
// result a collective of `kind` over a group of G cores gives.
//
//===----------------------------------------------------------------------===//

#include "dialects/neuron/IR/NeuronOps.h"

#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::neuron;

namespace {
/// A collective's attributes, whichever op carries them.
struct Collective {
  CollectiveKind kind;
  ArrayRef<int64_t> grid, axes;
  std::optional<int64_t> axis, split, concat;
};
} // namespace

/// The shape `c` gives `input`, or failure after a diagnostic on `op`.
static FailureOr<SmallVector<int64_t>>
collectiveShape(Operation *op, const Collective &c, RankedTensorType input) {
  if (c.grid.empty() || llvm::any_of(c.grid, [](int64_t s) { return s < 1; }))
    return op->emitOpError("expected a grid of positive sizes, found [")
           << c.grid << "]";
  llvm::SmallSet<int64_t, 4> seen;
  int64_t group = 1;
  for (int64_t a : c.axes) {
    if (a < 0 || a >= int64_t(c.grid.size()))
      return op->emitOpError("grid axis ")
             << a << " is outside the " << c.grid.size()
             << "-dimensional grid";
    if (!seen.insert(a).second)
      return op->emitOpError("grid axis ") << a << " appears twice";
    group *= c.grid[a];
  }
  int64_t rank = input.getRank();
  auto checkAxis = [&](std::optional<int64_t> a,
                       StringRef name) -> LogicalResult {
    if (!a || (*a >= 0 && *a < rank))
      return success();
    return op->emitOpError() << name << " " << *a << " is outside the rank-"
                             << rank << " input";
  };
  if (failed(checkAxis(c.axis, "axis")) ||
      failed(checkAxis(c.split, "split axis")) ||
      failed(checkAxis(c.concat, "concat axis")))
    return failure();
  SmallVector<int64_t> shape(input.getShape());
  auto divide = [&](int64_t a) -> LogicalResult {
    if (ShapedType::isDynamic(shape[a]))
      return success();
    if (shape[a] % group)
      return op->emitOpError("dimension ")
             << a << " (" << shape[a] << ") does not split evenly over the "
             << group << " cores of a group";
    shape[a] /= group;
    return success();
  };
  auto multiply = [&](int64_t a) {
    if (!ShapedType::isDynamic(shape[a]))
      shape[a] *= group;
  };
  switch (c.kind) {
  case CollectiveKind::all_reduce:
    break;
  case CollectiveKind::all_gather:
    multiply(*c.axis);
    break;
  case CollectiveKind::reduce_scatter:
  case CollectiveKind::all_slice:
    if (failed(divide(*c.axis)))
      return failure();
    break;
  case CollectiveKind::all_to_all:
    if (failed(divide(*c.split)))
      return failure();
    multiply(*c.concat);
    break;
  }
  return shape;
}

static LogicalResult verifyResult(Operation *op, const Collective &c,
                                  RankedTensorType input,
                                  RankedTensorType result) {
  FailureOr<SmallVector<int64_t>> shape = collectiveShape(op, c, input);
  if (failed(shape))
    return failure();
  auto expected = RankedTensorType::get(*shape, input.getElementType());
  if (failed(verifyCompatibleShape(expected, result)) ||
      expected.getElementType() != result.getElementType())
    return op->emitOpError("expected a result of type ")
           << expected << " (" << stringifyCollectiveKind(c.kind)
           << " over a group of "
           << [&] {
                int64_t g = 1;
                for (int64_t a : c.axes)
                  g *= c.grid[a];
                return g;
              }()
           << " cores), found " << result;
  return success();
}

LogicalResult AllReduceOp::verify() {
  return verifyResult(*this,
                      {CollectiveKind::all_reduce, getGrid(), getGridAxes()},
                      getInput().getType(), getResult().getType());
}

LogicalResult AllGatherOp::verify() {
  return verifyResult(
      *this, {CollectiveKind::all_gather, getGrid(), getGridAxes(), getAxis()},
      getInput().getType(), getResult().getType());
}

LogicalResult ReduceScatterOp::verify() {
  return verifyResult(*this,
                      {CollectiveKind::reduce_scatter, getGrid(), getGridAxes(),
                       getAxis()},
                      getInput().getType(), getResult().getType());
}

LogicalResult AllSliceOp::verify() {
  return verifyResult(
      *this, {CollectiveKind::all_slice, getGrid(), getGridAxes(), getAxis()},
      getInput().getType(), getResult().getType());
}

LogicalResult AllToAllOp::verify() {
  return verifyResult(*this,
                      {CollectiveKind::all_to_all, getGrid(), getGridAxes(),
                       std::nullopt, getSplitAxis(), getConcatAxis()},
                      getInput().getType(), getResult().getType());
}

LogicalResult CollectiveStartOp::verify() {
  CollectiveKind kind = getKind();
  bool reduces = kind == CollectiveKind::all_reduce ||
                 kind == CollectiveKind::reduce_scatter;
  bool hasAxis = kind == CollectiveKind::all_gather ||
                 kind == CollectiveKind::reduce_scatter ||
                 kind == CollectiveKind::all_slice;
  bool splits = kind == CollectiveKind::all_to_all;
  auto expect = [&](bool wanted, bool present,
                    StringRef name) -> LogicalResult {
    if (wanted == present)
      return success();
    return emitOpError() << stringifyCollectiveKind(kind)
                         << (wanted ? " needs " : " takes no ") << name;
  };
  if (failed(expect(reduces, getReduction().has_value(), "'reduction'")) ||
      failed(expect(hasAxis, getAxis().has_value(), "'axis'")) ||
      failed(expect(splits, getSplitAxis().has_value(), "'split'")) ||
      failed(expect(splits, getConcatAxis().has_value(), "'concat'")))
    return failure();
  if (failed(verifyResult(*this,
                          {kind, getGrid(), getGridAxes(), getAxis(),
                           getSplitAxis(), getConcatAxis()},
                          getInput().getType(), getHandle().getType().getValue())))
    return failure();
  if (!getHandle().hasOneUse() ||
      !isa<CollectiveDoneOp>(*getHandle().getUsers().begin()))
    return emitOpError("expected its handle to have exactly one use, a "
                       "'neuron.collective_done'");
  return success();
}

LogicalResult CollectiveDoneOp::verify() {
  RankedTensorType value = getHandle().getType().getValue();
  if (value != getResult().getType())
    return emitOpError("expected a result of type ")
           << value << " (the pending collective's), found "
           << getResult().getType();
  return success();
}

// Starting and finishing a collective move data between cores: neither may
// be removed, duplicated or reordered with another collective.
void CollectiveStartOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Write::get());
}

void CollectiveDoneOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get());
  effects.emplace_back(MemoryEffects::Write::get());
}

bool mlir::neuron::isCollectiveResult(Operation *op) {
  return isa<CollectiveDoneOp>(op) ||
         (getCollectiveInfo(op) && !isa<CollectiveStartOp>(op));
}

bool mlir::neuron::joinsCollectiveResults(ConcatOp concat) {
  auto type = cast<RankedTensorType>(concat.getType());
  if (!type.hasStaticShape() ||
      llvm::any_of(type.getShape().take_front(concat.getAxis()),
                   [](int64_t size) { return size != 1; }))
    return false;
  return llvm::all_of(concat.getInputs(), [](Value piece) {
    Operation *def = piece.getDefiningOp();
    return def && isCollectiveResult(def) && piece.hasOneUse();
  });
}

SmallVector<CollectiveDoneOp> mlir::neuron::collectiveDonesOf(Value value) {
  while (auto reshape = value.getDefiningOp<ReshapeOp>())
    value = reshape.getInput();
  if (auto done = value.getDefiningOp<CollectiveDoneOp>())
    return {done};
  auto join = value.getDefiningOp<ConcatOp>();
  if (!join || !joinsCollectiveResults(join))
    return {};
  SmallVector<CollectiveDoneOp> dones;
  for (Value piece : join.getInputs()) {
    auto done = piece.getDefiningOp<CollectiveDoneOp>();
    if (!done)
      return {};
    dones.push_back(done);
  }
  return dones;
}

std::optional<CollectiveInfo> mlir::neuron::getCollectiveInfo(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<CollectiveInfo>>(op)
      .Case([](AllReduceOp o) {
        return CollectiveInfo{CollectiveKind::all_reduce, o.getInput(),
                              o.getGrid(), o.getGridAxes(), o.getReduction()};
      })
      .Case([](AllGatherOp o) {
        return CollectiveInfo{CollectiveKind::all_gather, o.getInput(),
                              o.getGrid(), o.getGridAxes(), std::nullopt,
                              o.getAxis()};
      })
      .Case([](ReduceScatterOp o) {
        return CollectiveInfo{CollectiveKind::reduce_scatter, o.getInput(),
                              o.getGrid(), o.getGridAxes(), o.getReduction(),
                              o.getAxis()};
      })
      .Case([](AllSliceOp o) {
        return CollectiveInfo{CollectiveKind::all_slice, o.getInput(),
                              o.getGrid(), o.getGridAxes(), std::nullopt,
                              o.getAxis()};
      })
      .Case([](AllToAllOp o) {
        return CollectiveInfo{CollectiveKind::all_to_all, o.getInput(),
                              o.getGrid(), o.getGridAxes(), std::nullopt,
                              std::nullopt, o.getSplitAxis(),
                              o.getConcatAxis()};
      })
      .Case([](CollectiveStartOp o) {
        return CollectiveInfo{o.getKind(),      o.getInput(),
                              o.getGrid(),      o.getGridAxes(),
                              o.getReduction(), o.getAxis(),
                              o.getSplitAxis(), o.getConcatAxis()};
      })
      .Default([](Operation *) { return std::nullopt; });
}
