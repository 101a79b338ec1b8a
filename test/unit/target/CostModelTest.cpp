//===- CostModelTest.cpp - instruction and collective cost models ---------===//

#include "runtime/target/CollectiveModel.h"
#include "runtime/target/CostModel.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace neuron::rt;

namespace {

struct Models {
  TargetRegistry registry;
  ResolvedTarget target;
};

Models resolve(const char *spec) {
  absl::StatusOr<TargetRegistry> r = TargetRegistry::loadBuiltin();
  EXPECT_TRUE(r.ok());
  Models m{*std::move(r), {}};
  absl::StatusOr<ResolvedTarget> t = m.registry.resolve(spec);
  EXPECT_TRUE(t.ok()) << t.status();
  m.target = *t;
  return m;
}

// One physical core (lnc=1): the published per-core figures.
TEST(CostModel, MatmulRateMatchesThePublishedPeak) {
  Models m = resolve("trn2,lnc=1");
  absl::StatusOr<CostModel> model = CostModel::forTarget(m.target);
  ASSERT_TRUE(model.ok()) << model.status();
  // 2 x 128 x 128 x 2.4 GHz / cycles-per-column = 79 TFLOPS for bf16.
  EXPECT_NEAR(model->tensorPeakOpsPerNs("bf16"), 79e3, 1);
  EXPECT_NEAR(model->tensorPeakOpsPerNs("f32"), 20e3, 1);
  CostQuery q;
  q.kind = CostQuery::Kind::Matmul;
  q.dtype = "bf16";
  q.columns = 512;
  double cycles = 2.0 * 128 * 128 * 2.4e9 / 79e12;
  EXPECT_NEAR(model->nanoseconds(q), (32 + 512 * cycles) / 2.4, 1e-9);
}

// trn2's FP8 peak (158 TFLOPS per core) is the double-row mode's: a matmul
// contracting two K rows per partition streams its 2 x N columns at that
// rate, one contracting a single row at half of it (the BF16 rate); trn1
// publishes its FP8 rate for plain matmuls.
TEST(CostModel, Fp8PeakIsTheDoubleRowModes) {
  Models m = resolve("trn2,lnc=1");
  absl::StatusOr<CostModel> model = CostModel::forTarget(m.target);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_NEAR(model->tensorPeakOpsPerNs("f8E4M3FN"), 158e3, 1);
  double fp8 = 2.0 * 128 * 128 * 2.4e9 / 158e12;
  CostQuery q;
  q.kind = CostQuery::Kind::Matmul;
  q.dtype = "f8E4M3FN";
  q.columns = 512;
  EXPECT_NEAR(model->nanoseconds(q), (32 + 512 * 2 * fp8) / 2.4, 1e-9);
  CostQuery bf16 = q;
  bf16.dtype = "bf16";
  EXPECT_NEAR(model->nanoseconds(q), model->nanoseconds(bf16), 0.01);
  q.rows = 2;
  q.columns = 2 * 512;
  EXPECT_NEAR(model->nanoseconds(q), (32 + 1024 * fp8) / 2.4, 1e-9);
  // A transpose is a single-row pass.
  CostQuery t;
  t.kind = CostQuery::Kind::Transpose;
  t.dtype = "f8E5M2";
  t.columns = 128;
  EXPECT_NEAR(model->nanoseconds(t), (32 + 128 * 2 * fp8) / 2.4, 1e-9);

  Models v2 = resolve("trn1");
  absl::StatusOr<CostModel> trn1 = CostModel::forTarget(v2.target);
  ASSERT_TRUE(trn1.ok()) << trn1.status();
  q.rows = 1;
  q.columns = 512;
  double cycles = 2.0 * 128 * 128 * 2.8e9 / (trn1->tensorPeakOpsPerNs("f8E4M3FN") * 1e9);
  EXPECT_NEAR(trn1->nanoseconds(q), (32 + 512 * cycles) / 2.8, 1e-9);
}

// NeuronCore-v3's tensor engine has a transpose mode, "2x speedup in FP32
// transpose" (NKI Trainium2 architecture guide): an FP32 transpose streams
// its columns at twice the FP32 matmul's rate there; NeuronCore-v2 (trn1)
// transposes as a matmul with the identity, at the FP32 rate.
TEST(CostModel, Fp32TransposeModeHalvesItsColumnsFromNeuronCoreV3) {
  CostQuery t;
  t.kind = CostQuery::Kind::Transpose;
  t.dtype = "f32";
  t.columns = 128;
  CostQuery matmul = t;
  matmul.kind = CostQuery::Kind::Matmul;

  Models v3 = resolve("trn2,lnc=1");
  absl::StatusOr<CostModel> trn2 = CostModel::forTarget(v3.target);
  ASSERT_TRUE(trn2.ok()) << trn2.status();
  double f32 = 2.0 * 128 * 128 * 2.4e9 / 20e12;
  EXPECT_NEAR(trn2->nanoseconds(matmul), (32 + 128 * f32) / 2.4, 1e-9);
  EXPECT_NEAR(trn2->nanoseconds(t), (32 + 128 * f32 / 2) / 2.4, 1e-9);
  // Other dtypes transpose at their matmul rate (one row for FP8).
  t.dtype = matmul.dtype = "bf16";
  EXPECT_NEAR(trn2->nanoseconds(t), trn2->nanoseconds(matmul), 1e-9);

  Models v2 = resolve("trn1");
  absl::StatusOr<CostModel> trn1 = CostModel::forTarget(v2.target);
  ASSERT_TRUE(trn1.ok()) << trn1.status();
  t.dtype = matmul.dtype = "f32";
  EXPECT_NEAR(trn1->nanoseconds(t), trn1->nanoseconds(matmul), 1e-9);
  // The mode also writes a transpose's own dtype to PSUM (the lowering's
  // transposedType); without it, a matmul's FP32.
  EXPECT_TRUE(trn2->transposeMode());
  EXPECT_FALSE(trn1->transposeMode());
}

TEST(CostModel, DmaAndVectorTimes) {
  Models m = resolve("trn2,lnc=1");
  absl::StatusOr<CostModel> model = CostModel::forTarget(m.target);
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(model->dmaEngines(), 16);
  CostQuery dma = costQueryFor("dma_copy", {"bf16", 2, 128, 128 * 512},
                               {"bf16", 2, 128, 128 * 512});
  EXPECT_EQ(dma.kind, CostQuery::Kind::Dma);
  // One descriptor per partition, each costing 224 bytes' time.
  EXPECT_EQ(dma.descriptors, 128);
  EXPECT_NEAR(model->nanoseconds(dma), 200 + (131072 + 128 * 224) / 23.0,
              1e-9);
  CostQuery add = costQueryFor("tensor_tensor", {"f32", 4, 128, 128 * 512},
                               {"f32", 4, 128, 128 * 512});
  EXPECT_NEAR(model->nanoseconds(add), (64 + 512) / 0.96, 1e-9);
  // One core's share of trn2's 2.9 TB/s over 8 physical cores.
  EXPECT_NEAR(model->hbmBytesPerNs(), 2900.0 / 8, 1e-9);
}

// A logical core of two physical cores (trn2's default lnc=2): each
// instruction's streaming splits over both cores' engines, its fixed cycles
// are paid once, and the queues, HBM share and peak double.
TEST(CostModel, LogicalCoreOfTwoRunsEachInstructionOnOnePhysicalCore) {
  // trn2's default lnc=2: two physical cores, each running its own
  // instructions on its own engines and 16 DMA engines; one instruction
  // takes one physical core's time, and the HBM share is both cores'.
  Models m = resolve("trn2");
  absl::StatusOr<CostModel> model = CostModel::forTarget(m.target);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->physicalCores(), 2);
  EXPECT_NEAR(model->tensorPeakOpsPerNs("bf16"), 79e3, 1);
  CostQuery q;
  q.kind = CostQuery::Kind::Matmul;
  q.dtype = "bf16";
  q.columns = 512;
  double cycles = 2.0 * 128 * 128 * 2.4e9 / 79e12;
  EXPECT_NEAR(model->nanoseconds(q), (32 + 512 * cycles) / 2.4, 1e-9);
  CostQuery add = costQueryFor("tensor_tensor", {"f32", 4, 128, 128 * 512},
                               {"f32", 4, 128, 128 * 512});
  EXPECT_NEAR(model->nanoseconds(add), (64 + 512.0) / 0.96, 1e-9);
  CostQuery dma = costQueryFor("dma_copy", {"bf16", 2, 128, 128 * 512},
                               {"bf16", 2, 128, 128 * 512});
  EXPECT_NEAR(model->nanoseconds(dma), 200 + (131072 + 128 * 224) / 23.0,
              1e-9);
  EXPECT_EQ(model->dmaEngines(), 16);
  EXPECT_NEAR(model->hbmBytesPerNs(), 2 * 2900.0 / 8, 1e-9);
}

