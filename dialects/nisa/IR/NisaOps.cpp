//===- NisaOps.cpp - nisa instruction verifiers ---------------------------===//
//
// Memory spaces, shapes and element types of every instruction, and the
// target's tile limits when the enclosing function declares them.
//
//===----------------------------------------------------------------------===//

#include "dialects/nisa/IR/NisaOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::nisa;

static std::string spaceList(ArrayRef<MemorySpace> spaces) {
  return llvm::join(llvm::map_range(spaces,
                                    [](MemorySpace s) {
                                      return stringifyMemorySpace(s).str();
                                    }),
                    " or ");
}

/// Checks that `tile` lives in one of `allowed` and, on chip, has a static
/// shape whose partitions and bytes per partition fit the limits.
static LogicalResult verifyTile(Operation *op, StringRef name, Value tile,
                                ArrayRef<MemorySpace> allowed) {
  auto type = cast<MemRefType>(tile.getType());
  std::optional<MemorySpace> space = getMemorySpace(type);
  if (!space)
    return op->emitOpError() << "expected " << name
                             << " in a nisa memory space (#nisa.memory<...>), "
                                "found "
                             << type;
  if (!llvm::is_contained(allowed, *space))
    return op->emitOpError()
           << "expected " << name << " in " << spaceList(allowed)
           << ", found " << stringifyMemorySpace(*space);
  if (*space == MemorySpace::hbm)
    return success();
  if (!type.hasStaticShape())
    return op->emitOpError() << "expected " << name
                             << " on chip to have a static shape, found "
                             << type;
  LimitsAttr limits = getLimits(op);
  if (!limits)
    return success();
  int64_t partitions = type.getDimSize(0);
  if (partitions > limits.getPartitions())
    return op->emitOpError()
           << "expected " << name << " to span at most "
           << limits.getPartitions() << " partitions, found " << partitions;
  int64_t bytes = type.getNumElements() / std::max<int64_t>(partitions, 1) *
                  ((type.getElementTypeBitWidth() + 7) / 8);
  int64_t capacity = *space == MemorySpace::sbuf ? limits.getSbufBytes()
                                                  : limits.getPsumBytes();
  if (bytes > capacity)
    return op->emitOpError()
           << "expected " << name << " to hold at most " << capacity
           << " bytes per partition in " << stringifyMemorySpace(*space)
           << ", found " << bytes;
  return success();
}

static constexpr MemorySpace kSbuf[] = {MemorySpace::sbuf};
static constexpr MemorySpace kPsum[] = {MemorySpace::psum};
static constexpr MemorySpace kOnChip[] = {MemorySpace::sbuf,
                                          MemorySpace::psum};

/// Checks that every tile has `first`'s shape.
static LogicalResult verifySameShape(Operation *op, ArrayRef<Value> tiles) {
  auto first = cast<MemRefType>(tiles.front().getType());
  for (Value tile : tiles.drop_front()) {
    auto type = cast<MemRefType>(tile.getType());
    if (type.getShape() != first.getShape())
      return op->emitOpError() << "expected tiles of one shape, found "
                               << first << " and " << type;
  }
  return success();
}

void mlir::nisa::addTileEffects(
    EngineOpInterface op,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  SmallVector<Value> reads = op.getReadTiles();
  Value written = op.getWrittenTile();
  for (OpOperand &operand : op->getOpOperands()) {
    if (llvm::is_contained(reads, operand.get()))
      effects.emplace_back(MemoryEffects::Read::get(), &operand);
    if (operand.get() == written)
      effects.emplace_back(MemoryEffects::Write::get(), &operand);
  }
}

