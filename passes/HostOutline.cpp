//===- HostOutline.cpp - outlining unsupported ops to the host ------------===//
//
// Regions grow along def-use edges between unsupported ops. Two regions may
// merge only if no path leaves them and comes back (the merged region would
// then depend on itself); such paths are found by a walk bounded to the
// ops between the two regions in block order.
//
//===----------------------------------------------------------------------===//

#include "passes/HostOutline.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/EquivalenceClasses.h"

using namespace mlir;
using namespace mlir::neuron;

/// The values `op` uses: its operands, and the values its nested regions
/// (linalg bodies) capture from outside. Both are edges between ops.
static llvm::SetVector<Value> usedValues(Operation *op) {
  llvm::SetVector<Value> used(op->getOperands().begin(),
                              op->getOperands().end());
  getUsedValuesDefinedAbove(op->getRegions(), used);
  return used;
}

/// The op in `block` that contains `value`'s definition, if any (a value
/// defined in a nested region belongs to its top-level op there).
static Operation *definingOpIn(Value value, Block *block) {
  Operation *def = value.getDefiningOp();
  return def ? block->findAncestorOpInBlock(*def) : nullptr;
}

namespace {
/// The regions being formed, as equivalence classes of ops.
class RegionBuilder {
public:
  explicit RegionBuilder(const llvm::SetVector<Operation *> &ops) : ops(ops) {
    for (Operation *op : ops)
      classes.insert(op);
  }

  /// Merges the region of `producer` into that of `consumer` unless that
  /// creates a cycle.
  void tryMerge(Operation *producer, Operation *consumer) {
    if (classes.isEquivalent(producer, consumer))
      return;
    // A path leaving one region and entering the other, either way, would
    // make the merged region depend on itself.
    if (reachesThroughOutside(producer, consumer) ||
        reachesThroughOutside(consumer, producer))
      return;
    classes.unionSets(producer, consumer);
  }

  /// The regions, each in block order, in the order of their first op.
  SmallVector<SmallVector<Operation *>> regions() const {
    SmallVector<SmallVector<Operation *>> result;
    DenseMap<Operation *, unsigned> index;
    for (Operation *op : ops) {
      Operation *leader = classes.getLeaderValue(op);
      auto [it, inserted] = index.try_emplace(leader, result.size());
      if (inserted)
        result.emplace_back();
      result[it->second].push_back(op);
    }
    return result;
  }

private:
  bool inRegionOf(Operation *op, Operation *member) const {
    return classes.contains(op) && classes.isEquivalent(op, member);
  }

  /// Whether some op outside both regions depends on `a`'s region and
  /// feeds `b`'s region.
  bool reachesThroughOutside(Operation *a, Operation *b) const {
    // Walk backwards from b's region, through ops outside both regions,
    // looking for a's region.
    SmallVector<Operation *> work;
    llvm::DenseSet<Operation *> seen;
    auto pushOperands = [&](Operation *op, bool fromOutside) {
      for (Value v : usedValues(op)) {
        Operation *def = definingOpIn(v, op->getBlock());
        if (!def)
          continue;
        if (inRegionOf(def, a)) {
          if (fromOutside)
            return true;
          continue;
        }
        if (inRegionOf(def, b))
          continue;
        if (seen.insert(def).second)
          work.push_back(def);
      }
      return false;
    };
    for (Operation *member : ops)
      if (inRegionOf(member, b) && pushOperands(member, false))
        return true;
    Operation *first = nullptr;
    for (Operation *member : ops)
      if (inRegionOf(member, a) && (!first || member->isBeforeInBlock(first)))
        first = member;
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      if (op->isBeforeInBlock(first) && !classes.contains(op))
        continue; // cannot depend on a's region
      // A third region becomes one host call: a path into any of its ops
      // continues from all of them.
      for (Operation *member : membersOf(op)) {
        if (member != op && !seen.insert(member).second)
          continue;
        if (pushOperands(member, true))
          return true;
      }
    }
    return false;
  }

  /// `op` alone, or every op of its region.
  SmallVector<Operation *> membersOf(Operation *op) const {
    if (!classes.contains(op))
      return {op};
    auto members = classes.members(op);
    return SmallVector<Operation *>(members.begin(), members.end());
  }

  const llvm::SetVector<Operation *> &ops;
  llvm::EquivalenceClasses<Operation *> classes;
};
} // namespace

/// Whether `v` can cross into or out of a host_call.
static bool canCross(Value v) { return isa<RankedTensorType>(v.getType()); }