// The NKI DMA bandwidth guide (nki/deep-dives/nki-dma-bandwidth-guide.rst)
// describes DMA efficiency by bytes per partition: under 256 B "severely
// overhead-bound", 2 KiB "approaching peak", 4 KiB "full saturation"; the
// DMA overview (nki/about/nki-dma-overview.rst) times a [4, 4096] bf16
// transfer on one trn2 engine at 1416 ns. The model of every chip meets
// those words and that example.
TEST(CostModel, DmaEfficiencyFollowsThePublishedCurve) {
  for (const char *chip : {"trn1", "inf2", "trn2", "trn3"}) {
    SCOPED_TRACE(chip);
    Models m = resolve(chip);
    absl::StatusOr<CostModel> model = CostModel::forTarget(m.target);
    ASSERT_TRUE(model.ok()) << model.status();
    EXPECT_LT(model->dmaEfficiency(128), 0.4);
    EXPECT_LT(model->dmaEfficiency(256), 0.55);
    EXPECT_GE(model->dmaEfficiency(2048), 0.88);
    EXPECT_LT(model->dmaEfficiency(2048), 0.93);
    EXPECT_GE(model->dmaEfficiency(4096), 0.945);
    // The efficiency rises with the run.
    for (double run = 2; run < 65536; run *= 2)
      EXPECT_LT(model->dmaEfficiency(run), model->dmaEfficiency(2 * run));
  }
  Models m = resolve("trn2,lnc=1");
  absl::StatusOr<CostModel> model = CostModel::forTarget(m.target);
  ASSERT_TRUE(model.ok());
  CostQuery example = costQueryFor("dma_copy", {"bf16", 2, 4, 4 * 4096},
                                   {"bf16", 2, 4, 4 * 4096});
  double streaming =
      model->dmaStreamBytes(example) / model->dmaEngineBytesPerNs();
  EXPECT_NEAR(streaming, 1416, 0.05 * 1416);
}