LogicalResult MatmulOp::verify() {
  if (failed(verifyTile(*this, "the stationary operand", getStationary(),
                        kSbuf)) ||
      failed(verifyTile(*this, "the moving operand", getMoving(), kSbuf)) ||
      failed(verifyTile(*this, "the result", getDst(), kPsum)))
    return failure();
  auto s = getStationary().getType(), m = getMoving().getType(),
       d = getDst().getType();
  if (d.getRank() != 2)
    return emitOpError() << "expected a rank-2 result tile";
  if (s.getElementType() != m.getElementType())
    return emitOpError() << "expected operands of one element type, found "
                         << s.getElementType() << " and " << m.getElementType();
  // The moving operand's columns: its free elements in row-major order, or
  // in the double-row mode one row's.
  int64_t columns;
  if (getDoubleRow()) {
    if (!isa<Float8E4M3FNType, Float8E5M2Type>(s.getElementType()))
      return emitOpError() << "expected fp8 operands in the double-row mode, "
                              "found "
                           << s.getElementType();
    if (s.getRank() != 3 || m.getRank() != 3 || s.getDimSize(1) != 2 ||
        m.getDimSize(1) != 2)
      return emitOpError() << "expected a stationary [K, 2, M] and a moving "
                              "[K, 2, N] in the double-row mode, found "
                           << s << " and " << m;
    columns = m.getDimSize(2);
  } else {
    if (s.getRank() != 2)
      return emitOpError() << "expected a rank-2 stationary tile";
    if (m.getRank() != 2 && m.getRank() != 3)
      return emitOpError() << "expected a moving operand [K, N] or [K, rows, "
                              "columns], found rank "
                           << m.getRank();
    columns = m.getNumElements() / std::max<int64_t>(m.getDimSize(0), 1);
  }
  int64_t stationaryColumns = s.getDimSize(s.getRank() - 1);
  if (!d.getElementType().isF32())
    return emitOpError() << "expected an f32 result (PSUM accumulates in "
                            "fp32), found "
                         << d.getElementType();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (d.getDimSize(1) > 1 &&
      (failed(d.getStridesAndOffset(strides, offset)) || strides[1] != 1))
    return emitOpError() << "expected a result whose rows are contiguous "
                            "(the sums fill whole rows of a PSUM bank), found "
                         << d;
  if (s.getDimSize(0) != m.getDimSize(0))
    return emitOpError() << "expected the operands to share the contracted "
                            "partition dimension, found "
                         << s.getDimSize(0) << " and " << m.getDimSize(0);
  if (d.getDimSize(0) != stationaryColumns || d.getDimSize(1) != columns)
    return emitOpError() << "expected a " << stationaryColumns << "x" << columns
                         << " result, found "
                         << d.getDimSize(0) << "x" << d.getDimSize(1);
  if (!getRestart().empty() && !getAccumulate())
    return emitOpError() << "expected 'accumulate' with 'restart' (the sum "
                            "restarts where it would accumulate)";
  LimitsAttr limits = getLimits(*this);
  if (!limits)
    return success();
  if (getDoubleRow() && limits.getFp8Rows() < 2)
    return emitOpError() << "expected a target with the double-row mode "
                            "(fp8_rows = 2), found fp8_rows = "
                         << limits.getFp8Rows();
  if (stationaryColumns > limits.getStationaryFree())
    return emitOpError() << "expected a stationary free size of at most "
                         << limits.getStationaryFree() << ", found "
                         << stationaryColumns;
  if (columns > limits.getMovingFree())
    return emitOpError() << "expected a moving free size of at most "
                         << limits.getMovingFree() << ", found " << columns;
  if (d.getDimSize(1) * 4 > limits.getPsumBankBytes())
    return emitOpError() << "expected the result to fit one PSUM bank ("
                         << limits.getPsumBankBytes()
                         << " bytes per partition), found "
                         << d.getDimSize(1) * 4;
  return success();
}

LogicalResult TransposeOp::verify() {
  if (failed(verifyTile(*this, "the source", getSrc(), kSbuf)) ||
      failed(verifyTile(*this, "the result", getDst(), kPsum)))
    return failure();
  auto s = getSrc().getType(), d = getDst().getType();
  if (s.getRank() != 2 || d.getRank() != 2 ||
      s.getDimSize(0) != d.getDimSize(1) || s.getDimSize(1) != d.getDimSize(0))
    return emitOpError() << "expected the result to be the source "
                            "transposed, found "
                         << s << " and " << d;
  return success();
}

/// Checks that `column` is a [P, 1] tile of `src`'s partitions in SBUF.
static LogicalResult verifyPerPartition(Operation *op, StringRef name,
                                        Value column, Value src) {
  if (failed(verifyTile(op, name, column, kSbuf)))
    return failure();
  auto c = cast<MemRefType>(column.getType());
  int64_t p = cast<MemRefType>(src.getType()).getDimSize(0);
  if (c.getRank() != 2 || c.getDimSize(0) != p || c.getDimSize(1) != 1)
    return op->emitOpError() << "expected " << name << " of shape " << p
                             << "x1 (one value per partition), found " << c;
  return success();
}

