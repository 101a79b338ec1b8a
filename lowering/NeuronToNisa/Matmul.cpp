//===- Matmul.cpp - matmul and batch_matmul -------------------------------===//
//
// result[M, N] = lhs[M, K] x rhs[K, N], per batch: K goes on partitions;
// each [M-tile, N-tile] of the result accumulates over the K tiles in one
// PSUM bank (the first K tile starts the sum) and is evacuated to SBUF by
// the scalar engine, converting to the result type and applying a fused
// epilogue's leading activation. A block of one operand's tiles (lhs: M
// tiles, rhs: N tiles) stays resident in SBUF for all of K while the other
// operand's tiles stream past it, each streamed K tile feeding the block's
// matmuls into one PSUM bank each; the side and block are ranked by an
// estimate of their time (matmulPlans), or chosen by scheduling the best
// few alone (MatmulTuning.cpp). Where all of a held rhs is one block (on
// one physical core), the first iteration streams two lhs row tiles if
// the block loads longer than one row tile's matmuls take, and the last
// row tile sums the block's N tiles one after another, each stored while
// the next is summed. An operand whose K is not on its rows in
// HBM (lhs, a transposed rhs) is transposed on its way on chip
// (KernelLowering::loadTransposed); lhs tiles the tensor engine transposes,
// resident or streamed, load several K tiles of their rows per transfer
// (KernelLowering::loadTransposedPanel); a held lhs block's transposes go
// with its first streamed transfer's matmuls, a PSUM chunk behind (row
// tile by row tile where the block fills a chunk and its K spans more
// than one panel), and its transfers share one set of accumulators,
// copied out of PSUM by the scalar and vector engines in turn. FP8
// matmuls in the double-row mode take two rows of K per partition: two K
// tiles apart, or, where the DMA transposes 2-byte elements, adjacent K
// elements, lhs's pairs moved as one by the DMA's transpose. A row of a
// block's output tiles with no epilogue is evacuated side by side into
// one tile and stored in one transfer.
//
//===----------------------------------------------------------------------===//

#include "lowering/NeuronToNisa/KernelLowering.h"

#include "passes/KernelGraph.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::neuron;

/// The strides of the last two dimensions of the (batched) matrix `buffer`.
static std::pair<int64_t, int64_t> matrixStrides(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(stridesAndOffset(type, strides, offset)))
    return {type.getDimSize(type.getRank() - 1), 1};
  return {strides[strides.size() - 2], strides.back()};
}

/// Whether rhs is stored N-major (a transposed view): K runs along its
/// columns, so its tiles load transposed.
static bool rhsTransposed(Value rhs) {
  auto [rows, cols] = matrixStrides(rhs);
  return rows == 1 && cols != 1;
}

/// The type of a [rows, cols] window of the (batched) matrix `buffer`, or,
/// `transposed`, of its transpose.
static MemRefType windowType(Value buffer, int64_t rows, int64_t cols,
                             bool transposed) {
  auto [r, c] = matrixStrides(buffer);
  if (transposed)
    std::swap(r, c);
  auto type = cast<MemRefType>(buffer.getType());
  return MemRefType::get(
      {rows, cols}, type.getElementType(),
      StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic, {r, c}),
      type.getMemorySpace());
}

/// The PSUM banks a matmul's sums may take: all but one kept for the
/// transposes of its operands when the tensor engine transposes any.
static int64_t accumulatorBanks(nisa::LimitsAttr limits,
                                MatmulTransposes transposes) {
  return limits.getPsumBytes() / limits.getPsumBankBytes() -
         (transposes.lhs || transposes.rhs ? 1 : 0);
}

/// How many N tiles of `tileN` columns a streamed rhs transfer takes for
/// a block of `parts` resident lhs tiles: as many as make its rows as long
/// as a transfer needs for peak DMA bandwidth, where the PSUM banks hold
/// two sets of their sums.
static int64_t movingSpread(int64_t n, int64_t tileN, int64_t elementBytes,
                            int64_t dmaPeakBytes, int64_t banks,
                            int64_t parts) {
  int64_t needed = std::min<int64_t>(
      llvm::divideCeil(dmaPeakBytes, tileN * elementBytes),
      llvm::divideCeil(n, tileN));
  return std::clamp<int64_t>(needed, 1,
                             std::max<int64_t>(banks / (2 * parts), 1));
}

/// The K tile height in [partitions / 2, partitions] that covers `k`
/// with the fewest matmuls when pairs of full tiles take one (double-row)
/// and the tiles past the last pair one each; the tallest among equals.
static int64_t pairedTileRows(int64_t k, int64_t partitions) {
  auto matmuls = [&](int64_t rows) {
    return k / (2 * rows) + llvm::divideCeil(k % (2 * rows), rows);
  };
  int64_t best = partitions;
  for (int64_t rows = partitions - 1; rows >= partitions / 2; --rows)
    if (matmuls(rows) < matmuls(best))
      best = rows;
  return best;
}

/// The share of a plan's tensor-engine work the busiest of `cores`
/// physical cores takes as nisa-split-cores shares it out: a loop over
/// `batches` by batches; else a loop of two or more full blocks of `block`
/// of the held operand's `tiles` by blocks, and a block apart from such a
/// loop (the one full block, the partial last) by its transfers of
/// `spread` of the streamed operand's `inner` tiles; both streamed
/// (`block` 0), by `tiles` (M tiles). Each unit, largest first, goes to the
/// least busy core.
static double busiestShare(int64_t cores, int64_t batches, int64_t tiles,
                           int64_t block, int64_t inner, int64_t spread) {
  SmallVector<int64_t> units;
  auto transfers = [&](int64_t width) {
    for (int64_t t = 0; t < inner; t += spread)
      units.push_back(width * std::min(spread, inner - t));
  };
  if (batches > 1) {
    units.assign(batches, 1);
  } else if (block == 0) {
    units.assign(tiles, inner);
  } else {
    int64_t full = tiles / block;
    if (full >= 2)
      units.append(full, block * inner);
    else if (full == 1)
      transfers(block);
    if (tiles % block)
      transfers(tiles % block);
  }
  llvm::sort(units, std::greater<>());
  SmallVector<int64_t> load(cores, 0);
  for (int64_t unit : units)
    *llvm::min_element(load) += unit;
  return double(*llvm::max_element(load)) /
         double(std::accumulate(units.begin(), units.end(), int64_t(0)));
}

/// The share of its tensor-engine time the first plan of separate sums
/// must spend on transfers for a block only shared sums fit to be a plan
/// (matmulPlans).
static constexpr double kSharedSumsLoad = 0.5;

/// How close a plan's estimate must be to the shortest for the two to be
/// ranked by the bytes they read instead: about the estimate's accuracy.
static constexpr double kEstimateTolerance = 0.1;

/// Over several physical cores: how close a plan's estimate must be to the
/// first's to go first for sharing its work out more evenly, and the
/// busiest core's share, times the cores, from which the first's counts
/// as uneven (2 and 1 of three transfers: 1.33).
static constexpr double kCoresTolerance = 0.02;
static constexpr double kUnevenShare = 1.3;