// A transposed load reads one element per run: a descriptor each.
TEST(CostModel, ElementStridedTransfersPayPerElement) {
  Models m = resolve("trn2,lnc=1");
  absl::StatusOr<CostModel> model = CostModel::forTarget(m.target);
  ASSERT_TRUE(model.ok());
  // lhs^T[128 K, 128 M] from a row-major [M, 4096] bf16 lhs.
  int64_t sizes[] = {128, 128}, transposed[] = {1, 4096}, rows[] = {4096, 1};
  EXPECT_EQ(contiguousRun(sizes, transposed, 2), 1);
  EXPECT_EQ(contiguousRun(sizes, rows, 2), 128);
  OperandShape tile{"bf16", 2, 128, 128 * 128};
  OperandShape strided = tile, contiguous = tile;
  strided.run = 1;
  contiguous.run = 128;
  CostQuery slow = costQueryFor("dma_copy", tile, strided);
  CostQuery fast = costQueryFor("dma_copy", tile, contiguous);
  EXPECT_EQ(slow.descriptors, 128 * 128);
  EXPECT_EQ(fast.descriptors, 128);
  EXPECT_GT(model->nanoseconds(slow), 50 * model->nanoseconds(fast));
  // Size-1 dimensions never break a run; a broadcast (stride 0) does.
  int64_t padded[] = {1, 8, 1, 16}, steps[] = {7, 16, 5, 1};
  EXPECT_EQ(contiguousRun(padded, steps, 4), 128);
  int64_t bcast[] = {8, 16}, zero[] = {0, 1};
  EXPECT_EQ(contiguousRun(bcast, zero, 2), 16);
}

