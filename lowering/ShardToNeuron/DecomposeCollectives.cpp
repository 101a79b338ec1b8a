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
#include "dialects/nisa/IR/NisaDialect.h"
#include "runtime/target/CollectiveModel.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONDECOMPOSECOLLECTIVES
#include "lowering/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
namespace rt = ::neuron::rt;

namespace {

/// The predicted gain a split must reach. The prediction times each
/// chunk's matmul alone (at its share of the whole one at least), so it
/// misses the overlap the whole matmul gets with the work merged around it
/// in its kernel: on the LLaMA-2-7B prefill layer (run_multicore.py)
/// splits predicted 2.5-6.6% faster ran slower (with a 5% margin: TP=2
/// 7064.8 -> 7094.2 us, TP=4 4273.2 -> 4377.0), and those predicted 14-25%
/// faster gained a small part of it (TP=8 5298.3 -> 5282.7 us).
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

/// The pair `allReduce` ends, when it sums a matmul's partial products
/// that nothing else reads, on static shapes.
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

/// What times a pair: its operand types and producers (a transpose is
/// read as a view), and its group.
std::string signatureOf(RowParallelPair pair) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (Value operand : {pair.matmul.getLhs(), pair.matmul.getRhs()}) {
    os << operand.getType() << " from ";
    if (Operation *def = operand.getDefiningOp())
      os << def->getName() << def->getAttrDictionary()
         << def->getPropertiesAsAttribute();
  }
  os << pair.allReduce.getType() << " grid";
  for (int64_t size : pair.allReduce.getGrid())
    os << " " << size;
  os << " axes";
  for (int64_t axis : pair.allReduce.getGridAxes())
    os << " " << axis;
  return text;
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

/// The matmul of rows [c * rows, (c + 1) * rows) of the pair's left
/// operand (chunk `c` of `k`), built at `b`.
MatmulOp buildChunkMatmul(OpBuilder &b, RowParallelPair pair, int64_t k,
                          int64_t c) {
  MatmulOp matmul = pair.matmul;
  int64_t rows = pair.rows / k;
  auto lhsType = cast<RankedTensorType>(matmul.getLhs().getType());
  Type lhsChunk = lhsType.clone({rows, lhsType.getDimSize(1)});
  Type resultChunk = pair.allReduce.getType().clone({rows, pair.cols});
  Value lhs = SliceOp::create(b, matmul.getLoc(), lhsChunk, matmul.getLhs(),
                              ArrayRef<int64_t>{c * rows, 0},
                              ArrayRef<int64_t>{1, 1});
  return MatmulOp::create(b, matmul.getLoc(), resultChunk, lhs,
                          matmul.getRhs());
}

/// Replaces the pair by `k` chunks, each a matmul and its all-reduce,
/// joined along the rows.
void split(RowParallelPair pair, int64_t k) {
  AllReduceOp allReduce = pair.allReduce;
  OpBuilder b(allReduce);
  SmallVector<Value> pieces;
  for (int64_t c = 0; c < k; ++c) {
    MatmulOp product = buildChunkMatmul(b, pair, k, c);
    pieces.push_back(AllReduceOp::create(
        b, allReduce.getLoc(), product.getType(), product,
        allReduce.getGridAttr(), allReduce.getGridAxesAttr(),
        allReduce.getReductionAttr()));
  }
  Value joined = ConcatOp::create(b, allReduce.getLoc(), allReduce.getType(),
                                  pieces, uint64_t(0));
  allReduce.replaceAllUsesWith(joined);
  allReduce.erase();
  pair.matmul.erase();
}

/// "4 chunks: matmul 36.8 us + all_reduce 25.9 us each, 139.6 us".
std::string describe(const Prediction &p) {
  return llvm::formatv("{0} chunk{1}: matmul {2:f1} us + all_reduce "
                       "{3:f1} us{4}, {5:f1} us",
                       p.chunks, p.chunks == 1 ? "" : "s", p.matmulNs * 1e-3,
                       p.allReduceNs * 1e-3, p.chunks == 1 ? "" : " each",
                       p.ns * 1e-3);
}

/// "predicted 225.8 us -> 178.1 us; the chunks' all_reduces take ...".
std::string gainOf(const Prediction &whole, const Prediction &parts) {
  return llvm::formatv("predicted {0:f1} us -> {1:f1} us; the chunks' "
                       "all_reduces take {2:f1} us, {3:f1} us of it under "
                       "later chunks' matmuls",
                       whole.ns * 1e-3, parts.ns * 1e-3,
                       parts.collectiveNs * 1e-3, parts.hiddenNs * 1e-3);
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
    Context context{loaded->target, *links,
                    loaded->target.sbufPartitions(), {}, {}};
    context.probes.target = loaded->target.spec();
    context.probes.targetDir = targetDir;
    context.probes.buffers = buffers;
    for (RowParallelPair pair : pairs)
      decide(pair, context);
  }

private:
  /// What timing a pair needs, and the predictions made so far by
  /// signature and chunks: a layer's pairs repeat in every layer.
  struct Context {
    const rt::ResolvedTarget &target;
    const rt::CollectiveModel &links;
    /// The fewest rows a chosen chunk has: the tensor engine's rows (the
    /// partitions). Fewer would leave the array idle.
    int64_t minChunkRows;
    TuningOptions probes;
    std::map<std::pair<std::string, int64_t>, std::optional<Prediction>>
        predicted;
  };