SmallVector<MatmulPlan>
mlir::neuron::matmulPlans(int64_t m, int64_t k, int64_t n, int64_t batches,
                          int64_t elementBytes, int64_t finishBytes,
                          int64_t lhsPanel, MatmulTransposes transposes,
                          bool sharedSums, const MatmulCosts &costs,
                          nisa::LimitsAttr limits, std::optional<bool> early) {
  int64_t tileK = limits.getPartitions(), tileM = limits.getStationaryFree();
  int64_t tileN =
      std::min(limits.getMovingFree(), limits.getPsumBankBytes() / 4);
  int64_t kTiles = llvm::divideCeil(k, tileK);
  int64_t mTiles = llvm::divideCeil(m, tileM), nTiles = llvm::divideCeil(n, tileN);
  // A plan reading lhs `lhsReads` times and rhs `rhsReads` times. Its
  // time is the longer of its HBM traffic (those reads and the result's
  // writes) and its tensor-engine work: the
  // matmuls, and a transpose per transposed tile it loads; a streamed
  // operand's transposes also wait for their copies out of PSUM, which the
  // matmuls then wait for, once per panel of lhs tiles loaded together
  // (the copies of the rest run during the panel's transposes).
  SmallVector<MatmulPlan> plans;
  int64_t banks = accumulatorBanks(limits, transposes);
  // Per plan: its transfers' share of its tensor-engine time, and whether
  // its block fits PSUM only with its transfers' sums shared.
  SmallVector<std::pair<double, bool>> loads;
  auto add = [&](bool rhsResident, int64_t block, int64_t lhsReads,
                 int64_t rhsReads, bool sharedOnly = false) {
    int64_t lhs = m * k * lhsReads * elementBytes,
            rhs = k * n * rhsReads * elementBytes;
    double tensor = costs.matmulNs;
    auto transposing = [&](bool transposed, bool streamed, int64_t tiles,
                           int64_t reads, int64_t panel) {
      if (transposed)
        tensor += double(tiles * kTiles * reads * batches) *
                  (costs.transposeNs +
                   (streamed ? costs.copyNs / double(panel) : 0));
    };
    transposing(transposes.lhs, block == 0 || rhsResident, mTiles, lhsReads,
                block > 0 ? std::max<int64_t>(lhsPanel, 1) : 1);
    transposing(transposes.rhs, block == 0 || !rhsResident, nTiles, rhsReads,
                1);
    double hbm =
        double((lhs + rhs) * batches) / costs.hbmBytesPerNs + costs.storeNs;
    // The DMA engines' time: rhs moves in rows as wide as a resident
    // block, or as the streamed transfers spread over.
    double dma = 0;
    if (costs.rhsDmaNsPerByte) {
      int64_t columns =
          block == 0    ? tileN
          : rhsResident ? block * tileN
                        : movingSpread(n, tileN, elementBytes,
                                       costs.dmaPeakBytes, banks, block) *
                              tileN;
      dma = double(lhs * batches) * costs.lhsDmaNsPerByte +
            double(rhs * batches) *
                costs.rhsDmaNsPerByte(std::min(columns, n)) +
            costs.storeDmaNs;
    }
    // Over several physical cores, the busiest one's share of the tensor
    // engine's work (ranking plans the estimate cannot tell apart).
    double share = 1;
    if (costs.physicalCores > 1)
      share = block == 0
                  ? busiestShare(costs.physicalCores, batches, mTiles, 0,
                                 nTiles, 1)
                  : busiestShare(
                        costs.physicalCores, batches,
                        rhsResident ? nTiles : mTiles, block,
                        rhsResident ? mTiles : nTiles,
                        rhsResident ? 1
                                    : movingSpread(n, tileN, elementBytes,
                                                   costs.dmaPeakBytes, banks,
                                                   block));
    plans.push_back({rhsResident, block, lhs + rhs,
                     std::max({hbm, dma, tensor}),
                     std::max(hbm, dma) > tensor, share});
    loads.push_back({std::max(hbm, dma) / tensor, sharedOnly});
  };
  // Both streaming: lhs read once per N tile, rhs once per M tile.
  add(false, 0, nTiles, mTiles);
  // A block takes at most a third of SBUF per partition, so the next block
  // can load into a second slot beside it. With the tiles finishing its
  // outputs (one set per output tile, all live in the loop nest) and two
  // slots of the streamed tile it must fit in SBUF at all (the allocator
  // gives rotating tiles fewer slots as needed). Its sums take one PSUM bank
  // per tile, and the allocator holds every accumulator of a loop nest at
  // once: the full inner tiles' and the partial last one's (if any; not
  // where the block's transfers share their sums). The partial last block
  // is a nest of its own, over batches too (lowerMatmul).
  int64_t budget = limits.getSbufBytes() / 3;
  int64_t streamedBytes = std::max(tileM, tileN) * elementBytes;
  // Per partition, a panel of lhs rows loaded at once, and (streamed) its
  // transposed tiles.
  int64_t panelBytes = lhsPanel * tileK * elementBytes;
  for (bool rhsResident : {false, true}) {
    int64_t width = rhsResident ? tileN : tileM;
    int64_t tiles = rhsResident ? nTiles : mTiles;
    // Held for one streamed tile only, a block saves nothing and loads
    // all of K before the first matmul, which pays only when the streamed
    // operand is computed meanwhile.
    if ((rhsResident ? mTiles : nTiles) < 2 && early != rhsResident)
      continue;
    bool innerPartial = rhsResident ? m % tileM : n % tileN;
    for (int64_t block = 1; block <= tiles; ++block) {
      int64_t variants = innerPartial ? 2 : 1;
      int64_t sets = !rhsResident && sharedSums ? 1 : variants;
      if (block * sets > banks)
        continue;
      bool sharedOnly = block * variants > banks;
      int64_t resident = kTiles * block * width * elementBytes;
      int64_t staging = rhsResident ? 2 * 2 * panelBytes : block * panelBytes;
      if (resident > budget ||
          resident + staging + variants * block * finishBytes +
                  2 * streamedBytes >
              limits.getSbufBytes())
        break;
      // The streamed operand is read once per block of the resident one.
      int64_t blocks = llvm::divideCeil(tiles, block);
      if (rhsResident)
        add(true, block, blocks, 1);
      else
        add(false, block, 1, blocks, sharedOnly);
    }
  }
  // A block only shared sums fit reads the streamed operand fewer times,
  // which pays where transfers take much of the tensor engine's time and K
  // spans at least two panels of lhs loads. Else it only lengthens what
  // the estimate leaves out: the kernel's start (the first block's tiles
  // load their first panels while the other streams share the DMA
  // engines) and the partial last block apart from the block loop; on the
  // shapes measured such blocks lose there, so they are no plans.
  // The shortest of the others, the fewest bytes among equals (the
  // ranking below breaks ties further and reorders close estimates; this
  // rule does not).
  std::optional<size_t> separate;
  for (size_t i = 0; i < plans.size(); ++i)
    if (!loads[i].second &&
        (!separate || std::make_pair(plans[i].ns, plans[i].trafficBytes) <
                          std::make_pair(plans[*separate].ns,
                                         plans[*separate].trafficBytes)))
      separate = i;
  if (separate && (loads[*separate].first < kSharedSumsLoad ||
                   kTiles < 2 * lhsPanel)) {
    SmallVector<MatmulPlan> kept;
    for (auto [plan, load] : llvm::zip(plans, loads))
      if (!load.second)
        kept.push_back(plan);
    plans = std::move(kept);
  }
  // Shortest first; among equals, the fewest bytes, a resident block
  // before streaming, and the smaller block (it starts computing sooner).
  auto fewer = [](const MatmulPlan &a, const MatmulPlan &b) {
    if (a.trafficBytes != b.trafficBytes)
      return a.trafficBytes < b.trafficBytes;
    return (a.block == 0 ? INT64_MAX : a.block) <
           (b.block == 0 ? INT64_MAX : b.block);
  };
  llvm::stable_sort(plans, [&](const MatmulPlan &a, const MatmulPlan &b) {
    if (a.ns != b.ns)
      return a.ns < b.ns;
    return fewer(a, b);
  });
  // Estimates of transfers' time within kEstimateTolerance of the
  // shortest are as close as the estimate can tell apart (it misses how a
  // kernel's start and its DMA queues overlap; tensor-engine work it
  // counts): among those plans the fewest bytes read go first.
  double limit = plans.front().ns * (1 + kEstimateTolerance);
  auto close = plans.begin();
  while (close != plans.end() && close->memoryBound && close->ns <= limit)
    ++close;
  std::stable_sort(plans.begin(), close, fewer);
  // Over several physical cores, where the first plan holds all of an
  // operand in one block, so that nisa-split-cores has only its transfers
  // to share out, and they leave a core idle a third of the time or more,
  // the plan within kCoresTolerance of it shared out most evenly goes
  // first, of those reading no more bytes (bf16 384x2048x1024: all 2 N
  // tiles of rhs held, its 3 row tiles shared 2 and 1, 27.5 us; all 3 M
  // tiles of lhs held, its 2 column transfers 1 and 1, 18.5). The cores
  // share HBM: a plan reading more, though shared out more evenly, took
  // bf16 144x3752x1515 35.2 -> 51.6 us. Blocks in a loop split otherwise
  // than busiestShare says: ranked by it, bf16 3533x690x4529 took blocks of
  // 4 N tiles for 3 (181.9 -> 194.2 us).
  MatmulPlan first = plans.front();
  if (costs.physicalCores > 1 && first.block > 0 &&
      first.block >= (first.rhsResident ? nTiles : mTiles) &&
      first.share >= kUnevenShare / double(costs.physicalCores)) {
    auto even = plans.begin();
    while (even != plans.end() && even->ns <= first.ns * (1 + kCoresTolerance))
      ++even;
    auto key = [&](const MatmulPlan &p) {
      return p.trafficBytes > first.trafficBytes ? 2.0 : p.share;
    };
    std::stable_sort(plans.begin(), even,
                     [&](const MatmulPlan &a, const MatmulPlan &b) {
                       return key(a) < key(b);
                     });
  }
  if (early && (*early ? mTiles : nTiles) == 1)
    std::stable_partition(plans.begin(), plans.end(),
                          [&](const MatmulPlan &p) {
                            return p.block > 0 && p.rhsResident == *early;
                          });
  return plans;
}

std::string mlir::neuron::describe(const MatmulPlan &plan) {
  if (plan.block == 0)
    return "both operands streamed";
  return (Twine(plan.rhsResident ? "rhs" : "lhs") + " resident in blocks of " +
          Twine(plan.block) + (plan.rhsResident ? " N tiles" : " M tiles"))
      .str();
}