// The Trainium2 architecture guide: a DMA transpose (2-byte elements,
// NeuronCore-v3 and later) runs at up to about 90% of a copy's throughput;
// trn1 has none, so the same pattern pays a descriptor per element.
TEST(CostModel, DmaTransposeWhereTheGenerationHasIt) {
  int64_t sizes[] = {128, 128}, transposed[] = {1, 4096}, rows[] = {4096, 1};
  EXPECT_TRUE(isTransposedPattern(sizes, transposed, 2));
  EXPECT_FALSE(isTransposedPattern(sizes, rows, 2));
  int64_t column[] = {128, 1}, steps[] = {4096, 1};
  EXPECT_FALSE(isTransposedPattern(column, steps, 2));
  OperandShape tile{"bf16", 2, 128, 128 * 128}, strided = tile;
  strided.run = 1;
  strided.transposed = true;
  CostQuery q = costQueryFor("dma_copy", tile, strided);
  EXPECT_TRUE(q.transposes);
  Models trn2 = resolve("trn2,lnc=1"), trn1 = resolve("trn1");
  absl::StatusOr<CostModel> v3 = CostModel::forTarget(trn2.target);
  absl::StatusOr<CostModel> v2 = CostModel::forTarget(trn1.target);
  ASSERT_TRUE(v3.ok() && v2.ok());
  EXPECT_NEAR(v3->nanoseconds(q), 200 + 32768 / (0.9 * 23), 1.0);
  EXPECT_NEAR(v2->dmaStreamBytes(q), 32768 + 16384.0 * 224, 1e-6);
  // 4-byte elements have no DMA transpose.
  OperandShape wide{"f32", 4, 128, 128 * 128}, wideStrided = wide;
  wideStrided.run = 1;
  wideStrided.transposed = true;
  EXPECT_FALSE(costQueryFor("dma_copy", wide, wideStrided).transposes);
}

// FP8 pairs side by side are 2-byte units: lhs[m, 2k + r] read as
// [k, m, r] (a double-row stationary's rows) is a DMA transpose of them,
// timed as the 2-byte transpose of the same bytes; a lone FP8 element
// (r of size 1) or an odd row stride is not one.
TEST(CostModel, Fp8PairsTransposeAsTwoByteUnits) {
  int64_t sizes[] = {128, 128, 2}, pairs[] = {2, 4096, 1};
  EXPECT_TRUE(isPairTransposedPattern(sizes, pairs, 3));
  EXPECT_FALSE(isTransposedPattern(sizes, pairs, 3));
  int64_t odd[] = {2, 4095, 1}, single[] = {128, 128, 1},
          steps[] = {2, 4096, 1}, apart[] = {2, 4096, 2};
  EXPECT_FALSE(isPairTransposedPattern(sizes, odd, 3));
  EXPECT_FALSE(isPairTransposedPattern(single, steps, 3));
  EXPECT_FALSE(isPairTransposedPattern(sizes, apart, 3));
  OperandShape hbm = operandShapeOf("f8E4M3FN", 1, sizes, 3, pairs, false);
  EXPECT_TRUE(hbm.transposed && hbm.transposedPairs);
  OperandShape tile = operandShapeOf("f8E4M3FN", 1, sizes, 3, nullptr, true);
  CostQuery q = costQueryFor("dma_copy", tile, hbm);
  EXPECT_TRUE(q.transposes);
  Models trn2 = resolve("trn2,lnc=1");
  absl::StatusOr<CostModel> model = CostModel::forTarget(trn2.target);
  ASSERT_TRUE(model.ok());
  EXPECT_NEAR(model->nanoseconds(q), 200 + 32768 / (0.9 * 23), 1.0);
  // Pairs of 2-byte elements are not a 2-byte transpose.
  OperandShape wide = operandShapeOf("bf16", 2, sizes, 3, pairs, false);
  EXPECT_FALSE(wide.transposed);
}