LogicalResult ActivationOp::verify() {
  if (failed(verifyTile(*this, "the source", getSrc(), kOnChip)) ||
      failed(verifyTile(*this, "the result", getDst(), kSbuf)) ||
      failed(verifySameShape(*this, {getSrc(), getDst()})))
    return failure();
  if (Value bias = getBias();
      bias && failed(verifyPerPartition(*this, "the bias", bias, getSrc())))
    return failure();
  if (Value scales = getScales())
    return verifyPerPartition(*this, "the scales", scales, getSrc());
  return success();
}

LogicalResult TensorTensorOp::verify() {
  if (failed(verifyTile(*this, "the left operand", getLhs(), kOnChip)) ||
      failed(verifyTile(*this, "the right operand", getRhs(), kOnChip)) ||
      failed(verifyTile(*this, "the result", getDst(), kOnChip)))
    return failure();
  return verifySameShape(*this, {getLhs(), getRhs(), getDst()});
}

/// The scalar operand of tensor_scalar and scalar_tensor_tensor: an
/// immediate or a per-partition tile of `src`'s partitions, not both.
template <typename Op>
static LogicalResult verifyScalarOperand(Op op) {
  if (bool(op.getScalar()) == bool(op.getScalars()))
    return op.emitOpError() << "expected either an immediate 'scalar' or a "
                               "per-partition 'scalars' tile, found "
                            << (op.getScalar() ? "both" : "neither");
  if (Value scalars = op.getScalars())
    return verifyPerPartition(op, "the scalars", scalars, op.getSrc());
  return success();
}

LogicalResult TensorScalarOp::verify() {
  if (failed(verifyTile(*this, "the source", getSrc(), kOnChip)) ||
      failed(verifyTile(*this, "the result", getDst(), kOnChip)) ||
      failed(verifySameShape(*this, {getSrc(), getDst()})))
    return failure();
  return verifyScalarOperand(*this);
}

LogicalResult ScalarTensorTensorOp::verify() {
  if (failed(verifyTile(*this, "the source", getSrc(), kOnChip)) ||
      failed(verifyTile(*this, "the tensor operand", getRhs(), kOnChip)) ||
      failed(verifyTile(*this, "the result", getDst(), kOnChip)) ||
      failed(verifySameShape(*this, {getSrc(), getRhs(), getDst()})))
    return failure();
  return verifyScalarOperand(*this);
}

LogicalResult SelectOp::verify() {
  if (failed(verifyTile(*this, "the predicate", getPredicate(), kOnChip)) ||
      failed(verifyTile(*this, "the true operand", getOnTrue(), kOnChip)) ||
      failed(verifyTile(*this, "the false operand", getOnFalse(), kOnChip)) ||
      failed(verifyTile(*this, "the result", getDst(), kOnChip)) ||
      failed(verifySameShape(
          *this, {getPredicate(), getOnTrue(), getOnFalse(), getDst()})))
    return failure();
  Type t = getOnTrue().getType().getElementType(),
       f = getOnFalse().getType().getElementType(),
       d = getDst().getType().getElementType();
  if (t != f || t != d)
    return emitOpError() << "expected the operands and the result in one "
                            "element type, found "
                         << t << ", " << f << " and " << d;
  return success();
}

LogicalResult TensorReduceOp::verify() {
  if (failed(verifyTile(*this, "the source", getSrc(), kOnChip)) ||
      failed(verifyTile(*this, "the result", getDst(), kOnChip)))
    return failure();
  // One value per partition: [P, 1], or [P, 1, ..., 1] (an element of a
  // tile of more free dimensions).
  auto s = getSrc().getType(), d = getDst().getType();
  if (d.getRank() < 2 || d.getDimSize(0) != s.getDimSize(0) ||
      d.getNumElements() != d.getDimSize(0))
    return emitOpError() << "expected a " << s.getDimSize(0)
                         << "x1 result (one value per partition), found " << d;
  return success();
}

LogicalResult MemsetOp::verify() {
  return verifyTile(*this, "the result", getDst(), kOnChip);
}

LogicalResult IotaOp::verify() {
  if (failed(verifyTile(*this, "the result", getDst(), kOnChip)))
    return failure();
  if (!getDst().getType().getElementType().isInteger(32))
    return emitOpError() << "expected an i32 result, found "
                         << getDst().getType().getElementType();
  return success();
}

