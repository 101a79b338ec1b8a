//===- BucketsTest.cpp - Tests for running shape buckets ------------------===//
//
// Padding inputs to a bucket's size and trimming results to the length
// (resizeTensor), and the length the given inputs hold (inputLength).
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/Buckets.h"
#include "runtime/sim/Numerics.h"

#include "gtest/gtest.h"

using namespace neuron::rt;

namespace {

Tensor f32(std::vector<int64_t> shape, std::vector<float> values) {
  Tensor t{"f32", std::move(shape), std::vector<uint8_t>(values.size() * 4)};
  for (size_t i = 0; i < values.size(); ++i)
    storeElement(DType::F32, values[i], t.data.data() + 4 * i);
  return t;
}

std::vector<double> valuesOf(const Tensor &t) {
  DType dtype = *parseDType(t.dtype);
  int64_t bytes = elementBytes(dtype);
  std::vector<double> values;
  for (size_t i = 0; i < t.data.size(); i += bytes)
    values.push_back(loadElement(dtype, t.data.data() + i));
  return values;
}

TEST(BucketsTest, PadsAlongTheLengthAndTrimsBack) {
  // [2, 3] padded to [4, 3]: the rows past the length hold the pad value.
  Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor padded = resizeTensor(TensorRef::of(x), {4, 3}, -1);
  EXPECT_EQ(padded.shape, (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(valuesOf(padded),
            (std::vector<double>{1, 2, 3, 4, 5, 6, -1, -1, -1, -1, -1, -1}));
  Tensor trimmed = resizeTensor(TensorRef::of(padded), {2, 3}, 0);
  EXPECT_EQ(trimmed.data, x.data);

  // An inner dimension: [2, 2] to [2, 3] pads each row's end.
  Tensor inner = resizeTensor(TensorRef::of(f32({2, 2}, {1, 2, 3, 4})), {2, 3},
                              0);
  EXPECT_EQ(valuesOf(inner), (std::vector<double>{1, 2, 0, 3, 4, 0}));
}

TEST(BucketsTest, PadValueIsRoundedToTheDtype) {
  Tensor x{"bf16", {1}, std::vector<uint8_t>(2)};
  storeElement(DType::BF16, 1.0, x.data.data());
  Tensor padded = resizeTensor(TensorRef::of(x), {3}, 0.1);
  std::vector<double> values = valuesOf(padded);
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[0], 1.0);
  EXPECT_NE(values[1], 0.1); // not representable in bf16
  EXPECT_NEAR(values[1], 0.1, 1e-3);
}

TEST(BucketsTest, TheInputsMustAgreeOnTheLength) {
  Buckets b;
  b.sizes = {16, 64};
  b.inputs = {{0, 1}, {1, 0}};
  EXPECT_EQ(*inputLength(b, {{1, 40, 8}, {40}}), 40);
  EXPECT_EQ(*inputLength(b, {{}, {33}}), 33); // input 0 not given
  absl::StatusOr<int64_t> disagree = inputLength(b, {{1, 40, 8}, {41}});
  ASSERT_FALSE(disagree.ok());
  EXPECT_NE(std::string(disagree.status().message())
                .find("input 0 dimension 1 is 40, input 1 dimension 0 is 41"),
            std::string::npos)
      << disagree.status();
  EXPECT_EQ(inputLength(b, {{}, {}}).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(inputLength(b, {{5}, {}}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(lengthTensor(40).shape.size(), 0u);
  EXPECT_EQ(valuesOf(lengthTensor(40)), (std::vector<double>{40}));
}

} // namespace
