//===- Spmd.cpp - Functional simulation of an SPMD program ----------------===//
//
// One Device per rank, stepped together. Tensors move between whole and
// shard, and between the members of a group, as rectangular blocks copied
// row by row; reductions load every element as a double (i64 as an exact
// integer), combine the group's values in group order and store once,
// rounding to the dtype.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/Spmd.h"

#include "runtime/support/StatusMacros.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace neuron::rt {

std::vector<int64_t> wholeShape(const Program &program, const IoBinding &io) {
  std::vector<int64_t> shape = program.tensors[io.tensor].shape;
  for (size_t d = 0; d < io.sharding.size(); ++d)
    for (int64_t a : io.sharding[d])
      shape[d] *= program.grid[a];
  return shape;
}

/// Where rank `rank`'s shard of `io` starts in the whole tensor.
static std::vector<int64_t> shardOrigin(const Program &program,
                                        const IoBinding &io, int64_t rank) {
  const std::vector<int64_t> &shape = program.tensors[io.tensor].shape;
  std::vector<int64_t> coords = gridCoordinates(program.grid, rank);
  std::vector<int64_t> origin(shape.size(), 0);
  for (size_t d = 0; d < io.sharding.size(); ++d) {
    int64_t block = 0;
    for (int64_t a : io.sharding[d])
      block = block * program.grid[a] + coords[a];
    origin[d] = block * shape[d];
  }
  return origin;
}