// The NKI performance guide: strides over 16 bytes halve an engine's
// bandwidth. A 2x2 pooling window's tap of f32 steps 8 bytes: full rate;
// one of every fifth element steps 20 bytes: half.
TEST(CostModel, WideOnChipStridesHalveTheEngineRate) {
  Models m = resolve("trn2,lnc=1");
  absl::StatusOr<CostModel> model = CostModel::forTarget(m.target);
  ASSERT_TRUE(model.ok());
  int64_t sizes[] = {8, 64}, steps[] = {256, 2};
  EXPECT_EQ(innermostStep(sizes, steps, 2), 2);
  int64_t column[] = {8, 1};
  EXPECT_EQ(innermostStep(column, steps, 2), 256);
  OperandShape tile{"f32", 4, 128, 128 * 512}, narrow = tile, wide = tile;
  narrow.strideBytes = 8;
  wide.strideBytes = 20;
  CostQuery contiguous = costQueryFor("tensor_scalar", tile, tile);
  EXPECT_FALSE(costQueryFor("tensor_scalar", tile, narrow).wideStride);
  CostQuery halved = costQueryFor("tensor_scalar", tile, wide);
  EXPECT_TRUE(halved.wideStride);
  EXPECT_NEAR(model->nanoseconds(contiguous), (64 + 512) / 0.96, 1e-9);
  EXPECT_NEAR(model->nanoseconds(halved), (64 + 2 * 512) / 0.96, 1e-9);
  // A written operand counts too; a DMA pays by its runs instead.
  EXPECT_TRUE(costQueryFor("activation", wide, tile).wideStride);
  CostQuery dma = costQueryFor("dma_copy", tile, wide);
  EXPECT_DOUBLE_EQ(model->nanoseconds(dma),
                   model->nanoseconds(costQueryFor("dma_copy", tile, tile)));
}

// nisa-schedule cuts a transfer into pieces of at least one fixed cost of
// streaming each (200 ns on trn2), or four where the DMA engines bound the
// kernel, at most one per DMA engine.
TEST(CostModel, TransferPieces) {
  Models m = resolve("trn2,lnc=1");
  absl::StatusOr<CostModel> model = CostModel::forTarget(m.target);
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(model->transferPieces(100, false), 1);
  EXPECT_EQ(model->transferPieces(399, false), 1);
  EXPECT_EQ(model->transferPieces(400, false), 2);
  EXPECT_EQ(model->transferPieces(1599, false), 7);
  EXPECT_EQ(model->transferPieces(1599, true), 1);
  EXPECT_EQ(model->transferPieces(1600, true), 2);
  EXPECT_EQ(model->transferPieces(1e9, false), 16);
  EXPECT_EQ(model->transferPieces(1e9, true), 16);
}