/// Outlines one region (ops in block order); fails without changing the IR
/// when a value that would cross is not a ranked tensor.
static FailureOr<HostCallOp> outlineRegion(ArrayRef<Operation *> region,
                                           StringRef reason) {
  llvm::SetVector<Operation *> members(region.begin(), region.end());
  llvm::SetVector<Value> inputs;
  llvm::SetVector<Operation *> constants;
  for (Operation *op : region) {
    for (Value v : usedValues(op)) {
      Operation *def = v.getDefiningOp();
      if (def && members.contains(def))
        continue;
      if (def && def->hasTrait<OpTrait::ConstantLike>()) {
        constants.insert(def);
        continue;
      }
      if (!canCross(v))
        return failure();
      inputs.insert(v);
    }
  }
  SmallVector<Value> outputs;
  for (Operation *op : region)
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(), [&](Operation *user) {
            // A use in a member's body (a linalg region) is inside.
            return !members.contains(
                op->getBlock()->findAncestorOpInBlock(*user));
          })) {
        if (!canCross(r))
          return failure();
        outputs.push_back(r);
      }

  // Ops between the region's first and last op that use its results must
  // follow the host call; they do not feed the region (no cycle), so
  // moving them keeps the meaning.
  Operation *last = region.back();
  SmallVector<Operation *> toMove;
  llvm::DenseSet<Operation *> dependent(members.begin(), members.end());
  for (Operation *op = region.front(); op != last; op = op->getNextNode()) {
    if (members.contains(op))
      continue;
    bool uses = llvm::any_of(usedValues(op), [&](Value v) {
      Operation *def = definingOpIn(v, op->getBlock());
      return def && dependent.contains(def);
    });
    if (uses) {
      dependent.insert(op);
      toMove.push_back(op);
    }
  }

  OpBuilder b(last->getContext());
  b.setInsertionPointAfter(last);
  SmallVector<Type> resultTypes;
  for (Value v : outputs)
    resultTypes.push_back(v.getType());
  auto call = HostCallOp::create(b, region.front()->getLoc(), resultTypes,
                                 inputs.getArrayRef(), b.getStringAttr(reason));
  Block *body = b.createBlock(&call.getBody());
  IRMapping mapping;
  for (Value v : inputs)
    mapping.map(v, body->addArgument(v.getType(), v.getLoc()));
  for (Operation *c : constants)
    b.clone(*c, mapping);
  for (Operation *op : region)
    b.clone(*op, mapping);
  SmallVector<Value> yielded;
  for (Value v : outputs)
    yielded.push_back(mapping.lookup(v));
  YieldOp::create(b, call.getLoc(), yielded);

  for (auto [old, result] : llvm::zip(outputs, call.getResults()))
    old.replaceAllUsesWith(result);
  Operation *anchor = call;
  for (Operation *op : toMove) {
    op->moveAfter(anchor);
    anchor = op;
  }
  for (Operation *op : llvm::reverse(region))
    op->erase();
  return call;
}

/// Gives each op that uses a scalar made by an unsupported op (an LLM's
/// position, read with tensor.extract) its own copy of the producer, when
/// the producer is pure and reads only values that can cross: a host region
/// then computes the scalar itself instead of receiving it, which it could
/// not (a host_call passes tensors). Returns the ops with the copies.
static llvm::SetVector<Operation *>
copyScalarProducers(const llvm::SetVector<Operation *> &unsupported) {
  llvm::SetVector<Operation *> ops = unsupported;
  for (Operation *op : unsupported) {
    if (op->getNumRegions() != 0 || !isMemoryEffectFree(op) ||
        llvm::all_of(op->getResults(), canCross) ||
        !llvm::all_of(op->getOperands(), [](Value v) {
          Operation *def = v.getDefiningOp();
          return canCross(v) || (def && def->hasTrait<OpTrait::ConstantLike>());
        }))
      continue;
    // The top-level users, in block order; the first keeps the original.
    llvm::SetVector<Operation *> users;
    for (Value r : op->getResults())
      for (Operation *user : r.getUsers())
        if (Operation *top = op->getBlock()->findAncestorOpInBlock(*user))
          users.insert(top);
    SmallVector<Operation *> sorted(users.begin(), users.end());
    llvm::sort(sorted, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    for (Operation *user : llvm::drop_begin(sorted)) {
      OpBuilder b(user);
      Operation *copy = b.clone(*op);
      for (auto [from, to] : llvm::zip(op->getResults(), copy->getResults()))
        from.replaceUsesWithIf(to, [&](OpOperand &use) {
          return user->isAncestor(use.getOwner());
        });
      ops.insert(copy);
    }
  }
  return ops;
}

SmallVector<HostCallOp> mlir::neuron::outlineToHost(
    const llvm::SetVector<Operation *> &requested,
    llvm::function_ref<std::string(ArrayRef<Operation *>)> reasonOf) {
  llvm::SetVector<Operation *> unsupported = copyScalarProducers(requested);
  RegionBuilder builder(unsupported);
  for (Operation *op : unsupported)
    for (Value v : usedValues(op))
      if (Operation *def = definingOpIn(v, op->getBlock());
          def && unsupported.contains(def))
        builder.tryMerge(def, op);
  SmallVector<HostCallOp> calls;
  for (SmallVector<Operation *> &region : builder.regions()) {
    // Outlining an earlier region moves ops: take the order as it is now.
    llvm::sort(region, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    if (FailureOr<HostCallOp> call = outlineRegion(region, reasonOf(region));
        succeeded(call))
      calls.push_back(*call);
  }
  return calls;
}
