//===- Matmul.cpp - matmul and batch_matmul -------------------------------===//
//
// result[M, N] = lhs[M, K] x rhs[K, N], per batch: K goes on partitions;
// each [M-tile, N-tile] of the result accumulates over the K tiles in one
// PSUM bank (the first K tile starts the sum) and is evacuated to SBUF by
// the scalar engine, converting to the result type and applying a fused
// epilogue's leading activation. One operand's K tiles stay resident in
// SBUF for a whole row (or column) of output tiles when they fit in a
// quarter of SBUF, choosing the one that moves fewer bytes from HBM.
//
//===----------------------------------------------------------------------===//

#include "lowering/NeuronToNisa/KernelLowering.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::neuron;

/// The index of dimension `d`'s tile at `at` (its loop's induction
/// variable, or a constant).
static OpFoldResult tileIndex(OpBuilder &b, const TilePosition &at, unsigned d,
                              int64_t tile) {
  if (at.ivs[d])
    return at.ivs[d];
  return b.getIndexAttr(*getConstantIntValue(at.offsets[d]) / tile);
}

LogicalResult mlir::neuron::lowerMatmul(OpBuilder &b, KernelLowering &k,
                                        Operation *op, Value a, Value bm,
                                        Value out, const Epilogue *epilogue,
                                        Operation *fusion) {
  Location loc = op->getLoc();
  Value lhs = op->getOperand(0), rhs = op->getOperand(1),
        result = op->getResult(0);
  bool batched = isa<BatchMatmulOp>(op);
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  auto resultType = cast<RankedTensorType>(result.getType());
  Type element = lhsType.getElementType();
  if (!isa<FloatType>(element))
    return op->emitError() << "convert-neuron-to-nisa: integer matmuls are "
                              "not tiled yet (fallback=decompose widens i8)";
  int64_t r = lhsType.getRank();
  int64_t batches = batched ? lhsType.getDimSize(0) : 1;
  int64_t m = lhsType.getDimSize(r - 2), kk = lhsType.getDimSize(r - 1),
          n = rhsType.getDimSize(r - 1);
  const nisa::LimitsAttr &limits = k.config.limits;
  int64_t tileK = k.partitions();
  int64_t tileM = limits.getStationaryFree();
  int64_t tileN =
      std::min(limits.getMovingFree(), limits.getPsumBankBytes() / 4);
  Operation *evacuatedBy = nullptr;
  if (epilogue && !out && result.hasOneUse() && !epilogue->ops.empty() &&
      *result.user_begin() == epilogue->ops.front() &&
      activationOf(epilogue->ops.front()) &&
      !isa<CastOp>(epilogue->ops.front()))
    evacuatedBy = epilogue->ops.front();

  // A rank-2 window of batch `bi` of a (possibly batched) buffer.
  auto matrix = [&](OpBuilder &b, Value buffer, OpFoldResult bi,
                    ArrayRef<OpFoldResult> offsets,
                    ArrayRef<int64_t> sizes) -> Value {
    if (!batched)
      return KernelLowering::view(b, loc, buffer, offsets, sizes);
    SmallVector<OpFoldResult> off{bi}, sz{b.getIndexAttr(1)},
        one(3, b.getIndexAttr(1));
    llvm::append_range(off, offsets);
    for (int64_t s : sizes)
      sz.push_back(b.getIndexAttr(s));
    MemRefType type = memref::SubViewOp::inferRankReducedResultType(
        sizes, cast<MemRefType>(buffer.getType()), off, sz, one);
    return memref::SubViewOp::create(b, loc, type, buffer, off, sz, one);
  };
  // The stationary tile lhs^T[K-tile, M-tile] and the moving tile
  // rhs[K-tile, N-tile], each loaded by one transfer.
  auto loadStationary = [&](OpBuilder &b, OpFoldResult bi, OpFoldResult m0,
                            int64_t mt, OpFoldResult k0, int64_t kt,
                            Value into) {
    AffineMapAttr swap = AffineMapAttr::get(AffineMap::getPermutationMap(
        ArrayRef<unsigned>{1, 0}, b.getContext()));
    Value lhsT = memref::TransposeOp::create(
        b, loc, matrix(b, a, bi, {m0, k0}, {mt, kt}), swap);
    k.dma(b, loc, lhsT, into);
  };
  auto loadMoving = [&](OpBuilder &b, OpFoldResult bi, OpFoldResult n0,
                        int64_t nt, OpFoldResult k0, int64_t kt, Value into) {
    k.dma(b, loc, matrix(b, bm, bi, {k0, n0}, {kt, nt}), into);
  };
  auto newTile = [&](OpBuilder &b, ArrayRef<int64_t> shape) {
    return k.tile(b, loc, nisa::MemorySpace::sbuf, shape, element);
  };
  // Tile `index` of a resident [tileK, K tiles, width] array: [kt, width].
  auto residentAt = [&](OpBuilder &b, Value resident, OpFoldResult index,
                        int64_t kt, int64_t width) -> Value {
    SmallVector<OpFoldResult> off{b.getIndexAttr(0), index, b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sz{b.getIndexAttr(kt), b.getIndexAttr(1),
                                 b.getIndexAttr(width)};
    SmallVector<OpFoldResult> one(3, b.getIndexAttr(1));
    MemRefType type = memref::SubViewOp::inferRankReducedResultType(
        {kt, width}, cast<MemRefType>(resident.getType()), off, sz, one);
    return memref::SubViewOp::create(b, loc, type, resident, off, sz, one);
  };

  Value firstAcc;
  // One [M-tile, N-tile] of the result: accumulate over K in PSUM, then the
  // scalar engine evacuates it, applying the epilogue's leading activation
  // on the way when nothing else reads the raw product.
  using Operand = function_ref<Value(OpBuilder &, const TilePosition &)>;
  auto outputTile = [&](OpBuilder &b, OpFoldResult bi, OpFoldResult m0,
                        int64_t mt, OpFoldResult n0, int64_t nt,
                        Operand stationaryAt, Operand movingAt) {
    Value acc =
        k.tile(b, loc, nisa::MemorySpace::psum, {mt, nt}, b.getF32Type());
    firstAcc = firstAcc ? firstAcc : acc;
    KernelLowering::forEachTile(
        b, loc, {{kk, tileK}}, [&](OpBuilder &b, const TilePosition &kp) {
          Value stationary = stationaryAt(b, kp);
          Value moving = movingAt(b, kp);
          KernelLowering::Accumulation how =
              KernelLowering::accumulation(kp, {0});
          nisa::MatmulOp::create(b, loc, stationary, moving, acc,
                                 how.accumulate, how.restart);
        });
    Value evacuated = k.tile(b, loc, nisa::MemorySpace::sbuf, {mt, nt},
                             resultType.getElementType());
    k.activation(b, loc, acc, evacuated,
                 evacuatedBy ? *activationOf(evacuatedBy)
                             : nisa::ActivationFunction::identity);
    if (out)
      k.dma(b, loc, evacuated, matrix(b, out, bi, {m0, n0}, {mt, nt}));
    if (epilogue) {
      DenseMap<Value, Value> tiles{
          {evacuatedBy ? evacuatedBy->getResult(0) : result, evacuated}};
      applyEpilogue(b, k, loc, *epilogue, tiles, {mt, nt}, [&](Value buffer) {
        return matrix(b, buffer, bi, {m0, n0}, {mt, nt});
      });
    }
  };

  // Residency: with rhs resident, rhs is read once and lhs once per column
  // of output tiles; with lhs resident, the other way round.
  int64_t elementBytes = (element.getIntOrFloatBitWidth() + 7) / 8;
  int64_t kTiles = llvm::divideCeil(kk, tileK);
  int64_t mTiles = llvm::divideCeil(m, tileM), nTiles = llvm::divideCeil(n, tileN);
  int64_t budget = limits.getSbufBytes() / 4;
  bool rhsFits = kTiles * tileN * elementBytes <= budget && mTiles > 1;
  bool lhsFits = kTiles * tileM * elementBytes <= budget && nTiles > 1;
  int64_t rhsResidentTraffic = kk * n + m * kk * nTiles;
  int64_t lhsResidentTraffic = m * kk + kk * n * mTiles;
  bool rhsResident =
      rhsFits && (!lhsFits || rhsResidentTraffic <= lhsResidentTraffic);
  bool lhsResident = !rhsResident && lhsFits;

  if (rhsResident || lhsResident) {
    // Outer: the resident operand's output columns (rows); inner: the
    // other's.
    int64_t outer = rhsResident ? n : m, outerTile = rhsResident ? tileN : tileM;
    int64_t inner = rhsResident ? m : n, innerTile = rhsResident ? tileM : tileN;
    KernelLowering::forEachTile(
        b, loc, {{batches, 1}, {outer, outerTile}},
        [&](OpBuilder &b, const TilePosition &at) {
          OpFoldResult bi = at.offsets[0], o0 = at.offsets[1];
          int64_t ot = at.sizes[1];
          Value resident = newTile(b, {tileK, kTiles, ot});
          KernelLowering::forEachTile(
              b, loc, {{kk, tileK}}, [&](OpBuilder &b, const TilePosition &kp) {
                int64_t kt = kp.sizes[0];
                Value slot = residentAt(b, resident, tileIndex(b, kp, 0, tileK),
                                        kt, ot);
                if (rhsResident)
                  loadMoving(b, bi, o0, ot, kp.offsets[0], kt, slot);
                else
                  loadStationary(b, bi, o0, ot, kp.offsets[0], kt, slot);
              });
          KernelLowering::forEachTile(
              b, loc, {{inner, innerTile}},
              [&](OpBuilder &b, const TilePosition &in) {
                OpFoldResult i0 = in.offsets[0];
                int64_t it = in.sizes[0];
                auto fromResident = [&](OpBuilder &b, const TilePosition &kp) {
                  return residentAt(b, resident, tileIndex(b, kp, 0, tileK),
                                    kp.sizes[0], ot);
                };
                auto streamed = [&](OpBuilder &b, const TilePosition &kp) {
                  Value t = newTile(b, {kp.sizes[0], it});
                  if (rhsResident)
                    loadStationary(b, bi, i0, it, kp.offsets[0], kp.sizes[0], t);
                  else
                    loadMoving(b, bi, i0, it, kp.offsets[0], kp.sizes[0], t);
                  return t;
                };
                if (rhsResident)
                  outputTile(b, bi, i0, it, o0, ot, streamed, fromResident);
                else
                  outputTile(b, bi, o0, ot, i0, it, fromResident, streamed);
              });
        });
  } else {
    KernelLowering::forEachTile(
        b, loc, {{batches, 1}, {m, tileM}, {n, tileN}},
        [&](OpBuilder &b, const TilePosition &at) {
          OpFoldResult bi = at.offsets[0], m0 = at.offsets[1],
                       n0 = at.offsets[2];
          int64_t mt = at.sizes[1], nt = at.sizes[2];
          outputTile(
              b, bi, m0, mt, n0, nt,
              [&](OpBuilder &b, const TilePosition &kp) {
                Value t = newTile(b, {kp.sizes[0], mt});
                loadStationary(b, bi, m0, mt, kp.offsets[0], kp.sizes[0], t);
                return t;
              },
              [&](OpBuilder &b, const TilePosition &kp) {
                Value t = newTile(b, {kp.sizes[0], nt});
                loadMoving(b, bi, n0, nt, kp.offsets[0], kp.sizes[0], t);
                return t;
              });
        });
  }
  k.markTiling(firstAcc, fusion ? fusion : op,
               epilogue ? "contraction+epilogue" : "contraction",
               {tileK, tileM, tileN});
  return success();
}

namespace {

template <typename Op>
struct MatmulToTiles : NisaPattern<Op> {
  using NisaPattern<Op>::NisaPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value out = this->k.resultBuffer(rewriter, op.getResult());
    if (failed(lowerMatmul(rewriter, this->k, op, adaptor.getLhs(),
                           adaptor.getRhs(), out, /*epilogue=*/nullptr,
                           /*fusion=*/nullptr)))
      return failure();
    rewriter.replaceOp(op, out);
    return success();
  }
};

} // namespace

void mlir::neuron::populateMatmulPatterns(RewritePatternSet &patterns,
                                          const TypeConverter &converter,
                                          KernelLowering &lowering) {
  patterns.add<MatmulToTiles<MatmulOp>, MatmulToTiles<BatchMatmulOp>>(
      converter, patterns.getContext(), lowering);
}