TEST(CollectiveModel, RingAndHalvingDoublingInClosedForm) {
  Models m = resolve("trn2.48xlarge");
  absl::StatusOr<CollectiveModel> model = CollectiveModel::forTarget(m.target);
  ASSERT_TRUE(model.ok()) << model.status();
  // lnc=2: a logical core has two physical cores' 16 DMA engines at 23 B/ns.
  EXPECT_NEAR(model->intraChipBytesPerNs(), 2 * 16 * 23.0, 1e-9);
  CollectiveQuery q{CollectiveOp::AllReduce, 1 << 20, 4, 1};
  double bytes = 2.0 * 3 / 4 * (1 << 20) / model->intraChipBytesPerNs();
  EXPECT_NEAR(model->ns(q, CollectiveAlgorithm::Ring), 6 * 1000 + bytes,
              1e-6);
  EXPECT_NEAR(model->ns(q, CollectiveAlgorithm::HalvingDoubling),
              4 * 1000 + bytes, 1e-6);
  EXPECT_TRUE(std::isinf(model->ns(q, CollectiveAlgorithm::Hierarchical)));
  // Mesh: every core exchanges with all the others at once, one step per
  // phase (a reduce-scatter, then an all-gather), the same bytes.
  EXPECT_NEAR(model->ns(q, CollectiveAlgorithm::Mesh), 2 * 1000 + bytes,
              1e-6);
  CollectiveChoice c = model->choose(q);
  EXPECT_EQ(c.algorithm, CollectiveAlgorithm::Mesh);
  EXPECT_EQ(algorithmName(c.algorithm), "mesh");
  EXPECT_EQ(c.chunks, 1);
  // An all-gather is one phase.
  CollectiveQuery gather{CollectiveOp::AllGather, 1 << 20, 4, 1};
  EXPECT_NEAR(model->ns(gather, CollectiveAlgorithm::Mesh),
              1000 + bytes / 2, 1e-6);
}

TEST(CollectiveModel, MeshStaysWithinAChip) {
  Models m = resolve("trn2.48xlarge");
  absl::StatusOr<CollectiveModel> model = CollectiveModel::forTarget(m.target);
  ASSERT_TRUE(model.ok());
  // Across chips the cores do not all reach each other directly.
  CollectiveQuery q{CollectiveOp::AllReduce, 1 << 20, 8, 2};
  EXPECT_TRUE(std::isinf(model->ns(q, CollectiveAlgorithm::Mesh)));
  EXPECT_NE(model->choose(q).algorithm, CollectiveAlgorithm::Mesh);
  // The hierarchical algorithm's phases within each chip are meshes: one
  // step each, over the chip's 4 cores.
  double piece = double(1 << 20);
  double inner = 1000 + piece * 3 / 4 / model->intraChipBytesPerNs();
  double outer =
      2 * 3000 + 2 * (piece / 4) / 2 / model->interChipBytesPerNs(4);
  EXPECT_NEAR(model->ns(q, CollectiveAlgorithm::Hierarchical),
              2 * inner + outer, 1e-6);
}

TEST(CollectiveModel, NonPowerOfTwoGroupsAcrossChipsUseTheRing) {
  Models m = resolve("trn2.48xlarge");
  absl::StatusOr<CollectiveModel> model = CollectiveModel::forTarget(m.target);
  ASSERT_TRUE(model.ok());
  // Three chips of one core each: no halving-doubling (3 is no power of
  // two), no mesh (across chips), no hierarchy (one core per chip).
  CollectiveQuery q{CollectiveOp::AllGather, 1 << 20, 3, 3};
  EXPECT_TRUE(
      std::isinf(model->ns(q, CollectiveAlgorithm::HalvingDoubling)));
  EXPECT_EQ(model->choose(q).algorithm, CollectiveAlgorithm::Ring);
  CollectiveQuery alone{CollectiveOp::AllReduce, 1 << 20, 1, 1};
  EXPECT_EQ(model->ns(alone, CollectiveAlgorithm::Ring), 0);
}

TEST(CollectiveModel, LargeMultiChipReductionsGoHierarchical) {
  Models m = resolve("trn2.48xlarge");
  absl::StatusOr<CollectiveModel> model = CollectiveModel::forTarget(m.target);
  ASSERT_TRUE(model.ok());
  CollectiveQuery q{CollectiveOp::AllReduce, 64.0 * (1 << 20), 16, 4};
  CollectiveChoice c = model->choose(q);
  EXPECT_EQ(c.algorithm, CollectiveAlgorithm::Hierarchical);
  EXPECT_GT(c.chunks, 1);
  EXPECT_LT(c.ns, model->ns(q, CollectiveAlgorithm::Ring));
  EXPECT_NE(c.candidates.find("ring"), std::string::npos);
}

