//===- Buckets.cpp - Running an executable's shape buckets ----------------===//

#include "runtime/sim/Buckets.h"

#include "runtime/sim/Numerics.h"

#include "absl/strings/str_cat.h"

#include <algorithm>
#include <cstring>

namespace neuron::rt {

std::vector<int64_t> bucketDims(const std::vector<BucketDim> &dims,
                                int64_t index) {
  std::vector<int64_t> result;
  for (const BucketDim &d : dims)
    if (d.index == index)
      result.push_back(d.dim);
  return result;
}

std::vector<int64_t> withLength(std::vector<int64_t> shape,
                                const std::vector<int64_t> &dims,
                                int64_t length) {
  for (int64_t d : dims)
    shape[d] = length;
  return shape;
}

absl::StatusOr<int64_t>
inputLength(const Buckets &buckets,
            const std::vector<std::vector<int64_t>> &shapes) {
  int64_t length = -1;
  BucketDim first;
  for (const BucketDim &d : buckets.inputs) {
    if (d.index >= int64_t(shapes.size()) || shapes[d.index].empty())
      continue;
    const std::vector<int64_t> &shape = shapes[d.index];
    if (d.dim >= int64_t(shape.size()))
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", d.index, " has rank ", shape.size(),
          ", but its dimension ", d.dim, " is the variable length"));
    if (length < 0) {
      length = shape[d.dim];
      first = d;
    } else if (shape[d.dim] != length) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the inputs disagree on the variable length: input ", first.index,
          " dimension ", first.dim, " is ", length, ", input ", d.index,
          " dimension ", d.dim, " is ", shape[d.dim]));
    }
  }
  if (length < 0)
    return absl::NotFoundError("no input with the variable length is given");
  return length;
}

namespace {
/// Copies the elements `src` (of `from`) and `dst` (of `to`) both hold,
/// from dimension `d` on.
void copyCommon(const uint8_t *src, const std::vector<int64_t> &from,
                uint8_t *dst, const std::vector<int64_t> &to, size_t d,
                int64_t elementBytes) {
  int64_t srcRow = elementBytes, dstRow = elementBytes;
  for (size_t i = d + 1; i < from.size(); ++i) {
    srcRow *= from[i];
    dstRow *= to[i];
  }
  int64_t n = std::min(from[d], to[d]);
  if (d + 1 == from.size()) {
    std::memcpy(dst, src, n * elementBytes);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    copyCommon(src + i * srcRow, from, dst + i * dstRow, to, d + 1,
               elementBytes);
}
} // namespace

Tensor resizeTensor(const TensorRef &t, const std::vector<int64_t> &shape,
                    double pad) {
  DType dtype = *parseDType(t.dtype);
  int64_t bytes = elementBytes(dtype), elements = 1;
  for (int64_t s : shape)
    elements *= s;
  Tensor out{std::string(t.dtype), shape, std::vector<uint8_t>(elements * bytes)};
  std::vector<uint8_t> padding(bytes);
  storeElement(dtype, pad, padding.data());
  for (int64_t i = 0; i < elements; ++i)
    std::memcpy(out.data.data() + i * bytes, padding.data(), bytes);
  if (shape.empty())
    std::memcpy(out.data.data(), t.data, bytes);
  else if (elements > 0)
    copyCommon(t.data, t.shape, out.data.data(), shape, 0, bytes);
  return out;
}

Tensor lengthTensor(int64_t length) {
  Tensor t{"i32", {}, std::vector<uint8_t>(4)};
  storeElement(DType::I32, double(length), t.data.data());
  return t;
}

} // namespace neuron::rt