/// Copies between the block of extents `shape` at `origin` of a row-major
/// tensor `whole` of extents `wholeShape`, and the dense array `block`:
/// into `block` when `toBlock`, else out of it.
static void copyBlock(uint8_t *whole, const std::vector<int64_t> &wholeShape,
                      uint8_t *block, const std::vector<int64_t> &shape,
                      const std::vector<int64_t> &origin, int64_t bytes,
                      bool toBlock) {
  int64_t rank = int64_t(shape.size());
  if (rank == 0) {
    std::memcpy(toBlock ? block : whole, toBlock ? whole : block, bytes);
    return;
  }
  std::vector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * wholeShape[d + 1];
  int64_t rowBytes = shape.back() * bytes, rows = 1;
  for (int64_t d = 0; d + 1 < rank; ++d)
    rows *= shape[d];
  std::vector<int64_t> index(rank - 1, 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t offset = origin.back();
    for (int64_t d = 0; d + 1 < rank; ++d)
      offset += (origin[d] + index[d]) * strides[d];
    uint8_t *w = whole + offset * bytes, *b = block + r * rowBytes;
    std::memcpy(toBlock ? b : w, toBlock ? w : b, rowBytes);
    for (int64_t d = rank - 2; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

Tensor shardOf(const Program &program, const IoBinding &io, const Tensor &whole,
               int64_t rank) {
  const TensorDesc &t = program.tensors[io.tensor];
  if (io.sharding.empty())
    return whole;
  Tensor shard{whole.dtype, t.shape,
               std::vector<uint8_t>(t.elements * elementBytes(t.dtype))};
  copyBlock(const_cast<uint8_t *>(whole.data.data()), wholeShape(program, io),
            shard.data.data(), t.shape, shardOrigin(program, io, rank),
            elementBytes(t.dtype), /*toBlock=*/true);
  return shard;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

using Bytes = std::vector<uint8_t>;

/// The elementwise reduction of `values` (one array of `elements` elements
/// of `dtype` per group member), in group order.
static Bytes reduce(DType dtype, Reduction reduction,
                    const std::vector<const Bytes *> &values,
                    int64_t elements) {
  int64_t bytes = elementBytes(dtype);
  Bytes out(elements * bytes);
  for (int64_t e = 0; e < elements; ++e) {
    if (dtype == DType::I64) {
      // Exact, wrapping: a double would lose bits above 2^53.
      auto load = [&](const Bytes *v) {
        int64_t x;
        std::memcpy(&x, v->data() + e * bytes, bytes);
        return x;
      };
      int64_t acc = load(values[0]);
      for (size_t m = 1; m < values.size(); ++m) {
        int64_t x = load(values[m]);
        acc = reduction == Reduction::Sum ? int64_t(uint64_t(acc) + uint64_t(x))
              : reduction == Reduction::Max ? std::max(acc, x)
                                            : std::min(acc, x);
      }
      std::memcpy(out.data() + e * bytes, &acc, bytes);
      continue;
    }
    double acc = loadElement(dtype, values[0]->data() + e * bytes);
    for (size_t m = 1; m < values.size(); ++m) {
      double x = loadElement(dtype, values[m]->data() + e * bytes);
      acc = reduction == Reduction::Sum   ? acc + x
            : reduction == Reduction::Max ? maximumF(acc, x)
                                          : minimumF(acc, x);
    }
    storeElement(dtype, acc, out.data() + e * bytes);
  }
  return out;
}

/// The output of every member of `group` (in group order), from the inputs
/// they snapshot at the start.
static std::vector<Bytes> collectiveResults(const Program &program,
                                            const Collective &c,
                                            const std::vector<Bytes> &inputs,
                                            const std::vector<int64_t> &group) {
  const TensorDesc &in = program.tensors[c.input];
  const TensorDesc &out = program.tensors[c.output];
  int64_t bytes = elementBytes(in.dtype);
  int64_t g = int64_t(group.size());
  std::vector<const Bytes *> members;
  for (int64_t rank : group)
    members.push_back(&inputs[rank]);
  std::vector<Bytes> results(g, Bytes(out.elements * bytes));
  std::vector<int64_t> origin(in.shape.size(), 0);
  switch (c.op) {
  case CollectiveOp::AllReduce: {
    Bytes reduced = reduce(in.dtype, c.reduction, members, in.elements);
    std::fill(results.begin(), results.end(), reduced);
    break;
  }
  case CollectiveOp::AllGather:
    for (int64_t j = 0; j < g; ++j) {
      origin[c.axis] = j * in.shape[c.axis];
      copyBlock(results[0].data(), out.shape,
                const_cast<uint8_t *>(members[j]->data()), in.shape, origin,
                bytes, /*toBlock=*/false);
    }
    std::fill(results.begin() + 1, results.end(), results[0]);
    break;
  case CollectiveOp::ReduceScatter:
  case CollectiveOp::AllSlice: {
    // Member j keeps part j (along axis) of the group's sum, or of its own
    // input for all_slice.
    Bytes reduced;
    if (c.op == CollectiveOp::ReduceScatter)
      reduced = reduce(in.dtype, c.reduction, members, in.elements);
    for (int64_t j = 0; j < g; ++j) {
      const Bytes &whole =
          c.op == CollectiveOp::ReduceScatter ? reduced : *members[j];
      origin[c.axis] = j * out.shape[c.axis];
      copyBlock(const_cast<uint8_t *>(whole.data()), in.shape,
                results[j].data(), out.shape, origin, bytes,
                /*toBlock=*/true);
    }
    break;
  }
  case CollectiveOp::AllToAll: {
    // Member i's part j (along split_axis) becomes member j's part i
    // (along concat_axis).
    std::vector<int64_t> part = in.shape;
    part[c.splitAxis] /= g;
    Bytes piece(in.elements / g * bytes);
    for (int64_t i = 0; i < g; ++i)
      for (int64_t j = 0; j < g; ++j) {
        std::fill(origin.begin(), origin.end(), 0);
        origin[c.splitAxis] = j * part[c.splitAxis];
        copyBlock(const_cast<uint8_t *>(members[i]->data()), in.shape,
                  piece.data(), part, origin, bytes, /*toBlock=*/true);
        std::fill(origin.begin(), origin.end(), 0);
        origin[c.concatAxis] = i * part[c.concatAxis];
        copyBlock(results[j].data(), out.shape, piece.data(), part, origin,
                  bytes, /*toBlock=*/false);
      }
    break;
  }
  }
  return results;
}

/// Writes every rank's output of `c` from the inputs snapshot at its start.
static void finishCollective(const Program &program, const Collective &c,
                             const std::vector<Bytes> &inputs,
                             std::vector<Device> &devices) {
  std::vector<bool> written(devices.size(), false);
  for (int64_t rank = 0; rank < int64_t(devices.size()); ++rank) {
    if (written[rank])
      continue;
    std::vector<int64_t> group = groupOf(c.grid, c.axes, rank);
    std::vector<Bytes> results = collectiveResults(program, c, inputs, group);
    for (size_t j = 0; j < group.size(); ++j) {
      std::memcpy(devices[group[j]].tensorBytes(program, c.output),
                  results[j].data(), results[j].size());
      written[group[j]] = true;
    }
  }
}

//===----------------------------------------------------------------------===//
// The run
//===----------------------------------------------------------------------===//

static absl::Status onRank(int64_t rank, absl::Status status) {
  if (status.ok() || rank < 0)
    return status;
  return absl::Status(status.code(),
                      absl::StrFormat("rank %d: %s", rank, status.message()));
}

static absl::Status checkInputs(const Program &program,
                                const std::vector<Tensor> &inputs) {
  if (inputs.size() != program.inputs.size())
    return absl::InvalidArgumentError(
        absl::StrFormat("inputs: expected %d tensors, found %d",
                        program.inputs.size(), inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const IoBinding &io = program.inputs[i];
    const TensorDesc &t = program.tensors[io.tensor];
    std::vector<int64_t> shape = wholeShape(program, io);
    int64_t elements = 1;
    for (int64_t d : shape)
      elements *= d;
    size_t bytes = elements * elementBytes(t.dtype);
    const Tensor &in = inputs[i];
    if (in.dtype != dtypeName(t.dtype) || in.shape != shape ||
        in.data.size() != bytes)
      return absl::InvalidArgumentError(absl::StrFormat(
          "inputs[%d] (\"%s\"): expected %s[%s] (%d bytes, the whole "
          "tensor), found %s[%s] (%d bytes)",
          i, io.name, dtypeName(t.dtype), absl::StrJoin(shape, ", "), bytes,
          in.dtype, absl::StrJoin(in.shape, ", "), in.data.size()));
  }
  return absl::OkStatus();
}

/// Whole output `io`: each block from the lowest rank holding it.
static Tensor assembleOutput(const Program &program, const IoBinding &io,
                             std::vector<Device> &devices) {
  const TensorDesc &t = program.tensors[io.tensor];
  int64_t bytes = elementBytes(t.dtype);
  std::vector<int64_t> shape = wholeShape(program, io);
  int64_t elements = 1;
  for (int64_t d : shape)
    elements *= d;
  Tensor whole{std::string(dtypeName(t.dtype)), shape, Bytes(elements * bytes)};
  std::vector<bool> sharded(program.grid.size(), false);
  for (const std::vector<int64_t> &axes : io.sharding)
    for (int64_t a : axes)
      sharded[a] = true;
  for (int64_t rank = 0; rank < int64_t(devices.size()); ++rank) {
    std::vector<int64_t> coords = gridCoordinates(program.grid, rank);
    bool first = true;
    for (size_t a = 0; a < coords.size(); ++a)
      first &= sharded[a] || coords[a] == 0;
    if (!first)
      continue;
    copyBlock(whole.data.data(), shape,
              devices[rank].tensorBytes(program, io.tensor), t.shape,
              shardOrigin(program, io, rank), bytes, /*toBlock=*/false);
  }
  return whole;
}

absl::StatusOr<std::vector<Tensor>> runSpmd(const Program &program,
                                            std::vector<Tensor> wholeInputs,
                                            const ConstantLoader &loadConstant,
                                            DeviceOptions options) {
  NEURON_RETURN_IF_ERROR(checkInputs(program, wholeInputs));
  int64_t ranks = program.ranks();
  // Errors name the rank only when there is more than one.
  auto rankOf = [&](int64_t r) { return ranks > 1 ? r : -1; };
  std::vector<Device> devices(ranks, Device(options));
  for (int64_t r = 0; r < ranks; ++r) {
    std::vector<Tensor> shards;
    for (size_t i = 0; i < wholeInputs.size(); ++i)
      shards.push_back(shardOf(program, program.inputs[i], wholeInputs[i], r));
    NEURON_RETURN_IF_ERROR(onRank(
        rankOf(r), devices[r].load(program, std::move(shards), loadConstant)));
  }
  wholeInputs.clear();
  // Per collective_start step in flight: every rank's input at the start.
  std::map<size_t, std::vector<Bytes>> inFlight;
  for (size_t i = 0; i < program.steps.size(); ++i) {
    const Step &step = program.steps[i];
    const Collective &c = step.collective;
    switch (step.kind) {
    case StepKind::Kernel:
    case StepKind::HostCall:
      for (int64_t r = 0; r < ranks; ++r)
        NEURON_RETURN_IF_ERROR(
            onRank(rankOf(r), devices[r].runStep(program, i)));
      break;
    case StepKind::CollectiveStart: {
      const TensorDesc &in = program.tensors[c.input];
      int64_t bytes = in.elements * elementBytes(in.dtype);
      std::vector<Bytes> &snapshot = inFlight[i];
      for (Device &device : devices) {
        const uint8_t *p = device.tensorBytes(program, c.input);
        snapshot.emplace_back(p, p + bytes);
      }
      break;
    }
    case StepKind::CollectiveDone: {
      auto it = inFlight.find(size_t(step.partner));
      finishCollective(program, c, it->second, devices);
      inFlight.erase(it);
      break;
    }
    }
  }
  std::vector<Tensor> outputs;
  for (const IoBinding &io : program.outputs)
    outputs.push_back(assembleOutput(program, io, devices));
  return outputs;
}

} // namespace neuron::rt