TEST(CollectiveModel, AllSliceIsALocalCopyOfEachCoresPart) {
  Models m = resolve("trn2.48xlarge");
  absl::StatusOr<CollectiveModel> model = CollectiveModel::forTarget(m.target);
  ASSERT_TRUE(model.ok());
  // One intra-chip step copying the core's quarter at its DMA bandwidth.
  CollectiveQuery q{CollectiveOp::AllSlice, 1 << 20, 4, 1};
  double local = 1000 + (1 << 20) / 4.0 / (2 * 16 * 23.0);
  EXPECT_NEAR(model->ns(q, CollectiveAlgorithm::Local), local, 1e-6);
  for (CollectiveAlgorithm a :
       {CollectiveAlgorithm::Ring, CollectiveAlgorithm::HalvingDoubling,
        CollectiveAlgorithm::Mesh, CollectiveAlgorithm::Hierarchical})
    EXPECT_TRUE(std::isinf(model->ns(q, a))) << algorithmName(a);
  CollectiveChoice c = model->choose(q);
  EXPECT_EQ(c.algorithm, CollectiveAlgorithm::Local);
  EXPECT_EQ(algorithmName(c.algorithm), "local");
  EXPECT_EQ(c.chunks, 1);
  EXPECT_NEAR(c.ns, local, 1e-6);
  EXPECT_EQ(c.candidates, "local 1.4 us");
  // Even alone (nothing to do, like every collective of one core) it stays
  // local, and no other kind is.
  CollectiveQuery alone{CollectiveOp::AllSlice, 1 << 20, 1, 1};
  EXPECT_EQ(model->choose(alone).algorithm, CollectiveAlgorithm::Local);
  EXPECT_EQ(model->ns(alone, CollectiveAlgorithm::Local), 0);
  EXPECT_TRUE(std::isinf(model->ns(alone, CollectiveAlgorithm::Ring)));
  CollectiveQuery reduce{CollectiveOp::ReduceScatter, 1 << 20, 4, 1};
  EXPECT_TRUE(std::isinf(model->ns(reduce, CollectiveAlgorithm::Local)));
  EXPECT_EQ(model->choose(reduce).candidates.find("local"), std::string::npos);
  EXPECT_TRUE(
      algorithmFits(CollectiveOp::AllSlice, CollectiveAlgorithm::Local));
  EXPECT_FALSE(
      algorithmFits(CollectiveOp::AllToAll, CollectiveAlgorithm::Local));
  EXPECT_FALSE(
      algorithmFits(CollectiveOp::AllSlice, CollectiveAlgorithm::Ring));
}

TEST(CollectiveModel, AllSliceIgnoresChipsAndLinks) {
  // trn1n.32xlarge doubles trn1.32xlarge's NeuronLink; the chips are the
  // same. A ring pays for the link, all_slice on any number of chips not.
  Models slow = resolve("trn1.32xlarge"), fast = resolve("trn1n.32xlarge");
  absl::StatusOr<CollectiveModel> a = CollectiveModel::forTarget(slow.target);
  absl::StatusOr<CollectiveModel> b = CollectiveModel::forTarget(fast.target);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->intraChipBytesPerNs(), b->intraChipBytesPerNs());
  ASSERT_LT(a->interChipBytesPerNs(2), b->interChipBytesPerNs(2));
  double local = 1000 + 64.0 * (1 << 20) / 16 / a->intraChipBytesPerNs();
  for (int chips : {1, 2, 8, 16}) {
    CollectiveQuery q{CollectiveOp::AllSlice, 64.0 * (1 << 20), 16, chips};
    EXPECT_NEAR(a->ns(q, CollectiveAlgorithm::Local), local, 1e-6) << chips;
    EXPECT_NEAR(b->choose(q).ns, local, 1e-6) << chips;
  }
  CollectiveQuery gather{CollectiveOp::AllGather, 64.0 * (1 << 20), 16, 8};
  EXPECT_GT(a->ns(gather, CollectiveAlgorithm::Ring),
            b->ns(gather, CollectiveAlgorithm::Ring));
}

} // namespace
