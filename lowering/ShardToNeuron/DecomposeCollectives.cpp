//===- DecomposeCollectives.cpp - the neuron-decompose-collectives pass ---===//
//
// Splits a row-parallel matmul and the all-reduce of its partial sums into
// row chunks, so that each chunk's all-reduce overlaps the next chunks'
// arithmetic, when the target's models say it pays (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "lowering/NeuronToNisa/KernelLowering.h"
#include "lowering/Passes.h"

#include "passes/CollectiveTiming.h"
#include "passes/TargetLoading.h"

#include "dialects/neuron/IR/NeuronOps.h"
#include "runtime/target/CollectiveModel.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONDECOMPOSECOLLECTIVES
#include "lowering/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
namespace rt = ::neuron::rt;

namespace {

/// The fewest rows a chosen chunk has: a tensor-engine tile's moving
/// columns. Fewer would leave the array's columns idle.
constexpr int64_t kMinChunkRows = 128;
/// The predicted gain a split must reach. The prediction times each
/// chunk's matmul alone, so it misses the overlap the whole matmul gets
/// with the work merged around it in its kernel: on the LLaMA-2-7B prefill
/// layer (run_multicore.py) splits predicted 2.6-6.6% faster ran slower,
/// and those predicted 12-21% faster gained a fifth to four fifths of it.
constexpr double kMinGain = 0.10;

/// A row-parallel matmul `lhs [rows, K] x rhs [K, cols]` and the all-reduce
/// of its partial sums.
struct RowParallelPair {
  MatmulOp matmul;
  AllReduceOp allReduce;
  int64_t rows, cols, elementBytes;
};

/// A predicted pipeline of `chunks` row chunks.
struct Prediction {
  int64_t chunks = 1;
  /// A chunk's matmul scheduled alone, and its all-reduce.
  double matmulNs = 0, allReduceNs = 0;
  /// From the first chunk's matmul to the last all-reduce's end.
  double ns = 0;
  /// Time of all the chunks' all-reduces, and how much of it runs while a
  /// later chunk's matmul does.
  double collectiveNs = 0, hiddenNs = 0;
};

std::optional<RowParallelPair> matchPair(AllReduceOp allReduce) {
  if (allReduce.getReduction() != CollectiveReduction::sum)
    return std::nullopt;
  auto matmul = allReduce.getInput().getDefiningOp<MatmulOp>();
  if (!matmul || !matmul->hasOneUse())
    return std::nullopt;
  auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
  auto result = cast<RankedTensorType>(matmul.getResult().getType());
  if (!lhs.hasStaticShape() || !result.hasStaticShape())
    return std::nullopt;
  return RowParallelPair{matmul, allReduce, result.getDimSize(0),
                         result.getDimSize(1),
                         (result.getElementTypeBitWidth() + 7) / 8};
}

/// `k` chunks, each a matmul of `matmulNs` then an all-reduce of
/// `allReduceNs`: chunk c's all-reduce starts once its matmul is done and
/// the previous all-reduce has left the core's collective engine (one at a
/// time, as the simulator runs them).
Prediction pipeline(int64_t k, double matmulNs, double allReduceNs) {
  Prediction out{k, matmulNs, allReduceNs};
  double lastMatmulEnd = double(k) * matmulNs, engineFree = 0;
  for (int64_t c = 0; c < k; ++c) {
    double start = std::max(double(c + 1) * matmulNs, engineFree);
    engineFree = start + allReduceNs;
    out.hiddenNs += std::max(0.0, std::min(engineFree, lastMatmulEnd) - start);
  }
  out.ns = engineFree;
  out.collectiveNs = double(k) * allReduceNs;
  return out;
}

/// Chunk `c` of `k`: the matmul of rows [c * rows, (c + 1) * rows) of the
/// left operand and its all-reduce, built at `b`.
AllReduceOp buildChunk(OpBuilder &b, RowParallelPair pair, int64_t k,
                       int64_t c) {
  MatmulOp matmul = pair.matmul;
  AllReduceOp allReduce = pair.allReduce;
  int64_t rows = pair.rows / k;
  auto lhsType = cast<RankedTensorType>(matmul.getLhs().getType());
  Type lhsChunk = lhsType.clone({rows, lhsType.getDimSize(1)});
  Type resultChunk = allReduce.getType().clone({rows, pair.cols});
  Value lhs = SliceOp::create(b, matmul.getLoc(), lhsChunk, matmul.getLhs(),
                              ArrayRef<int64_t>{c * rows, 0},
                              ArrayRef<int64_t>{1, 1});
  Value product =
      MatmulOp::create(b, matmul.getLoc(), resultChunk, lhs, matmul.getRhs());
  return AllReduceOp::create(b, allReduce.getLoc(), resultChunk, product,
                             allReduce.getGridAttr(),
                             allReduce.getGridAxesAttr(),
                             allReduce.getReductionAttr());
}

struct NeuronDecomposeCollectivesPass
    : public mlir::neuron::impl::NeuronDecomposeCollectivesBase<
          NeuronDecomposeCollectivesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (chunks < 0) {
      module.emitError() << "neuron-decompose-collectives: chunks="
                         << int64_t(chunks)
                         << " (expected 0 to choose, 1 never to split, or "
                            "the chunks of every split)";
      return signalPassFailure();
    }
    SmallVector<RowParallelPair> pairs;
    module.walk([&](AllReduceOp op) {
      if (std::optional<RowParallelPair> pair = matchPair(op))
        pairs.push_back(*pair);
    });
    if (pairs.empty() || chunks == 1)
      return;
    FailureOr<LoadedTarget> loaded =
        loadTarget(module, "neuron-decompose-collectives", target, targetDir,
                   "trn2.48xlarge");
    if (failed(loaded))
      return signalPassFailure();
    absl::StatusOr<rt::CollectiveModel> links =
        rt::CollectiveModel::forTarget(loaded->target);
    if (!links.ok()) {
      module.emitError() << "neuron-decompose-collectives: "
                         << std::string(links.status().message());
      return signalPassFailure();
    }
    TuningOptions probes;
    probes.target = loaded->target.spec();
    probes.targetDir = targetDir;
    for (RowParallelPair pair : pairs)
      decide(pair, loaded->target, *links, probes);
  }

  /// The prediction for `k` chunks, or nullopt when a chunk's matmul does
  /// not compile alone. The chunk is built, timed and erased.
  static std::optional<Prediction> predict(RowParallelPair pair, int64_t k,
                                           const rt::ResolvedTarget &t,
                                           const rt::CollectiveModel &links,
                                           const TuningOptions &probes) {
    int64_t rows = pair.rows / k;
    double allReduceNs =
        links
            .choose(collectiveQuery(*getCollectiveInfo(pair.allReduce),
                                    double(rows * pair.cols * pair.elementBytes),
                                    t))
            .ns;
    FailureOr<double> matmulNs = failure();
    if (k == 1) {
      matmulNs = scheduledAloneNs(pair.matmul, probes);
    } else {
      // Chunk 0 stands for all: built, timed alone, erased.
      OpBuilder b(pair.allReduce);
      AllReduceOp reduce = buildChunk(b, pair, k, 0);
      auto product = reduce.getInput().getDefiningOp<MatmulOp>();
      auto slice = product.getLhs().getDefiningOp<SliceOp>();
      matmulNs = scheduledAloneNs(product, probes);
      reduce.erase();
      product.erase();
      slice.erase();
    }
    if (failed(matmulNs))
      return std::nullopt;
    return pipeline(k, *matmulNs, allReduceNs);
  }

  void decide(RowParallelPair pair, const rt::ResolvedTarget &t,
              const rt::CollectiveModel &links, const TuningOptions &probes) {
    std::string what = llvm::formatv(
        "the {0}x{1} matmul's all_reduce of {2:f1} KiB", pair.rows, pair.cols,
        double(pair.rows * pair.cols * pair.elementBytes) / 1024);
    auto keep = [&](StringRef why, StringRef candidates) {
      if (summary)
        pair.allReduce.emitRemark()
            << "neuron-decompose-collectives: kept " << what << " whole: "
            << why << (candidates.empty() ? "" : " (") << candidates
            << (candidates.empty() ? "" : ")");
    };
    // The chunk counts to time: the one asked for, or those giving chunks
    // of at least kMinChunkRows.
    SmallVector<int64_t> counts;
    if (chunks > 1 && pair.rows % chunks == 0)
      counts.push_back(chunks);
    for (int64_t k = 2; chunks == 0 && k <= 16; k *= 2)
      if (pair.rows % k == 0 && pair.rows / k >= kMinChunkRows)
        counts.push_back(k);
    if (counts.empty())
      return keep(chunks > 1
                      ? llvm::formatv("{0} rows do not split into {1} chunks",
                                      pair.rows, int64_t(chunks))
                            .str()
                      : llvm::formatv("its {0} rows make no chunks of at "
                                      "least {1} rows",
                                      pair.rows, kMinChunkRows)
                            .str(),
                  "");
    std::optional<Prediction> whole = predict(pair, 1, t, links, probes);
    if (!whole)
      return keep("the matmul does not compile alone to be timed", "");
    std::string candidates = describe(*whole);
    std::optional<Prediction> best;
    for (int64_t k : counts) {
      std::optional<Prediction> p = predict(pair, k, t, links, probes);
      if (!p)
        continue;
      candidates += "; " + describe(*p);
      if (!best || p->ns < best->ns)
        best = p;
    }
    if (!best)
      return keep("a chunk's matmul does not compile alone to be timed",
                  candidates);
    if (chunks == 0 && best->ns > whole->ns * (1 - kMinGain))
      return keep(llvm::formatv("no split is predicted at least {0}% faster",
                                int(kMinGain * 100))
                      .str(),
                  candidates);
    if (summary)
      pair.allReduce.emitRemark() << llvm::formatv(
          "neuron-decompose-collectives: split {0} into {1} chunks of {2} "
          "rows: predicted {3:f1} us -> {4:f1} us; the chunks' all_reduces "
          "take {5:f1} us, {6:f1} us of it under later chunks' matmuls ({7})",
          what, best->chunks, pair.rows / best->chunks, whole->ns * 1e-3,
          best->ns * 1e-3, best->collectiveNs * 1e-3, best->hiddenNs * 1e-3,
          chunks > 1 ? "as chunks=" + std::to_string(chunks) + " asks"
                     : candidates);
    split(pair, best->chunks);
  }

  /// "4 chunks: matmul 36.8 us + all_reduce 25.9 us each, 139.6 us".
  static std::string describe(const Prediction &p) {
    return llvm::formatv("{0} chunk{1}: matmul {2:f1} us + all_reduce "
                         "{3:f1} us{4}, {5:f1} us",
                         p.chunks, p.chunks == 1 ? "" : "s",
                         p.matmulNs * 1e-3, p.allReduceNs * 1e-3,
                         p.chunks == 1 ? "" : " each", p.ns * 1e-3);
  }

  static void split(RowParallelPair pair, int64_t k) {
    OpBuilder b(pair.allReduce);
    SmallVector<Value> pieces;
    for (int64_t c = 0; c < k; ++c)
      pieces.push_back(buildChunk(b, pair, k, c));
    Value joined = ConcatOp::create(b, pair.allReduce.getLoc(),
                                    pair.allReduce.getType(), pieces,
                                    uint64_t(0));
    pair.allReduce.replaceAllUsesWith(joined);
    pair.allReduce.erase();
    pair.matmul.erase();
  }
};

} // namespace