LogicalResult mlir::neuron::lowerMatmul(OpBuilder &b, KernelLowering &k,
                                        Operation *op, Value a, Value bm,
                                        Value out, const Epilogue *epilogue,
                                        Operation *fusion) {
  Location loc = op->getLoc();
  // Tiles of an operand that is a view load through the view itself.
  a = KernelLowering::operandView(a);
  bm = KernelLowering::operandView(bm);
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
  // FP8 matmuls contract two K tiles per instruction where the target has
  // the double-row mode (fp8_rows): K is walked two tiles at a time, a
  // step of two full tiles being one pair and any shorter step (K's end)
  // its tiles one by one, and, without DMA pairs (below), the K tiles are
  // as tall as need the fewest such matmuls (1000 through a strided lhs
  // is 4 pairs of 125 rows, not 3 pairs of 128 and 2 single tiles).
  bool doubleRow = isa<Float8E4M3FNType, Float8E5M2Type>(element) &&
                   limits.getFp8Rows() >= 2;
  int64_t tileM = limits.getStationaryFree();
  // FP8 pairs through the DMA: partition k of a double-row stationary may
  // hold lhs[m, 2k] and lhs[m, 2k + 1] side by side for each m, so the
  // DMA's transpose of 2-byte elements moves a pair as one, a transfer per
  // two K tiles' worth of K, where the tensor engine would transpose two K
  // tiles and copy both out of PSUM. rhs pairs the same K (its rows 2k and
  // 2k + 1 in partition k); every K step is then one pair, K's end a pair
  // of fewer partitions, so K must be even. Both operands contiguous (rhs
  // K-major), where the DMA takes less time than the tensor engine.
  auto contiguous = [](Value v) {
    return cast<MemRefType>(v.getType()).getLayout().isIdentity();
  };
  auto memorySpace = cast<MemRefType>(a.getType()).getMemorySpace();
  // lhs's pairs of `cols` rows from K element `k0` as [rows, cols, 2].
  auto pairWindowType = [&](int64_t rows, int64_t cols) {
    return MemRefType::get(
        {rows, cols, 2}, element,
        StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic,
                               {2, kk, 1}),
        memorySpace);
  };
  bool dmaPairs = false;
  if (doubleRow && kk % 2 == 0 && contiguous(a) && contiguous(bm)) {
    int64_t rows = std::min(kk / 2, k.partitions()), cols = std::min(m, tileM);
    rt::OperandShape pairs = operandShapeOf(pairWindowType(rows, cols));
    dmaPairs = k.costNs("dma_copy", onChipShape(pairs, rows), pairs) <
               2 * k.tensorEngineTransposeNs(windowType(a, cols, rows, false));
  }
  // With DMA pairs, K steps of two tiles as even as K allows.
  int64_t tileK =
      dmaPairs ? llvm::divideCeil(
                     kk, 2 * llvm::divideCeil(kk, 2 * k.partitions()))
      : doubleRow ? pairedTileRows(kk, k.partitions())
                  : k.partitions();
  int64_t tileN =
      std::min(limits.getMovingFree(), limits.getPsumBankBytes() / 4);
  ScaledActivation evacuation = evacuationOf(result, out, epilogue);

  // A rank-2 window of batch `bi` of a (possibly batched) buffer.
  auto matrix = [&](OpBuilder &b, Value buffer, OpFoldResult bi,
                    ArrayRef<OpFoldResult> offsets,
                    ArrayRef<int64_t> sizes) -> Value {
    return KernelLowering::matrixView(b, loc, buffer, bi, offsets, sizes);
  };
  // The stationary tile lhs^T[K-tile, M-tile] and the moving tile
  // rhs[K-tile, N-tile]: an operand whose K is not on its rows in HBM
  // (lhs, or a transposed rhs) goes through loadTransposed, its transposes
  // into one PSUM bank kept for them.
  Value scratch;
  MatmulTransposes transposes;
  auto loadStationary = [&](OpBuilder &b, OpFoldResult bi, OpFoldResult m0,
                            int64_t mt, OpFoldResult k0, int64_t kt,
                            Value into) {
    k.loadTransposed(b, loc, matrix(b, a, bi, {m0, k0}, {mt, kt}), into,
                     scratch, transposes.lhs);
  };
  auto loadMoving = [&](OpBuilder &b, OpFoldResult bi, OpFoldResult n0,
                        int64_t nt, OpFoldResult k0, int64_t kt, Value into) {
    Value window = matrix(b, bm, bi, {k0, n0}, {kt, nt});
    if (rhsTransposed(bm))
      k.loadTransposed(
          b, loc, KernelLowering::permutedView(b, loc, window, {1, 0}), into,
          scratch, transposes.rhs);
    else
      k.dma(b, loc, window, into);
  };
  auto newTile = [&](OpBuilder &b, ArrayRef<int64_t> shape) {
    return k.tile(b, loc, nisa::MemorySpace::sbuf, shape, element);
  };
  // Columns [col, col + width) of tile `index` of a resident [tileK, K
  // tiles, block width] array: [kt, width].
  auto residentAt = [&](OpBuilder &b, Value resident, OpFoldResult index,
                        int64_t kt, int64_t col, int64_t width) -> Value {
    SmallVector<OpFoldResult> off{b.getIndexAttr(0), index,
                                  b.getIndexAttr(col)};
    SmallVector<OpFoldResult> sz{b.getIndexAttr(kt), b.getIndexAttr(1),
                                 b.getIndexAttr(width)};
    SmallVector<OpFoldResult> one(3, b.getIndexAttr(1));
    MemRefType type = memref::SubViewOp::inferRankReducedResultType(
        {kt, width}, cast<MemRefType>(resident.getType()), off, sz, one);
    return memref::SubViewOp::create(b, loc, type, resident, off, sz, one);
  };
  // The pairs [kt, width, 2] at element `offset` of each partition of the
  // on-chip `buffer` (as the DMA fills them), or, `operand`, the same as a
  // double-row operand [kt, 2, width]: its rows one element apart, its
  // columns two.
  auto pairsAt = [&](OpBuilder &b, Value buffer, OpFoldResult offset,
                     int64_t kt, int64_t width, bool operand) {
    auto type = cast<MemRefType>(buffer.getType());
    int64_t pitch = type.getNumElements() / type.getDimSize(0);
    return operand ? KernelLowering::stridedView(b, loc, buffer, offset,
                                                 {kt, 2, width}, {pitch, 1, 2})
                   : KernelLowering::stridedView(b, loc, buffer, offset,
                                                 {kt, width, 2}, {pitch, 2, 1});
  };
  // K tiles `index` and the next of a resident [tileK, K tiles, block
  // width] array as one double-row operand [kt, 2, width] of its columns
  // from `col`: row r K tile index + r, or, `interleaved` (lhs DMA pairs),
  // the two tiles' elements holding [block width, 2] pairs.
  auto residentPair = [&](OpBuilder &b, Value resident, OpFoldResult index,
                          int64_t col, int64_t width, int64_t kt,
                          bool interleaved) -> Value {
    if (interleaved) {
      int64_t ot = cast<MemRefType>(resident.getType()).getDimSize(2);
      return pairsAt(b, resident,
                     KernelLowering::affineSum(b, loc, {{index, ot}}, 2 * col),
                     kt, width, true);
    }
    return KernelLowering::view(b, loc, resident,
                                {b.getIndexAttr(0), index, b.getIndexAttr(col)},
                                {kt, 2, width});
  };
  // K tile `index` of a held [tileK, K tiles, block width] array, its
  // columns [col, col + width): [kt, width], or, `pair`, it and the next
  // as one double-row operand (`interleaved`: lhs DMA pairs).
  auto heldUnit = [&](OpBuilder &b, Value held, OpFoldResult index,
                      int64_t kt, int64_t col, int64_t width, bool pair,
                      bool interleaved) -> Value {
    return pair ? residentPair(b, held, index, col, width, kt, interleaved)
                : residentAt(b, held, index, kt, col, width);
  };
  // Row `r` [tileK, width] of a double-row tile [tileK, 2, width].
  auto rowOf = [&](OpBuilder &b, Value pair, int64_t r) -> Value {
    auto type = cast<MemRefType>(pair.getType());
    int64_t width = type.getDimSize(2);
    SmallVector<OpFoldResult> off{b.getIndexAttr(0), b.getIndexAttr(r),
                                  b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sz{b.getIndexAttr(tileK), b.getIndexAttr(1),
                                 b.getIndexAttr(width)};
    SmallVector<OpFoldResult> one(3, b.getIndexAttr(1));
    MemRefType rowType = memref::SubViewOp::inferRankReducedResultType(
        {tileK, width}, type, off, sz, one);
    return memref::SubViewOp::create(b, loc, rowType, pair, off, sz, one);
  };
  // The K tile index of tile `j` of the panel of `panel` K tiles at `kp`.
  auto panelTile = [&](OpBuilder &b, const TilePosition &kp, int64_t panel,
                       int64_t j) {
    return KernelLowering::affineSum(
        b, loc, {{KernelLowering::tileIndex(b, kp, 0, tileK * panel), panel}},
        j);
  };

  Value firstAcc;
  // A new [mt, nt] PSUM accumulator.
  auto newAcc = [&](OpBuilder &b, int64_t mt, int64_t nt) {
    Value acc =
        k.tile(b, loc, nisa::MemorySpace::psum, {mt, nt}, b.getF32Type());
    firstAcc = firstAcc ? firstAcc : acc;
    return acc;
  };
  // One [M-tile, N-tile] of the result summed in `acc`: the scalar engine
  // evacuates it, applying the epilogue's leading scaled activation on the
  // way when nothing else reads the raw product, then it is stored and the
  // epilogue computed on it. With `copiesNs` (the time of the copies out
  // of PSUM given so far to the scalar and the vector engine), a plain
  // copy goes to whichever the cost model says frees its bank first.
  auto finishTile = [&](OpBuilder &b, Value acc, OpFoldResult bi,
                        OpFoldResult m0, int64_t mt, OpFoldResult n0,
                        int64_t nt, std::array<double, 2> *copiesNs) {
    Value evacuated = k.tile(b, loc, nisa::MemorySpace::sbuf, {mt, nt},
                             resultType.getElementType());
    DenseMap<Value, Value> tiles;
    bool onVector = false;
    if (copiesNs && evacuation.ops.empty()) {
      rt::OperandShape to =
          operandShapeOf(cast<MemRefType>(evacuated.getType()));
      rt::OperandShape from = operandShapeOf(cast<MemRefType>(acc.getType()));
      double scalar = (*copiesNs)[0] + k.costNs("activation", to, from),
             vector = (*copiesNs)[1] + k.costNs("tensor_scalar", to, from);
      onVector = vector < scalar;
      (*copiesNs)[onVector] = onVector ? vector : scalar;
    }
    if (onVector) {
      k.vectorCopy(b, loc, acc, evacuated);
      tiles[result] = evacuated;
    } else {
      emitScaledActivation(b, k, loc, evacuation, result, acc, evacuated,
                           tiles);
    }
    if (out)
      k.dma(b, loc, evacuated, matrix(b, out, bi, {m0, n0}, {mt, nt}));
    if (epilogue) {
      applyEpilogue(b, k, loc, *epilogue, tiles, {mt, nt}, [&](Value buffer) {
        return matrix(b, buffer, bi, {m0, n0}, {mt, nt});
      });
    }
  };
  // A matmul into `acc`, starting the sum on the first K tile (`how`:
  // KernelLowering::accumulation of its K position).
  auto matmulInto = [&](OpBuilder &b,
                        const KernelLowering::Accumulation &how,
                        Value stationary, Value moving, Value acc) {
    bool pair = cast<MemRefType>(stationary.getType()).getRank() == 3;
    nisa::MatmulOp::create(b, loc, stationary, moving, acc, how.accumulate,
                           how.restart, pair);
  };
  int64_t kStep = doubleRow ? 2 * tileK : tileK;
  struct KUnit {
    OpFoldResult offset, index;
    int64_t rows, size;
    KernelLowering::Accumulation how;
  };
  auto unitsOf = [&](OpBuilder &b, const TilePosition &kp) {
    SmallVector<KUnit> units;
    OpFoldResult index = KernelLowering::affineSum(
        b, loc, {{KernelLowering::tileIndex(b, kp, 0, kStep), kStep / tileK}});
    KernelLowering::Accumulation first = KernelLowering::accumulation(kp, {0});
    if (dmaPairs || (doubleRow && kp.sizes[0] == 2 * tileK)) {
      units.push_back({kp.offsets[0], index, 2, kp.sizes[0] / 2, first});
      return units;
    }
    for (int64_t j = 0; j * tileK < kp.sizes[0]; ++j)
      units.push_back(
          {KernelLowering::affineSum(b, loc, {{kp.offsets[0], 1}}, j * tileK),
           KernelLowering::affineSum(b, loc, {{index, 1}}, j),
           1, std::min(tileK, kp.sizes[0] - j * tileK),
           j == 0 ? first : KernelLowering::Accumulation{true, {}}});
    return units;
  };
  // A streamed tile of K unit `u` [size, width] or [tileK, 2, width],
  // `load`ed one K tile at a time.
  auto streamedTile = [&](OpBuilder &b, const KUnit &u, int64_t width,
                          function_ref<void(OpFoldResult, int64_t, Value)>
                              load) {
    if (u.rows == 1) {
      Value t = newTile(b, {u.size, width});
      load(u.offset, u.size, t);
      return t;
    }
    Value t = newTile(b, {tileK, 2, width});
    for (int64_t r = 0; r < 2; ++r)
      load(KernelLowering::affineSum(b, loc, {{u.offset, 1}}, r * tileK), tileK,
           rowOf(b, t, r));
    return t;
  };
  // The double-row moving tile [kt, 2, nt] of a contiguous rhs's K pair
  // from `k0` at columns [n0, n0 + nt), in one transfer into `into`: rows
  // k0 + 2k + r with DMA pairs, else k0 + r * tileK + k.
  auto loadMovingPair = [&](OpBuilder &b, OpFoldResult bi, OpFoldResult n0,
                            int64_t nt, OpFoldResult k0, int64_t kt,
                            Value into) {
    OpFoldResult start = KernelLowering::affineSum(
        b, loc, {{bi, kk * n}, {k0, n}, {n0, 1}});
    SmallVector<int64_t> strides =
        dmaPairs ? SmallVector<int64_t>{2 * n, n, 1}
                 : SmallVector<int64_t>{n, tileK * n, 1};
    k.dma(b, loc,
          KernelLowering::stridedView(b, loc, bm, start, {kt, 2, nt}, strides),
          into);
  };
  // The moving tile of K unit `u` at columns [n0, n0 + nt): a pair of a
  // contiguous rhs in one transfer.
  auto loadMovingUnit = [&](OpBuilder &b, OpFoldResult bi, OpFoldResult n0,
                            int64_t nt, const KUnit &u) -> Value {
    if (u.rows == 1 || !contiguous(bm))
      return streamedTile(b, u, nt,
                          [&](OpFoldResult k0, int64_t kt, Value into) {
                            loadMoving(b, bi, n0, nt, k0, kt, into);
                          });
    Value t = newTile(b, {u.size, 2, nt});
    loadMovingPair(b, bi, n0, nt, u.offset, u.size, t);
    return t;
  };
  // lhs's K pair from `k0` (`kt` partitions) for rows [m0, m0 + mt) by the
  // DMA into `into` [kt, mt, 2]: partition k gets lhs[m, k0 + 2k] and
  // lhs[m, k0 + 2k + 1] side by side.
  auto loadStationaryPairs = [&](OpBuilder &b, OpFoldResult bi,
                                 OpFoldResult m0, int64_t mt, OpFoldResult k0,
                                 int64_t kt, Value into) {
    OpFoldResult start = KernelLowering::affineSum(
        b, loc, {{bi, m * kk}, {m0, kk}, {k0, 1}});
    k.dma(b, loc,
          KernelLowering::stridedView(b, loc, a, start, {kt, mt, 2},
                                      {2, kk, 1}),
          into);
  };
  // The stationary tile of K unit `u` for rows [m0, m0 + mt).
  auto loadStationaryUnit = [&](OpBuilder &b, OpFoldResult bi,
                                OpFoldResult m0, int64_t mt,
                                const KUnit &u) -> Value {
    if (!dmaPairs)
      return streamedTile(b, u, mt,
                          [&](OpFoldResult k0, int64_t kt, Value into) {
                            loadStationary(b, bi, m0, mt, k0, kt, into);
                          });
    Value t = newTile(b, {u.size, mt, 2});
    loadStationaryPairs(b, bi, m0, mt, u.offset, u.size, t);
    return pairsAt(b, t, b.getIndexAttr(0), u.size, mt, true);
  };

  // Bytes per partition finishing one output tile takes: its evacuated
  // tile and, in a fusion, one per epilogue op and per input it loads
  // (fp32 at most).
  int64_t finishTiles = 1;
  if (epilogue) {
    llvm::SmallPtrSet<Value, 4> loaded;
    for (Operation *e : epilogue->ops) {
      ++finishTiles;
      for (Value v : e->getOperands())
        if (isa<BlockArgument>(v))
          loaded.insert(v);
    }
    finishTiles += loaded.size();
  }
  int64_t finishBytes = finishTiles * tileN * 4;
  // The operands whose tiles the tensor engine transposes; a bank of PSUM
  // stays free for their transposes.
  transposes = {
      !dmaPairs &&
          k.transposesOnTensorEngine(
              windowType(a, std::min(m, tileM), std::min(kk, tileK), false)),
      rhsTransposed(bm) &&
          k.transposesOnTensorEngine(
              windowType(bm, std::min(n, tileN), std::min(kk, tileK), true))};
  // What the plans are timed with: full tiles' costs on the target.
  StringRef dtype = dtypeNameOf(element);
  rt::OperandShape full{dtype, elementBytes(element), tileK, tileK * tileN},
      square{dtype, elementBytes(element), tileK, tileK * tileM};
  MatmulCosts costs;
  costs.hbmBytesPerNs = k.config.hbmBytesPerNs;
  Type resultElement = resultType.getElementType();
  double storedBytes = double(batches * m * n * elementBytes(resultElement));
  costs.storeNs = storedBytes / costs.hbmBytesPerNs;
  // Per output tile: a matmul per K tile, or in the double-row mode one
  // per pair of full K tiles and one per tile of K's end.
  int64_t pairs = dmaPairs    ? llvm::divideCeil(kk, kStep)
                  : doubleRow ? kk / (2 * tileK)
                              : 0;
  int64_t singles =
      dmaPairs ? 0 : llvm::divideCeil(kk - pairs * 2 * tileK, tileK);
  rt::OperandShape fullPair = full;
  fullPair.elements *= 2;
  rt::CostQuery pairQuery = rt::costQueryFor("matmul", full, fullPair);
  pairQuery.rows = 2;
  costs.matmulNs =
      double(batches * llvm::divideCeil(m, tileM) * llvm::divideCeil(n, tileN)) *
      (double(pairs) * k.config.cost.nanoseconds(pairQuery) +
       double(singles) * k.costNs("matmul", full, full));
  costs.transposeNs = k.costNs("transpose", square, square);
  costs.copyNs = k.costNs("tensor_scalar", square, square);
  // In a kernel launched while inputs it reads are still in flight (a
  // collective's result), an operand it receives is there from the launch
  // and one it computes may wait long. When the tensor engine transposes
  // the received one, streaming would queue those transposes and their
  // copies out of PSUM behind the awaited work on the in-order engines:
  // it is held resident instead, its loads and transposes issued while
  // the other is awaited, if HBM brings all of it in before the kernel's
  // last input arrives (more would only change the plan). A tuned plan was
  // ranked in a probe receiving every operand, so its ranks are of the
  // plans without this.
  Operation *anchor = fusion ? fusion : op;
  auto rank = anchor->getAttrOfType<IntegerAttr>(kPlanRank);
  auto kernel = op->getParentOfType<func::FuncOp>();
  auto arrivals =
      kernel ? kernel->getAttrOfType<DenseF64ArrayAttr>(kInputArrivalsAttr)
             : DenseF64ArrayAttr();
  std::optional<bool> early;
  if (!rank && arrivals && !arrivals.empty() &&
      k.isReceived(a) != k.isReceived(bm)) {
    bool rhs = k.isReceived(bm);
    double bytes = double(batches * kk * (rhs ? n : m) *
                          elementBytes(element));
    if ((rhs ? transposes.rhs : transposes.lhs) &&
        bytes / costs.hbmBytesPerNs <=
            *llvm::max_element(arrivals.asArrayRef()))
      early = rhs;
  }
  // K tiles per natural load of each lhs row tile the tensor engine
  // transposes (held in a block or streamed), where its tiles are full
  // height: a few rows load in a short transfer either way, sooner as
  // separate ones side by side.
  int64_t lhsPanel = transposes.lhs && m >= tileM
                         ? std::min<int64_t>(k.transposePanelTiles(element),
                                             llvm::divideCeil(kk, tileK))
                         : 0;
  // DMA time per byte of a transfer through `window` (its rows on
  // partitions) over all the logical core's DMA engines: cut into pieces
  // the engines move side by side, as where DMA bounds the kernel, each
  // paying the fixed cost of a transfer.
  const rt::CostModel &model = k.config.cost;
  double engines = double(model.dmaEngines() * model.physicalCores());
  auto dmaNsPerByte = [&](MemRefType window) {
    rt::OperandShape from = operandShapeOf(window);
    double streaming =
        k.costNs("dma_copy", onChipShape(from, window.getDimSize(0)), from) -
        model.dmaFixedNs();
    double busy = streaming + double(model.transferPieces(streaming, true)) *
                                  model.dmaFixedNs();
    return busy / double(from.elements * from.elementBytes) / engines;
  };
  // lhs loads in panels of K tiles (or one K tile's rows) where the tensor
  // engine transposes it, else through the DMA's transposing pattern.
  int64_t lhsRun = std::min(kk, tileK * std::max<int64_t>(lhsPanel, 1));
  costs.lhsDmaNsPerByte =
      dmaPairs ? dmaNsPerByte(pairWindowType(tileK, std::min(m, tileM)))
      : transposes.lhs
          ? dmaNsPerByte(windowType(a, std::min(m, tileM), lhsRun, false))
          : dmaNsPerByte(windowType(a, std::min(kk, tileK), std::min(m, tileM),
                                    true));
  // A transposed rhs loads in its rows where the tensor engine transposes
  // it, else through the DMA's transposing pattern; any other in rows of
  // the transfer's columns.
  std::optional<double> transposedRhs;
  if (rhsTransposed(bm))
    transposedRhs = dmaNsPerByte(
        transposes.rhs
            ? windowType(bm, std::min(n, tileN), std::min(kk, tileK), true)
            : windowType(bm, std::min(kk, tileK), std::min(n, tileN), false));
  costs.rhsDmaNsPerByte = [&](int64_t columns) {
    return transposedRhs ? *transposedRhs
                         : dmaNsPerByte(windowType(bm, std::min(kk, tileK),
                                                   columns, false));
  };
  MemRefType stored = MemRefType::get(
      {std::min(m, tileM), std::min(n, tileN)}, resultElement,
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, {n, 1}),
      cast<MemRefType>(a.getType()).getMemorySpace());
  costs.storeDmaNs = storedBytes * dmaNsPerByte(stored);
  costs.dmaPeakBytes = k.config.dmaPeakBytes;
  costs.physicalCores = model.physicalCores();
  // Whether a held lhs block's transposes go with its first transfer's
  // matmuls, its transfers summing in one set of accumulators (see
  // fuseTransposes below): where the tensor engine transposes it in
  // panels. At lnc=2 only a block of a loop does, and the plans keep a
  // set of sums for each transfer shape: larger blocks, fewer for the two
  // physical cores to share, measured slower there.
  bool fusable = lhsPanel > 1 && !doubleRow && !dmaPairs && !transposes.rhs;
  SmallVector<MatmulPlan> plans = matmulPlans(
      m, kk, n, batches, elementBytes(element), finishBytes, lhsPanel,
      transposes, fusable && model.physicalCores() == 1, costs, limits, early);
  if (transposes.lhs || transposes.rhs)
    scratch = k.tile(b, loc, nisa::MemorySpace::psum,
                     {tileK, k.transposeChunk(element)},
                     k.transposedType(element));
  // A tuned plan, by its rank.
  size_t chosen = 0;
  if (rank) {
    chosen = std::min<size_t>(std::max<int64_t>(rank.getInt(), 0),
                              plans.size() - 1);
    auto expected = anchor->getAttrOfType<StringAttr>(kPlanExpected);
    if (expected && expected.getValue() != describe(plans[chosen])) {
      anchor->emitWarning()
          << "convert-neuron-to-nisa: ignoring a stale tuning record: it "
             "chose '"
          << expected.getValue() << "', plan " << chosen << " is now '"
          << describe(plans[chosen]) << "'; the estimate's first plan is used";
      chosen = 0;
    }
  }
  const MatmulPlan &plan = plans[chosen];
  // Where all of a held rhs is one block, its first and last lhs row
  // tiles are done apart from the loop over the others. On one physical
  // core only: at lnc=2 nisa-split-cores shares the loop nests between
  // the two, and these tiles would all run on one of them.
  bool oneBlock = plan.rhsResident && batches == 1 &&
                  n <= tileN * plan.block && model.physicalCores() == 1;
  // Streamed lhs tiles the first iteration of a held rhs takes together:
  // two where all of rhs is one block loading longer than one lhs tile's
  // matmuls take (the tensor engine would wait for each of its K tiles)
  // and PSUM holds both tiles' sums; the later tiles stream one by one.
  int64_t leadTiles = 1;
  if (oneBlock && m > 2 * tileM) {
    int64_t parts = llvm::divideCeil(n, tileN);
    double blockNs = double(kk * n * elementBytes(element)) /
                     k.config.hbmBytesPerNs;
    double tileNs = costs.matmulNs / double(llvm::divideCeil(m, tileM));
    if (2 * parts <= accumulatorBanks(limits, transposes) && blockNs > tileNs)
      leadTiles = 2;
  }
  // Streamed lhs row tiles in groups of `interleave` (g), their rows
  // interleaved: M tile q of a group from row r0 holds rows r0 + g * p + q
  // (p its partition), so a partition's g rows of lhs load in one run and
  // its g rows of the result store in one. Where the tensor engine
  // transposes lhs in one panel of all of K, all of a held rhs (one tile of
  // N) is one block and nothing is computed on the result, as large as
  // - two sets of the group's sums fit the free PSUM banks (each tile's in
  //   a slot of `perBank` to a bank),
  // - its runs stay within four times a transfer's peak bytes per
  //   partition (the DMA model's transfers of 8 KiB per partition move at
  //   93% of trn2's HBM share; a group's first transfer delays the
  //   kernel's start),
  // - the transposes of two of its K tiles fit a PSUM chunk side by side
  //   (the tensor engine transposes one while the other is copied out;
  //   trn1 bf16 16384x512x256: groups of 2 109.7 -> 97.9 us, of 3 103.4),
  // - at least two groups (one loads while the other computes).
  // Both matrices contiguous. Where the DMA transposes lhs, groups would
  // lengthen only the stores' runs; measured over random shapes on trn2
  // they were as often slower (2582x212x452 bf16 15.2 -> 16.7 us, fp8
  // 4288x848x117 24.2 -> 29.2) as faster (16384x512x256 bf16 98.3 -> 86.7),
  // so they are not formed there: nisa-schedule cuts each of a group's g
  // transposes into short pieces (a loop of few trips), each paying a
  // transfer's fixed cost, though the g already share the DMA engines.
  int64_t interleave = 1, perBank = 1;
  // A group's rows of `buffer` (`columns` wide) from row `m0`, a
  // partition's `interleave` rows side by side.
  auto groupRows = [&](OpBuilder &b, Value buffer, int64_t columns,
                       OpFoldResult bi, OpFoldResult m0) {
    return KernelLowering::stridedView(
        b, loc, buffer,
        KernelLowering::affineSum(b, loc, {{bi, m * columns}, {m0, columns}}),
        {tileM, interleave * columns}, {interleave * columns, 1});
  };
  if (oneBlock && transposes.lhs && lhsPanel > 1 && kk <= lhsPanel * tileK &&
      n <= tileN && !epilogue && out && contiguous(out) && contiguous(a)) {
    perBank = limits.getPsumBankBytes() / 4 / n;
    int64_t rowBytes = std::max(kk * elementBytes(element),
                                n * elementBytes(resultType.getElementType()));
    interleave = std::max<int64_t>(
        std::min({accumulatorBanks(limits, transposes) / 2 * perBank,
                  4 * k.config.dmaPeakBytes / rowBytes,
                  k.transposeChunk(element) / (2 * tileM), m / (2 * tileM)}),
        1);
  }
  if (auto kernel = anchor->getParentOfType<func::FuncOp>();
      kernel && anchor->hasAttr(kPlanRank)) {
    SmallVector<Attribute> taken;
    if (auto prior = kernel->getAttrOfType<ArrayAttr>(kTunedPlans))
      llvm::append_range(taken, prior);
    taken.push_back(b.getStringAttr(describe(plan)));
    kernel->setAttr(kTunedPlans, b.getArrayAttr(taken));
  }
  if (k.config.summary) {
    auto mib = [](int64_t bytes) { return double(bytes) / (1 << 20); };
    InFlightDiagnostic remark =
        op->emitRemark()
        << "convert-neuron-to-nisa: " << m << "x" << kk << "x" << n << ": "
        << describe(plan) << ", reading "
        << llvm::formatv("{0:F1}", mib(plan.trafficBytes * batches))
        << " MiB from HBM ("
        << llvm::formatv("{0:F1}", plan.trafficBytes * batches /
                                        k.config.hbmBytesPerNs / 1e3)
        << " us at the core's HBM bandwidth), estimated "
        << llvm::formatv("{0:F1}", plan.ns / 1e3) << " us";
    if (transposes.lhs || transposes.rhs)
      remark << "; " << (transposes.lhs ? "lhs" : "rhs")
             << (transposes.lhs && transposes.rhs ? " and rhs" : "")
             << " transposed on the tensor engine";
    if (dmaPairs)
      remark << "; lhs transposed by the DMA in FP8 pairs";
    if (interleave > 1)
      remark << "; lhs row tiles in groups of " << interleave
             << ", their rows interleaved";
    if (leadTiles > 1)
      remark << "; the first " << leadTiles
             << " lhs row tiles stream together while rhs loads";
    const MatmulPlan *next = chosen == 0 && plans.size() > 1 ? &plans[1]
                             : chosen > 0 ? &plans[0]
                                          : nullptr;
    if (chosen > 0)
      remark << "; tuned (plan " << chosen << " of the estimate's order)";
    else if (early && plan.block > 0 && plan.rhsResident == *early)
      remark << "; held while the kernel awaits its other operand";
    else if (plans.size() > 1 && plans[1].ns < plan.ns &&
             plan.share < plans[1].share)
      remark << "; its work shared out more evenly over the "
             << model.physicalCores()
             << " physical cores than plans estimated up to "
             << llvm::formatv("{0:F0}", kCoresTolerance * 100)
             << "% shorter";
    else if (plans.size() > 1 && plans[1].ns < plan.ns)
      remark << "; fewer bytes or a smaller block than plans estimated up to "
             << llvm::formatv("{0:F0}", kEstimateTolerance * 100)
             << "% shorter by their transfers";
    if (next)
      remark << "; runner-up: " << describe(*next) << ", "
             << llvm::formatv("{0:F1}", mib(next->trafficBytes * batches))
             << " MiB, " << llvm::formatv("{0:F1}", next->ns / 1e3) << " us";
  }
  // Tiles of the result's rows [m0, m0 + mt) side by side from column n0,
  // `widths` wide, summed in `accs`: where transfers bound the plan and
  // nothing is computed on them, evacuated into one tile and stored in one
  // transfer (runs as long as all their columns, a descriptor and a
  // transfer's fixed cost for all, for a later start and a larger tile);
  // else each as finishTile does. A `group`'s `accs` are its `interleave`
  // rows of all n columns, row q's summing rows g * p + q from m0, stored in
  // one transfer of g rows per partition.
  auto finishRow = [&](OpBuilder &b, ArrayRef<Value> accs,
                       ArrayRef<int64_t> widths, OpFoldResult bi,
                       OpFoldResult m0, int64_t mt, OpFoldResult n0,
                       std::array<double, 2> *copiesNs, bool group = false) {
    int64_t rowsPer = group ? interleave : 1;
    if (!group &&
        (!plan.memoryBound || epilogue || !out || accs.size() == 1)) {
      int64_t column = 0;
      for (auto [acc, width] : llvm::zip(accs, widths)) {
        finishTile(b, acc, bi, m0, mt,
                   KernelLowering::affineSum(b, loc, {{n0, 1}}, column),
                   width, copiesNs);
        column += width;
      }
      return;
    }
    int64_t total = std::accumulate(widths.begin(), widths.end(), int64_t(0));
    Value evacuated =
        k.tile(b, loc, nisa::MemorySpace::sbuf, {mt, rowsPer * total},
               resultType.getElementType());
    int64_t column = 0;
    for (auto [i, acc] : llvm::enumerate(accs)) {
      int64_t width = widths[i % widths.size()];
      DenseMap<Value, Value> tiles;
      emitScaledActivation(
          b, k, loc, evacuation, result, acc,
          KernelLowering::view(b, loc, evacuated,
                               {b.getIndexAttr(0), b.getIndexAttr(column)},
                               {mt, width}),
          tiles);
      column += width;
    }
    k.dma(b, loc, evacuated,
          group ? groupRows(b, out, n, bi, m0)
                : matrix(b, out, bi, {m0, n0}, {mt, total}));
  };
  if (plan.block > 0) {
    // Outer: blocks of `block` tiles of the resident operand (lhs: M tiles
    // of the stationary width; rhs: N tiles of the moving width), loaded
    // once for all K; inner: the other operand's tiles stream past, each
    // K tile of one feeding the block's matmuls, one PSUM bank each.
    bool rhsResident = plan.rhsResident;
    int64_t outer = rhsResident ? n : m, outerTile = rhsResident ? tileN : tileM;
    int64_t inner = rhsResident ? m : n, innerTile = rhsResident ? tileM : tileN;
    // Where the last streamed tile starts (it is `inner - last` wide).
    int64_t last = (inner - 1) / innerTile * innerTile;
    // The matmul of a streamed tile and a tile of the held block into
    // `acc`: lhs's is the stationary operand.
    auto matmulWithHeld = [&](OpBuilder &b,
                              const KernelLowering::Accumulation &how,
                              Value streamed, Value held, Value acc) {
      if (rhsResident)
        matmulInto(b, how, streamed, held, acc);
      else
        matmulInto(b, how, held, streamed, acc);
    };
    int64_t kTiles = dmaPairs ? 2 * llvm::divideCeil(kk, kStep)
                              : llvm::divideCeil(kk, tileK);
    // A held lhs the tensor engine transposes, panel by panel: each PSUM
    // chunk of its transposes is followed by the first streamed
    // transfer's matmuls of the chunk before, so the tensor engine never
    // waits for a chunk's copy out of PSUM (the chunks share one bank),
    // nor does the block's first matmul wait for all its transposes. The
    // block's later transfers then sum in the first one's accumulators
    // (PSUM holds all of a loop nest's tiles at once), copied out by the
    // scalar and vector engines in turn (finishTile's copiesNs, per
    // transfer: the next one's matmuls wait for them); their sums no longer
    // rotate through spare banks, which costs less than the waits saved
    // on most shapes (trn1 bf16 3000x2000x1500, blocks of 3 M tiles and
    // 3 transfers, is 1.8% slower).
    bool fuseTransposes = !rhsResident && fusable;
    // Where lhs is held and the blocks' transfers share their sums (one
    // physical core), a block may hold its last rhs tile for all of K
    // (see lastTile) where that takes at most an eighth of SBUF per
    // partition: with larger ones (K of 4096 f32 or 8192 bf16) the
    // kernels measured up to 0.2% slower, and in a loop (trn2 f32 2048^3,
    // 32 KiB) the first block's held tile loaded beside the kernel's
    // first loads (910.0 -> 915.7 us).
    bool holdLast = fuseTransposes && batches == 1 &&
                    model.physicalCores() == 1 &&
                    kTiles * (inner - last) * elementBytes(element) <=
                        limits.getSbufBytes() / 8;
    // Panel `kp` (`panel` K tiles) of a held block of lhs's `ot` rows from
    // `o0`, loaded in rows and transposed on the tensor engine into the
    // block's array `resident`, K tile by K tile (loadTransposedPanel) or
    // `byRows` (loadTransposedPanelByRows), with `afterChunk`.
    auto transposeHeldPanel = [&](OpBuilder &b, OpFoldResult bi,
                                  OpFoldResult o0, int64_t ot, Value resident,
                                  const TilePosition &kp, int64_t panel,
                                  KernelLowering::ChunkCallback afterChunk,
                                  bool byRows = false) {
      Value rows =
          matrix(b, a, bi, {o0, kp.offsets[0]}, {ot, kp.sizes[0]});
      auto dstOf = [&](OpBuilder &b, int64_t j, int64_t kt) {
        return residentAt(b, resident, panelTile(b, kp, panel, j), kt, 0, ot);
      };
      if (byRows)
        k.loadTransposedPanelByRows(b, loc, rows, tileK, dstOf, scratch,
                                    afterChunk);
      else
        k.loadTransposedPanel(b, loc, rows, tileK, dstOf, scratch,
                              afterChunk);
    };
    // A block of `ot` of one side's tiles from `o0` (rhs: N tiles; lhs: M
    // tiles), loaded for all of K into a new [tileK, K tiles, ot] array.
    auto loadHeld = [&](OpBuilder &b, OpFoldResult bi, OpFoldResult o0,
                        int64_t ot, bool rhsSide) {
      Value resident = newTile(b, {tileK, kTiles, ot});
      // A block of lhs the tensor engine transposes loads `panel` K
      // tiles of its rows in one transfer (runs of a transfer's peak
      // bytes per partition rather than one tile's); with DMA pairs
      // each K step loads one pair of the block's tiles (lhs: the
      // block's [ot, 2] pairs in their elements).
      int64_t panel = rhsSide || lhsPanel == 0 ? 1 : lhsPanel;
      KernelLowering::forEachTile(
          b, loc, {{kk, dmaPairs ? kStep : tileK * panel}},
          [&](OpBuilder &b, const TilePosition &kp) {
            if (dmaPairs) {
              int64_t kt = kp.sizes[0] / 2;
              OpFoldResult index = KernelLowering::affineSum(
                  b, loc,
                  {{KernelLowering::tileIndex(b, kp, 0, kStep), 2}});
              if (rhsSide)
                loadMovingPair(
                    b, bi, o0, ot, kp.offsets[0], kt,
                    residentPair(b, resident, index, 0, ot, kt, false));
              else
                loadStationaryPairs(
                    b, bi, o0, ot, kp.offsets[0], kt,
                    pairsAt(b, resident,
                            KernelLowering::affineSum(b, loc,
                                                      {{index, ot}}),
                            kt, ot, false));
              return;
            }
            if (panel > 1) {
              transposeHeldPanel(b, bi, o0, ot, resident, kp, panel, {});
              return;
            }
            int64_t kt = kp.sizes[0];
            Value slot = residentAt(
                b, resident, KernelLowering::tileIndex(b, kp, 0, tileK), kt,
                0, ot);
            if (rhsSide)
              loadMoving(b, bi, o0, ot, kp.offsets[0], kt, slot);
            else
              loadStationary(b, bi, o0, ot, kp.offsets[0], kt, slot);
          });
      return resident;
    };
    // A block of the held operand and the transfers past it.
    auto blockAt = [&](OpBuilder &b, const TilePosition &at) {
      OpFoldResult bi = at.offsets[0], o0 = at.offsets[1];
      int64_t ot = at.sizes[1];
      // The block's tiles: [first column, width] in the resident array.
      SmallVector<std::pair<int64_t, int64_t>> parts;
      for (int64_t c = 0; c < ot; c += outerTile)
        parts.push_back({c, std::min(outerTile, ot - c)});
      // Streamed moving tiles load `spread` N tiles in one transfer
      // where one tile's rows are shorter than a transfer needs for
      // peak DMA bandwidth, as the free PSUM banks allow (each N tile
      // sums in its own).
      int64_t spread =
          rhsResident        ? interleave
          : rhsTransposed(bm) ? 1
              : movingSpread(inner, innerTile, elementBytes(element),
                             k.config.dmaPeakBytes,
                             accumulatorBanks(limits, transposes),
                             int64_t(parts.size()));
      // The block's transposes go with the first transfer's matmuls
      // (fuseTransposes). At lnc=2 only for a block of a loop:
      // nisa-split-cores shares the block loop between the physical
      // cores, and a block apart from it (the partial last one, or the
      // only one) would keep its transfers on one core (they read
      // tiles computed on chip) where it shares them unfused.
      bool fuse = fuseTransposes &&
                  (model.physicalCores() == 1 ||
                   llvm::any_of(at.ivs, [](Value iv) { return bool(iv); }));
      Value resident = fuse ? newTile(b, {tileK, kTiles, ot})
                            : loadHeld(b, bi, o0, ot, rhsResident);
      SmallVector<Value> blockAccs;
      // The transfers past the block, the first one's K loop with the
      // block's transposes (`transposing`: a held lhs the tensor engine
      // transposes, see fuseTransposes).
      auto streamPast = [&](OpBuilder &b, const TilePosition &in,
                            bool transposing = false) {
        OpFoldResult i0 = in.offsets[0];
        int64_t it = in.sizes[0];
        // A whole group of row tiles, their rows interleaved (see
        // `interleave`).
        bool rowGroup = rhsResident && interleave > 1 &&
                        it == interleave * innerTile;
        std::array<double, 2> copiesNs{};
        // The inner tiles of this transfer: [first column, width].
        SmallVector<std::pair<int64_t, int64_t>> pieces;
        for (int64_t c = 0; c < it; c += innerTile)
          pieces.push_back({c, std::min(innerTile, it - c)});
        SmallVector<Value> accs;
        if (rowGroup) {
          // The group's sums share one PSUM tile, each in a slot of a
          // bank (see `interleave`).
          int64_t bank = limits.getPsumBankBytes() / 4;
          Value group = newAcc(
              b, innerTile, llvm::divideCeil(interleave, perBank) * bank);
          for (int64_t q = 0; q < interleave; ++q)
            accs.push_back(KernelLowering::view(
                b, loc, group,
                {b.getIndexAttr(0),
                 b.getIndexAttr(q / perBank * bank +
                                q % perBank * (bank / perBank))},
                {innerTile, n}));
        } else {
          for (auto [c, w] : parts)
            for (auto [ic, iw] : pieces) {
              int64_t rows = rhsResident ? iw : w,
                      cols = rhsResident ? w : iw;
              accs.push_back(
                  blockAccs.empty()
                      ? newAcc(b, rows, cols)
                      : KernelLowering::view(
                            b, loc, blockAccs[accs.size()],
                            {b.getIndexAttr(0), b.getIndexAttr(0)},
                            {rows, cols}));
            }
        }
        // The block's matmuls of the streamed tile of K tile
        // `index` (`kt` rows), or of it and the next (a double-row
        // [tileK, 2, inner] tile); those of the block's tiles in its
        // columns [from, to) only, when given.
        auto feed = [&](OpBuilder &b, OpFoldResult index, int64_t kt,
                        Value streamed,
                        const KernelLowering::Accumulation &how,
                        int64_t from = 0,
                        int64_t to = std::numeric_limits<int64_t>::max()) {
          bool pair =
              cast<MemRefType>(streamed.getType()).getRank() == 3;
          Value *acc = accs.begin();
          for (auto [c, w] : parts) {
            if (c < from || c >= to) {
              acc += pieces.size();
              continue;
            }
            Value held = heldUnit(b, resident, index, kt, c, w, pair,
                                  dmaPairs && !rhsResident);
            for (auto [ic, iw] : pieces) {
              Value piece = streamed;
              if (pieces.size() > 1 && pair)
                piece = KernelLowering::view(
                    b, loc, streamed,
                    {b.getIndexAttr(0), b.getIndexAttr(0),
                     b.getIndexAttr(ic)},
                    {kt, 2, iw});
              else if (pieces.size() > 1)
                piece = KernelLowering::view(
                    b, loc, streamed,
                    {b.getIndexAttr(0), b.getIndexAttr(ic)}, {kt, iw});
              matmulWithHeld(b, how, piece, held, *acc++);
            }
          }
        };
        // Streamed lhs tiles the tensor engine transposes load
        // `panel` K tiles of their rows per transfer and are all
        // transposed before their matmuls, which then wait for the
        // first's copy out of PSUM only; in the double-row mode
        // each two full tiles of a panel are transposed into one
        // pair.
        int64_t panel =
            (rhsResident || transposing) && lhsPanel > 1 ? lhsPanel : 1;
        KernelLowering::forEachTile(
            b, loc, {{kk, panel > 1 ? tileK * panel : kStep}},
            [&](OpBuilder &b, const TilePosition &kp) {
              if (transposing) {
                // Each PSUM chunk of the held block's transposes, then
                // the matmuls of the chunk before it (copied out of
                // PSUM meanwhile), the panel's last after the panel.
                // Where the block fills a chunk, each panel goes row
                // tile by row tile: K tile by K tile, every row tile's
                // staged rows are read until the panel's last K tile,
                // and where they get one slot (a large block fills
                // SBUF) the next panel's loads wait for all those
                // transposes (trn1 bf16 4000^3: 3.2 us a panel); in a
                // single panel the first chunk waits for as many row
                // tiles' loads of all of K (trn1 fp8 2048^3: 221.4 ->
                // 220.2 us, 8192x1024x1024 239.0 -> 237.3; bf16 1024^3
                // 34.4 -> 34.6). Smaller blocks go K tile by K tile,
                // each streamed K tile feeding all the block's M tiles
                // at once; row tile by row tile, the first waits for
                // the panel's streamed K tiles one by one (trn1 bf16
                // 2448x1205x699, blocks of 3: 3.5% slower).
                KernelLowering::Accumulation first =
                    KernelLowering::accumulation(kp, {0});
                bool byRows = ot >= k.transposeChunk(element);
                // The panel's streamed K tiles, each loaded where a
                // chunk first needs it.
                SmallVector<Value> streamed;
                std::function<void(OpBuilder &)> pending;
                transposeHeldPanel(
                    b, bi, o0, ot, resident, kp, panel,
                    [&](OpBuilder &b, int64_t c0, int64_t columns,
                        int64_t j0, int64_t tiles) {
                      SmallVector<std::tuple<OpFoldResult, int64_t, Value,
                                             KernelLowering::Accumulation>>
                          units;
                      for (int64_t j = j0; j < j0 + tiles; ++j) {
                        int64_t kt =
                            std::min(tileK, kp.sizes[0] - j * tileK);
                        if (j == int64_t(streamed.size())) {
                          streamed.push_back(newTile(b, {kt, it}));
                          loadMoving(b, bi, i0, it,
                                     KernelLowering::affineSum(
                                         b, loc, {{kp.offsets[0], 1}},
                                         j * tileK),
                                     kt, streamed.back());
                        }
                        units.push_back(
                            {panelTile(b, kp, panel, j), kt, streamed[j],
                             j == 0 ? first
                                    : KernelLowering::Accumulation{true,
                                                                   {}}});
                      }
                      if (pending)
                        pending(b);
                      pending = [=, &feed](OpBuilder &b) {
                        for (auto [index, kt, tile, how] : units)
                          feed(b, index, kt, tile, how, c0,
                               c0 + columns);
                      };
                    },
                    byRows);
                pending(b);
                return;
              }
              if (panel > 1) {
                KernelLowering::Accumulation first =
                    KernelLowering::accumulation(kp, {0});
                // Tile j is the first of a pair when it and the
                // next are full.
                auto pairs = [&](int64_t j) {
                  return doubleRow && j % 2 == 0 &&
                         (j + 2) * tileK <= kp.sizes[0];
                };
                SmallVector<Value> tiles;
                // Each of its K tiles' transposes is copied out of
                // PSUM on its own where the streamed tile is one M
                // tile; the copies take the vector and scalar engines
                // in turn where the scalar engine, evacuating the
                // tile's sums (one copy's time per 128 columns), stays
                // no busier than the vector engine with all of them.
                bool alternate = 2 * llvm::divideCeil(ot, tileM) <=
                                 llvm::divideCeil(kk, tileK);
                Value rows =
                    rowGroup ? groupRows(b, a, kk, bi, i0)
                             : matrix(b, a, bi, {i0, kp.offsets[0]},
                                      {it, kp.sizes[0]});
                k.loadTransposedPanel(
                    b, loc, rows,
                    tileK,
                    [&](OpBuilder &b, int64_t j, int64_t kt) {
                      if (pairs(j)) {
                        tiles.push_back(newTile(b, {tileK, 2, it}));
                        return rowOf(b, tiles.back(), 0);
                      }
                      if (j % 2 == 1 && pairs(j - 1))
                        return rowOf(b, tiles.back(), 1);
                      tiles.push_back(newTile(b, {kt, it}));
                      return tiles.back();
                    },
                    scratch, {}, alternate,
                    rowGroup ? interleave : 1);
                int64_t j = 0;
                for (Value tile : tiles) {
                  feed(b, panelTile(b, kp, panel, j),
                       cast<MemRefType>(tile.getType()).getDimSize(0),
                       tile,
                       j == 0 ? first
                              : KernelLowering::Accumulation{true, {}});
                  j += pairs(j) ? 2 : 1;
                }
                return;
              }
              for (const KUnit &u : unitsOf(b, kp)) {
                Value streamed;
                if (rhsResident)
                  streamed = loadStationaryUnit(b, bi, i0, it, u);
                else
                  streamed = loadMovingUnit(b, bi, i0, it, u);
                feed(b, u.index, u.size, streamed, u.how);
              }
            });
        // The result's rows: per streamed M tile the block's N
        // tiles (rhs resident), or per block M tile the transfer's
        // N tiles, side by side.
        auto accAt = [&](size_t part, size_t piece) {
          return accs[part * pieces.size() + piece];
        };
        auto [rows, columns] = rhsResident
                                   ? std::make_pair(pieces, parts)
                                   : std::make_pair(parts, pieces);
        OpFoldResult rowStart = rhsResident ? i0 : o0,
                     columnStart = rhsResident ? o0 : i0;
        if (rowGroup) {
          finishRow(b, accs, {n}, bi, i0, innerTile, o0, nullptr,
                    /*group=*/true);
          return;
        }
        for (auto [r, row] : llvm::enumerate(rows)) {
          SmallVector<Value> rowAccs;
          SmallVector<int64_t> widths;
          for (auto [c, column] : llvm::enumerate(columns)) {
            rowAccs.push_back(rhsResident ? accAt(c, r) : accAt(r, c));
            widths.push_back(column.second);
          }
          finishRow(b, rowAccs, widths, bi,
                    KernelLowering::affineSum(b, loc, {{rowStart, 1}},
                                              row.first),
                    row.second, columnStart,
                    blockAccs.empty() ? nullptr : &copiesNs);
        }
      };
      // The block's last streamed tile, held for all of K first, then
      // summed block tile by block tile, each copied out of PSUM and
      // stored under the next one's matmuls, not all after the block's
      // last matmul. Where all of rhs is one block (its last lhs row
      // tile), and, where lhs is held (`holdLast`), in the kernel's last
      // block, apart from the block loop (trn1 fp8 2048^3: 1 MiB of f32
      // sums stored after the last matmul, 223.5 -> 221.4 us), and in
      // every block where a transfer runs between its first and its last
      // (the held tile loads under its matmuls): the next block's first
      // transposes then no longer wait for their copies out of PSUM
      // behind all the block's last copies (trn1 fp8 2048^3 220.2 ->
      // 219.1 us, bf16 5000x1200x1800 373.8 -> 353.9). Without one, the
      // held tile's loads take the DMA engines from the block's first
      // transfer (trn1 bf16 2448x1205x699 77.1 -> 79.0 us).
      auto lastTile = [&](OpBuilder &b, OpFoldResult i0, int64_t it) {
        Value held = loadHeld(b, bi, i0, it, /*rhsSide=*/!rhsResident);
        for (auto [i, part] : llvm::enumerate(parts)) {
          auto [c, w] = part;
          // Where lhs is held, the sums its first transfer made (the
          // allocator holds every accumulator of the block's nest).
          Value acc =
              rhsResident
                  ? newAcc(b, it, w)
                  : KernelLowering::view(
                        b, loc,
                        blockAccs[i * blockAccs.size() / parts.size()],
                        {b.getIndexAttr(0), b.getIndexAttr(0)}, {w, it});
          KernelLowering::forEachTile(
              b, loc, {{kk, kStep}},
              [&](OpBuilder &b, const TilePosition &kp) {
                for (const KUnit &u : unitsOf(b, kp)) {
                  bool pair = u.rows == 2;
                  Value streamed =
                      heldUnit(b, held, u.index, u.size, 0, it, pair,
                               dmaPairs && rhsResident);
                  Value block =
                      heldUnit(b, resident, u.index, u.size, c, w, pair,
                               dmaPairs && !rhsResident);
                  matmulWithHeld(b, u.how, streamed, block, acc);
                }
              });
          OpFoldResult c0 =
              KernelLowering::affineSum(b, loc, {{o0, 1}}, c);
          if (rhsResident)
            finishTile(b, acc, bi, i0, it, c0, w, nullptr);
          else
            finishTile(b, acc, bi, c0, w, i0, it, nullptr);
        }
      };
      // The first `leadTiles` streamed tiles in one iteration, or the
      // first transfer with the block's transposes.
      int64_t from = 0;
      if (fuse) {
        from = std::min(inner, innerTile * spread);
        for (auto [c, w] : parts)
          for (int64_t ic = 0; ic < from; ic += innerTile)
            blockAccs.push_back(newAcc(b, w, innerTile));
        streamPast(b, TilePosition{{b.getIndexAttr(0)}, {from},
                                   {Value()}},
                   /*transposing=*/true);
      }
      if (leadTiles > 1) {
        from = std::min(inner, leadTiles * innerTile);
        streamPast(b, TilePosition{{b.getIndexAttr(0)}, {from},
                                   {Value()}});
      }
      std::optional<int64_t> blockStart = getConstantIntValue(o0);
      bool kernelLast = blockStart && *blockStart + ot == outer;
      bool partsOuter =
          parts.size() > 1 && !plan.memoryBound &&
          (oneBlock || (holdLast && last >= from &&
                        (kernelLast || last > from)));
      int64_t to = partsOuter ? last : inner;
      // Interleaved groups (whole ones), then the tiles past the last
      // one by one.
      int64_t step = innerTile * spread;
      int64_t groupsEnd = rhsResident && interleave > 1
                            ? from + (to - from) / step * step
                            : to;
      if (groupsEnd > from)
        KernelLowering::forEachTile(
            b, loc, {{groupsEnd - from, step, from}}, streamPast);
      if (to > groupsEnd)
        KernelLowering::forEachTile(
            b, loc, {{to - groupsEnd, innerTile, groupsEnd}}, streamPast);
      if (partsOuter)
        lastTile(b, b.getIndexAttr(to), inner - to);
    };
    // The last block apart from the loop over the others where it holds
    // its last rhs tile (see lastTile).
    int64_t blockWidth = outerTile * plan.block;
    int64_t peeled =
        holdLast && outer > blockWidth && outer % blockWidth == 0 ? blockWidth
                                                                  : 0;
    // Over batches, the partial last block also goes in a loop of its own:
    // in the full blocks' loop over batches, the allocator would hold both
    // blocks' accumulators and tiles at once (matmulPlans).
    int64_t apart = peeled;
    if (batches > 1 && outer > blockWidth)
      apart = outer % blockWidth;
    KernelLowering::forEachTile(
        b, loc, {{batches, 1}, {outer - apart, blockWidth}}, blockAt);
    if (apart)
      KernelLowering::forEachTile(
          b, loc, {{batches, 1}, {apart, blockWidth, outer - apart}}, blockAt);
  } else {
    KernelLowering::forEachTile(
        b, loc, {{batches, 1}, {m, tileM}, {n, tileN}},
        [&](OpBuilder &b, const TilePosition &at) {
          OpFoldResult bi = at.offsets[0], m0 = at.offsets[1],
                       n0 = at.offsets[2];
          int64_t mt = at.sizes[1], nt = at.sizes[2];
          Value acc = newAcc(b, mt, nt);
          KernelLowering::forEachTile(
              b, loc, {{kk, kStep}}, [&](OpBuilder &b, const TilePosition &kp) {
                for (const KUnit &u : unitsOf(b, kp)) {
                  Value stationary = loadStationaryUnit(b, bi, m0, mt, u);
                  Value moving = loadMovingUnit(b, bi, n0, nt, u);
                  matmulInto(b, u.how, stationary, moving, acc);
                }
              });
          finishTile(b, acc, bi, m0, mt, n0, nt, nullptr);
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