LogicalResult GatherOp::verify() {
  static constexpr MemorySpace kHbm[] = {MemorySpace::hbm};
  if (failed(verifyTile(*this, "the table", getTable(), kHbm)) ||
      failed(verifyTile(*this, "the indices", getIndices(), kSbuf)) ||
      failed(verifyTile(*this, "the result", getDst(), kSbuf)))
    return failure();
  auto t = getTable().getType(), i = getIndices().getType(),
       d = getDst().getType();
  if (t.getRank() != 2 || !t.hasStaticShape())
    return emitOpError() << "expected a static [rows, columns] table, found "
                         << t;
  if (i.getRank() != 2 || i.getDimSize(1) != 1 ||
      !i.getElementType().isInteger(32))
    return emitOpError() << "expected [P, 1] i32 indices (one row index per "
                            "partition), found "
                         << i;
  if (d.getRank() != 2 || d.getDimSize(0) != i.getDimSize(0) ||
      d.getDimSize(1) != t.getDimSize(1))
    return emitOpError() << "expected a " << i.getDimSize(0) << "x"
                         << t.getDimSize(1)
                         << " result (a row of the table per index), found "
                         << d;
  if (d.getElementType() != t.getElementType())
    return emitOpError() << "expected the result in the table's element type "
                         << t.getElementType() << ", found "
                         << d.getElementType();
  return success();
}

LogicalResult DmaCopyOp::verify() {
  static constexpr MemorySpace any[] = {MemorySpace::hbm, MemorySpace::sbuf,
                                        MemorySpace::psum};
  if (failed(verifyTile(*this, "the source", getSrc(), any)) ||
      failed(verifyTile(*this, "the destination", getDst(), any)))
    return failure();
  auto s = getSrc().getType(), d = getDst().getType();
  if (s.getElementType() != d.getElementType())
    return emitOpError() << "expected one element type, found "
                         << s.getElementType() << " and " << d.getElementType();
  if (s.hasStaticShape() && d.hasStaticShape() &&
      s.getNumElements() != d.getNumElements())
    return emitOpError() << "expected the same number of elements, found "
                         << s.getNumElements() << " and " << d.getNumElements();
  return verifyDynamicStart();
}

Value DmaCopyOp::getMovedSide() {
  if (!getOffset())
    return {};
  return getSrcDim() ? getSrc() : getDst();
}

/// `offset` with `limit` and one of `src_dim` and `dst_dim`: a one-element
/// i32 SBUF tile moving the start of that HBM side along that dimension.
LogicalResult DmaCopyOp::verifyDynamicStart() {
  bool dims = getSrcDim() || getDstDim();
  if (!getOffset())
    return dims || getLimit()
               ? emitOpError() << "expected 'limit', 'src_dim' and "
                                  "'dst_dim' only with an 'offset' tile"
               : success();
  if (failed(verifyTile(*this, "the offset", getOffset(), kSbuf)))
    return failure();
  auto offset = cast<MemRefType>(getOffset().getType());
  if (offset.getNumElements() != 1 || !offset.getElementType().isInteger(32))
    return emitOpError() << "expected a one-element i32 offset tile, found "
                         << offset;
  if (!getLimit() || bool(getSrcDim()) == bool(getDstDim()))
    return emitOpError() << "expected a 'limit' and one of 'src_dim' and "
                            "'dst_dim' with an 'offset' tile";
  // As executables hold element offsets: below 2^40.
  constexpr int64_t kMaxLimit = int64_t(1) << 40;
  if (int64_t(*getLimit()) > kMaxLimit)
    return emitOpError() << "expected a limit of at most 2^40, found "
                         << *getLimit();
  auto moved = cast<MemRefType>(getMovedSide().getType());
  StringRef side = getSrcDim() ? "source" : "destination";
  if (getMemorySpace(moved) != MemorySpace::hbm)
    return emitOpError() << "expected the " << side
                         << " the offset moves in HBM";
  if (int64_t(*getMovedDim()) >= moved.getRank())
    return emitOpError() << "expected the moved dimension below the " << side
                         << "'s rank " << moved.getRank() << ", found "
                         << *getMovedDim();
  return success();
}

#define GET_OP_CLASSES
#include "dialects/nisa/IR/NisaOps.cpp.inc"
