//===- Spmd.cpp - Functional simulation of an SPMD program ----------------===//
//
// One Device per rank of this process, stepped together; the processes'
// blocks of ranks meet through the RankExchange, which gathers every rank's
// collective input and every first holder's outputs in rank order, in
// blocks whose sizes both sides know from the program. Tensors move
// between whole and shard, and between the members of a group, as
// rectangular blocks copied row by row; reductions load every element as a
// double (i64 as an exact integer), combine the group's values in group
// order and store once, rounding to the dtype.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/Spmd.h"

#include "runtime/support/StatusMacros.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string_view>
#include <utility>

namespace neuron::rt {

std::vector<int64_t> wholeShape(const Program &program, const IoBinding &io) {
  std::vector<int64_t> shape = program.tensors[io.tensor].shape;
  for (size_t d = 0; d < io.sharding.size(); ++d)
    for (int64_t a : io.sharding[d])
      shape[d] *= program.grid[a];
  return shape;
}

int64_t wholeBytes(const Program &program, const IoBinding &io) {
  int64_t bytes = elementBytes(program.tensors[io.tensor].dtype);
  for (int64_t d : wholeShape(program, io))
    bytes *= d;
  return bytes;
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

Tensor shardOf(const Program &program, const IoBinding &io,
               const TensorRef &whole, int64_t rank) {
  const TensorDesc &t = program.tensors[io.tensor];
  Tensor shard{std::string(whole.dtype), t.shape, {}};
  if (io.sharding.empty()) {
    shard.data.assign(whole.data, whole.data + whole.size);
    return shard;
  }
  shard.data.resize(t.bytes());
  copyBlock(const_cast<uint8_t *>(whole.data), wholeShape(program, io),
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
                    const std::vector<const uint8_t *> &values,
                    int64_t elements) {
  int64_t bytes = elementBytes(dtype);
  Bytes out(elements * bytes);
  for (int64_t e = 0; e < elements; ++e) {
    if (dtype == DType::I64) {
      // Exact, wrapping: a double would lose bits above 2^53.
      auto load = [&](const uint8_t *v) {
        int64_t x;
        std::memcpy(&x, v + e * bytes, bytes);
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
    double acc = loadElement(dtype, values[0] + e * bytes);
    for (size_t m = 1; m < values.size(); ++m) {
      double x = loadElement(dtype, values[m] + e * bytes);
      acc = reduction == Reduction::Sum   ? acc + x
            : reduction == Reduction::Max ? maximumF(acc, x)
                                          : minimumF(acc, x);
    }
    storeElement(dtype, acc, out.data() + e * bytes);
  }
  return out;
}

/// Per rank, the input it snapshot at a collective's start.
using RankInputs = std::vector<const uint8_t *>;

/// The output of every member of `group` (in group order), from the inputs
/// they snapshot at the start.
static std::vector<Bytes> collectiveResults(const Program &program,
                                            const Collective &c,
                                            const RankInputs &inputs,
                                            const std::vector<int64_t> &group) {
  const TensorDesc &in = program.tensors[c.input];
  const TensorDesc &out = program.tensors[c.output];
  int64_t bytes = elementBytes(in.dtype);
  int64_t g = int64_t(group.size());
  std::vector<const uint8_t *> members;
  for (int64_t rank : group)
    members.push_back(inputs[rank]);
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
                const_cast<uint8_t *>(members[j]), in.shape, origin, bytes,
                /*toBlock=*/false);
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
      const uint8_t *whole =
          c.op == CollectiveOp::ReduceScatter ? reduced.data() : members[j];
      origin[c.axis] = j * out.shape[c.axis];
      copyBlock(const_cast<uint8_t *>(whole), in.shape,
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
        copyBlock(const_cast<uint8_t *>(members[i]), in.shape, piece.data(),
                  part, origin, bytes, /*toBlock=*/true);
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

/// Writes the output of `c` on this process's ranks (`devices`, from rank
/// `mine.first` on) from every rank's input at its start.
static void finishCollective(const Program &program, const Collective &c,
                             const RankInputs &inputs, RankBlock mine,
                             std::vector<Device> &devices) {
  std::vector<bool> written(devices.size(), false);
  for (int64_t rank = mine.first; rank < mine.end; ++rank) {
    if (written[rank - mine.first])
      continue;
    std::vector<int64_t> group = groupOf(c.grid, c.axes, rank);
    std::vector<Bytes> results = collectiveResults(program, c, inputs, group);
    for (size_t j = 0; j < group.size(); ++j) {
      if (group[j] < mine.first || group[j] >= mine.end)
        continue;
      std::memcpy(devices[group[j] - mine.first].tensorBytes(program, c.output),
                  results[j].data(), results[j].size());
      written[group[j] - mine.first] = true;
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
                                const std::vector<TensorRef> &inputs) {
  if (inputs.size() != program.inputs.size())
    return absl::InvalidArgumentError(
        absl::StrFormat("inputs: expected %d tensors, found %d",
                        program.inputs.size(), inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const IoBinding &io = program.inputs[i];
    const TensorDesc &t = program.tensors[io.tensor];
    std::vector<int64_t> shape = wholeShape(program, io);
    size_t bytes = wholeBytes(program, io);
    const TensorRef &in = inputs[i];
    if (in.dtype != dtypeName(t.dtype) || in.shape != shape ||
        in.size != bytes)
      return absl::InvalidArgumentError(absl::StrFormat(
          "inputs[%d] (\"%s\"): expected %s[%s] (%d bytes, the whole "
          "tensor), found %s[%s] (%d bytes)",
          i, io.name, dtypeName(t.dtype), absl::StrJoin(shape, ", "), bytes,
          in.dtype, absl::StrJoin(in.shape, ", "), in.size));
  }
  return absl::OkStatus();
}

/// Whether `rank` is the lowest rank holding its block of output `io`: the
/// one the whole output takes that block from.
static bool holdsFirst(const Program &program, const IoBinding &io,
                       int64_t rank) {
  std::vector<bool> sharded(program.grid.size(), false);
  for (const std::vector<int64_t> &axes : io.sharding)
    for (int64_t a : axes)
      sharded[a] = true;
  std::vector<int64_t> coords = gridCoordinates(program.grid, rank);
  for (size_t a = 0; a < coords.size(); ++a)
    if (!sharded[a] && coords[a] != 0)
      return false;
  return true;
}

/// Checks that process `p`'s block of an exchange holds `expected` bytes.
static absl::Status checkBlock(const std::vector<Bytes> &blocks, int64_t p,
                               int64_t expected, std::string_view what) {
  if (int64_t(blocks[p].size()) == expected)
    return absl::OkStatus();
  return absl::DataLossError(absl::StrFormat(
      "process %d sent %d bytes of %s, expected %d (do all processes run the "
      "same executable?)",
      p, blocks[p].size(), what, expected));
}

/// The whole outputs from the processes' blocks: each holds, per rank it
/// ran and per output that rank holds first, that output's bytes.
static absl::StatusOr<std::vector<Tensor>>
assembleOutputs(const Program &program, const std::vector<Bytes> &blocks) {
  int64_t ranks = program.ranks(), processes = int64_t(blocks.size());
  // Per output and rank: where its block starts, or nullptr.
  std::vector<std::vector<const uint8_t *>> held(
      program.outputs.size(), std::vector<const uint8_t *>(ranks, nullptr));
  for (int64_t p = 0; p < processes; ++p) {
    RankBlock block = ranksOfProcess(ranks, p, processes);
    // The (output, rank) pairs of the block, in the order it sent them.
    std::vector<std::pair<size_t, int64_t>> parts;
    int64_t expected = 0;
    for (int64_t r = block.first; r < block.end; ++r)
      for (size_t o = 0; o < program.outputs.size(); ++o)
        if (holdsFirst(program, program.outputs[o], r)) {
          parts.push_back({o, r});
          expected += program.tensors[program.outputs[o].tensor].bytes();
        }
    NEURON_RETURN_IF_ERROR(checkBlock(blocks, p, expected, "outputs"));
    const uint8_t *at = blocks[p].data();
    for (auto [o, r] : parts) {
      held[o][r] = at;
      at += program.tensors[program.outputs[o].tensor].bytes();
    }
  }
  std::vector<Tensor> outputs;
  for (size_t o = 0; o < program.outputs.size(); ++o) {
    const IoBinding &io = program.outputs[o];
    const TensorDesc &t = program.tensors[io.tensor];
    std::vector<int64_t> shape = wholeShape(program, io);
    Tensor whole{std::string(dtypeName(t.dtype)), shape,
                 Bytes(wholeBytes(program, io))};
    for (int64_t r = 0; r < ranks; ++r)
      if (held[o][r])
        copyBlock(whole.data.data(), shape, const_cast<uint8_t *>(held[o][r]),
                  t.shape, shardOrigin(program, io, r), elementBytes(t.dtype),
                  /*toBlock=*/false);
    outputs.push_back(std::move(whole));
  }
  return outputs;
}

RankBlock ranksOfProcess(int64_t ranks, int64_t process, int64_t processes) {
  int64_t base = ranks / processes, extra = ranks % processes;
  int64_t first = process * base + std::min(process, extra);
  return {first, first + base + (process < extra ? 1 : 0)};
}

absl::Status exchangeFailure(const std::vector<absl::Status> &statuses,
                             int64_t self) {
  if (!statuses[self].ok())
    return statuses[self];
  for (size_t p = 0; p < statuses.size(); ++p)
    if (!statuses[p].ok())
      return absl::Status(statuses[p].code(),
                          absl::StrFormat("process %d stopped the run: %s", p,
                                          statuses[p].message()));
  return absl::OkStatus();
}

namespace {
class SingleProcessExchange final : public RankExchange {
public:
  int64_t process() const override { return 0; }
  int64_t processes() const override { return 1; }
  absl::StatusOr<std::vector<Bytes>> exchange(Bytes block,
                                              const absl::Status &status,
                                              bool) override {
    if (!status.ok())
      return status;
    std::vector<Bytes> blocks;
    blocks.push_back(std::move(block));
    return blocks;
  }
};
} // namespace

std::unique_ptr<RankExchange> singleProcessExchange() {
  return std::make_unique<SingleProcessExchange>();
}

absl::StatusOr<SpmdResult>
runSpmdProcess(const Program &program, const std::vector<TensorRef> &wholeInputs,
               const ConstantLoader &loadConstant, const SpmdOptions &options) {
  std::unique_ptr<RankExchange> single;
  RankExchange *exchange = options.exchange;
  if (!exchange) {
    single = singleProcessExchange();
    exchange = single.get();
  }
  int64_t ranks = program.ranks(), processes = exchange->processes();
  if (processes > ranks)
    return absl::FailedPreconditionError(absl::StrFormat(
        "the program has %d ranks, fewer than the run's %d processes: start "
        "at most %d",
        ranks, processes, ranks));
  RankBlock mine = ranksOfProcess(ranks, exchange->process(), processes);
  // Errors name the rank only when there is more than one.
  auto rankOf = [&](int64_t r) { return ranks > 1 ? r : -1; };

  // A failure stops this process's work until the next exchange, which
  // tells every process.
  absl::Status status = checkInputs(program, wholeInputs);
  std::vector<Device> devices(mine.size(), Device(options.device));
  for (int64_t r = mine.first; r < mine.end && status.ok(); ++r) {
    std::vector<Tensor> shards;
    for (size_t i = 0; i < wholeInputs.size(); ++i)
      shards.push_back(shardOf(program, program.inputs[i], wholeInputs[i], r));
    status = onRank(rankOf(r), devices[r - mine.first].load(
                                   program, std::move(shards), loadConstant));
  }
  NEURON_RETURN_IF_ERROR(exchange->exchange({}, status, true).status());

  // Per collective_start step in flight: the processes' blocks (their ranks'
  // inputs at the start, in rank order) and where each rank's input is.
  struct InFlight {
    std::vector<Bytes> blocks;
    RankInputs inputs;
  };
  std::map<size_t, InFlight> inFlight;
  // Finishes the collective started at step `start`, unless it is already.
  auto finish = [&](size_t start) {
    auto it = inFlight.find(start);
    if (it == inFlight.end())
      return;
    if (status.ok())
      finishCollective(program, program.steps[start].collective,
                       it->second.inputs, mine, devices);
    inFlight.erase(it);
  };
  for (size_t i = 0; i < program.steps.size(); ++i) {
    if (options.device.onStep)
      options.device.onStep(i);
    const Step &step = program.steps[i];
    const Collective &c = step.collective;
    // A launch that awaits a collective inside reads its output: the
    // collective's result is there before the launch runs.
    for (int64_t awaited : step.awaits)
      finish(size_t(awaited));
    switch (step.kind) {
    case StepKind::Kernel:
    case StepKind::HostCall:
      for (int64_t r = mine.first; r < mine.end && status.ok(); ++r)
        status = onRank(rankOf(r), devices[r - mine.first].runStep(program, i));
      break;
    case StepKind::CollectiveStart: {
      int64_t bytes = program.tensors[c.input].bytes();
      Bytes block;
      if (status.ok()) {
        block.reserve(mine.size() * bytes);
        for (Device &device : devices) {
          const uint8_t *p = device.tensorBytes(program, c.input);
          block.insert(block.end(), p, p + bytes);
        }
      }
      NEURON_ASSIGN_OR_RETURN(blocks,
                              exchange->exchange(std::move(block), status,
                                                 /*toAll=*/true));
      InFlight &flight = inFlight[i];
      flight.blocks = std::move(blocks);
      for (int64_t p = 0; p < processes; ++p) {
        RankBlock theirs = ranksOfProcess(ranks, p, processes);
        NEURON_RETURN_IF_ERROR(checkBlock(
            flight.blocks, p, theirs.size() * bytes,
            absl::StrFormat("collective %d's inputs", c.id)));
        for (int64_t k = 0; k < theirs.size(); ++k)
          flight.inputs.push_back(flight.blocks[p].data() + k * bytes);
      }
      break;
    }
    case StepKind::CollectiveDone:
      // Finished here unless a launch awaited it.
      finish(size_t(step.partner));
      break;
    }
  }

  Bytes block;
  for (int64_t r = mine.first;
       r < mine.end && status.ok() && options.gatherOutputs; ++r)
    for (const IoBinding &io : program.outputs)
      if (holdsFirst(program, io, r)) {
        const uint8_t *p = devices[r - mine.first].tensorBytes(program, io.tensor);
        block.insert(block.end(), p,
                     p + program.tensors[io.tensor].bytes());
      }
  NEURON_ASSIGN_OR_RETURN(
      blocks, exchange->exchange(std::move(block), status, /*toAll=*/false));
  SpmdResult result;
  result.ranks = mine;
  if (exchange->process() == 0 && options.gatherOutputs) {
    NEURON_ASSIGN_OR_RETURN(outputs, assembleOutputs(program, blocks));
    result.outputs = std::move(outputs);
  }
  if (options.rankOutputs)
    for (Device &device : devices)
      result.rankOutputs.push_back(device.outputs(program));
  return result;
}

absl::StatusOr<std::vector<Tensor>> runSpmd(const Program &program,
                                            std::vector<Tensor> wholeInputs,
                                            const ConstantLoader &loadConstant,
                                            DeviceOptions options) {
  SpmdOptions spmd;
  spmd.device = options;
  std::vector<TensorRef> refs;
  for (const Tensor &t : wholeInputs)
    refs.push_back(TensorRef::of(t));
  NEURON_ASSIGN_OR_RETURN(result,
                          runSpmdProcess(program, refs, loadConstant, spmd));
  return std::move(result.outputs);
}

} // namespace neuron::rt