  /// The prediction for `k` chunks, or nullopt when a chunk's matmul does
  /// not compile alone. A chunk's matmul is built, timed and erased.
  static std::optional<Prediction> predict(RowParallelPair pair, int64_t k,
                                           Context &context) {
    auto key = std::make_pair(signatureOf(pair), k);
    if (auto it = context.predicted.find(key); it != context.predicted.end())
      return it->second;
    int64_t rows = pair.rows / k;
    double allReduceNs =
        context.links
            .choose(collectiveQuery(
                *getCollectiveInfo(pair.allReduce),
                double(rows * pair.cols * pair.elementBytes), context.target))
            .ns;
    FailureOr<double> matmulNs = failure();
    if (k == 1) {
      matmulNs = scheduledAloneNs(pair.matmul, context.probes);
    } else if (std::optional<Prediction> whole = predict(pair, 1, context)) {
      // Chunk 0 stands for all. It is not taken to run faster than its
      // share of the whole matmul: timed alone, a smaller matmul may
      // schedule better, but in the program the whole one shares its
      // kernel with the work around it, and the chunks lose that.
      OpBuilder b(pair.allReduce);
      MatmulOp product = buildChunkMatmul(b, pair, k, 0);
      Operation *slice = product.getLhs().getDefiningOp();
      matmulNs = scheduledAloneNs(product, context.probes);
      product.erase();
      slice->erase();
      if (succeeded(matmulNs))
        matmulNs = std::max(*matmulNs, whole->matmulNs / double(k));
    }
    std::optional<Prediction> out;
    if (succeeded(matmulNs))
      out = pipeline(k, *matmulNs, allReduceNs);
    context.predicted[key] = out;
    return out;
  }

  /// The chunk counts to consider: the one asked for, or those giving
  /// chunks of at least `minRows`.
  SmallVector<int64_t> candidateCounts(int64_t rows, int64_t minRows) const {
    SmallVector<int64_t> counts;
    if (chunks > 1 && rows % chunks == 0)
      counts.push_back(chunks);
    for (int64_t k = 2; chunks == 0 && k <= 16; k *= 2)
      if (rows % k == 0 && rows / k >= minRows)
        counts.push_back(k);
    return counts;
  }

  void decide(RowParallelPair pair, Context &context) {
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
    SmallVector<int64_t> counts =
        candidateCounts(pair.rows, context.minChunkRows);
    if (counts.empty())
      return keep(chunks > 1
                      ? llvm::formatv("{0} rows do not split into {1} chunks",
                                      pair.rows, int64_t(chunks))
                            .str()
                      : llvm::formatv("its {0} rows make no chunks of at "
                                      "least {1} rows",
                                      pair.rows, context.minChunkRows)
                            .str(),
                  "");
    if (chunks > 1)
      return splitAsAsked(pair, what, context);
    std::optional<Prediction> whole = predict(pair, 1, context);
    if (!whole)
      return keep("the matmul does not compile alone to be timed", "");
    std::string candidates = describe(*whole);
    std::optional<Prediction> best;
    for (int64_t k : counts) {
      std::optional<Prediction> p = predict(pair, k, context);
      if (!p)
        continue;
      candidates += "; " + describe(*p);
      if (!best || p->ns < best->ns)
        best = p;
    }
    if (!best)
      return keep("no chunk's matmul compiles alone to be timed",
                  candidates);
    if (best->ns > whole->ns * (1 - kMinGain))
      return keep(llvm::formatv("no split is predicted at least {0}% faster",
                                int(kMinGain * 100))
                      .str(),
                  candidates);
    if (summary)
      pair.allReduce.emitRemark()
          << "neuron-decompose-collectives: split " << what << " into "
          << best->chunks << " chunks of " << pair.rows / best->chunks
          << " rows: " << gainOf(*whole, *best) << " (" << candidates << ")";
    split(pair, best->chunks);
  }

  /// Splits into `chunks` as the option asks, with the predictions in the
  /// remark where the pieces can be timed.
  void splitAsAsked(RowParallelPair pair, StringRef what, Context &context) {
    if (summary) {
      std::optional<Prediction> whole = predict(pair, 1, context),
                                parts = predict(pair, chunks, context);
      InFlightDiagnostic remark = pair.allReduce.emitRemark()
                                  << "neuron-decompose-collectives: split "
                                  << what << " into " << int64_t(chunks)
                                  << " chunks of " << pair.rows / chunks
                                  << " rows, as chunks=" << int64_t(chunks)
                                  << " asks";
      if (whole && parts)
        remark << ": " << gainOf(*whole, *parts);
    }
    split(pair, chunks);
  }
};

} // namespace
