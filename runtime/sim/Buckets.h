//===- Buckets.h - Running an executable's shape buckets ---------*- C++ -*-===//
//
// What a runtime does with an executable of shape buckets
// (runtime/format/Buckets.h): it finds the input's length along the
// bucketed dimensions, picks the smallest bucket holding it, pads the
// inputs to the bucket's size, fills the length input, and trims the
// results back to the length.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SIM_BUCKETS_H
#define NEURON_RUNTIME_SIM_BUCKETS_H

#include "runtime/format/Buckets.h"
#include "runtime/support/Tensor.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <vector>

namespace neuron::rt {

/// The bucketed dimensions of input or output `index`.
std::vector<int64_t> bucketDims(const std::vector<BucketDim> &dims,
                                int64_t index);

/// `shape` with its dimensions `dims` (bucketDims) set to `length`: an
/// input's or output's shape at a length, or at its bucket's size.
std::vector<int64_t> withLength(std::vector<int64_t> shape,
                                const std::vector<int64_t> &dims,
                                int64_t length);

/// The length the inputs hold (`shapes`: one per program input, empty for
/// an input not given): the size of every bucketed dimension of a given
/// input, which must agree; InvalidArgument naming the inputs when they
/// do not, NotFound when no bucketed input is given.
absl::StatusOr<int64_t>
inputLength(const Buckets &buckets,
            const std::vector<std::vector<int64_t>> &shapes);

/// `t` resized to `shape` (of its rank): the elements both hold copied,
/// the others (past `t`'s end along a dimension) set to `pad`.
Tensor resizeTensor(const TensorRef &t, const std::vector<int64_t> &shape,
                    double pad);

/// The i32 scalar the length input takes.
Tensor lengthTensor(int64_t length);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_SIM_BUCKETS_H
