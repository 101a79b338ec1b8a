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

TEST(CostModel, MatmulRateMatchesThePublishedPeak) {
  Models m = resolve("trn2");
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

TEST(CostModel, DmaAndVectorTimes) {
  Models m = resolve("trn2");
  absl::StatusOr<CostModel> model = CostModel::forTarget(m.target);
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(model->dmaQueues(), 16);
  CostQuery dma = costQueryFor("dma_copy", {"bf16", 2, 128, 128 * 512},
                               {"bf16", 2, 128, 128 * 512});
  EXPECT_EQ(dma.kind, CostQuery::Kind::Dma);
  EXPECT_NEAR(model->nanoseconds(dma), 200 + 131072 / 23.0, 1e-9);
  CostQuery add = costQueryFor("tensor_tensor", {"f32", 4, 128, 128 * 512},
                               {"f32", 4, 128, 128 * 512});
  EXPECT_NEAR(model->nanoseconds(add), (64 + 512) / 0.96, 1e-9);
  // One core's share of trn2's 2.9 TB/s over 8 physical cores.
  EXPECT_NEAR(model->hbmBytesPerNs(), 2900.0 / 8, 1e-9);
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
  CollectiveChoice c = model->choose(q);
  EXPECT_EQ(c.algorithm, CollectiveAlgorithm::HalvingDoubling);
  EXPECT_EQ(c.chunks, 1);
}

TEST(CollectiveModel, NonPowerOfTwoGroupsUseTheRing) {
  Models m = resolve("trn2.48xlarge");
  absl::StatusOr<CollectiveModel> model = CollectiveModel::forTarget(m.target);
  ASSERT_TRUE(model.ok());
  CollectiveQuery q{CollectiveOp::AllGather, 1 << 20, 3, 1};
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

} // namespace
