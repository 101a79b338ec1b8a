//===- SpmdTest.cpp - SPMD programs: collectives, sharding, timing --------===//
//
// Hand-built manifests on 2 and 4 ranks: each collective kind against its
// closed form, whole inputs split and whole outputs reassembled by their
// sharding, a kernel between a collective's start and done overlapping it
// in the timing, and the reader's errors for collective steps, spmd and
// sharding. Ranks spread over processes (threads here, meeting as MPI
// processes do) give the one-process results, and one failing stops all.
//
//===----------------------------------------------------------------------===//

#include "SimTestUtil.h"

#include "runtime/sim/Profile.h"
#include "runtime/sim/Spmd.h"
#include "runtime/sim/Timing.h"
#include "runtime/support/StatusMacros.h"
#include "runtime/target/Target.h"

#include "absl/strings/str_format.h"
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

using namespace neuron::rt;
using namespace neuron::rt::test;

namespace {

json tensor(int64_t id, std::vector<int64_t> shape, const char *kind) {
  return {{"id", id},
          {"dtype", "f32"},
          {"shape", shape},
          {"kind", kind},
          {"name", absl::StrFormat("t%d", id)}};
}

json io(int64_t id, json sharding = nullptr) {
  json entry = {{"tensor", id}, {"name", absl::StrFormat("t%d", id)}};
  if (!sharding.is_null())
    entry["sharding"] = std::move(sharding);
  return entry;
}

/// The collective_start of a collectiveManifest.
json &start(json &m) { return m["program"][0]; }

/// A program on `grid` of tensors 0 (input) and 1 (output) and one
/// collective from 0 into 1 with the fields `fields`.
json collectiveManifest(std::vector<int64_t> grid, std::vector<int64_t> in,
                        std::vector<int64_t> out, json inSharding,
                        json outSharding, json fields) {
  json start = {
      {"collective_start", 7}, {"input", 0}, {"output", 1}, {"grid", grid}};
  for (auto &[key, value] : fields.items())
    start[key] = value;
  return {{"spmd", {{"grid", grid}}},
          {"tensors", {tensor(0, in, "input"), tensor(1, out, "output")}},
          {"inputs", {io(0, inSharding)}},
          {"outputs", {io(1, outSharding)}},
          {"kernels", json::array()},
          {"program", {start, {{"collective_done", 7}}}}};
}

std::vector<double> iota(int64_t n, double scale = 1) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = double(i) * scale + 1;
  return v;
}

/// Runs `manifest` on the whole f32 input `x` of `shape`; the whole
/// output's values.
std::vector<double> runOn(const json &manifest, std::vector<int64_t> shape,
                          const std::vector<double> &x) {
  Program program = parse(manifest);
  absl::StatusOr<std::vector<Tensor>> out =
      runSpmd(program, {makeTensor(DType::F32, std::move(shape), x)});
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok() || out->size() != 1)
    return {};
  return valuesOf((*out)[0]);
}

class SpmdRanks : public ::testing::TestWithParam<int64_t> {};

TEST_P(SpmdRanks, AllReduceSumsEveryRanksShard) {
  int64_t r = GetParam();
  json m = collectiveManifest(
      {r}, {3}, {3}, {{0}}, nullptr,
      {{"kind", "all_reduce"}, {"axes", {0}}, {"reduction", "sum"}});
  std::vector<double> x = iota(3 * r);
  std::vector<double> expected(3, 0);
  for (int64_t k = 0; k < r; ++k)
    for (int j = 0; j < 3; ++j)
      expected[j] += x[k * 3 + j];
  EXPECT_EQ(runOn(m, {3 * r}, x), expected);
  // max and min pick the last and first shard (x increases).
  m["program"][0]["reduction"] = "max";
  EXPECT_EQ(runOn(m, {3 * r}, x), std::vector<double>(x.end() - 3, x.end()));
  m["program"][0]["reduction"] = "min";
  EXPECT_EQ(runOn(m, {3 * r}, x),
            std::vector<double>(x.begin(), x.begin() + 3));
}

TEST_P(SpmdRanks, AllGatherConcatenatesInGroupOrder) {
  // Rank k holds rows 2k..2k+1 of x [2r, 3]; gathering along dimension 1
  // gives [2, 3r] with y[i, 3k + j] = x[2k + i, j].
  int64_t r = GetParam();
  json m =
      collectiveManifest({r}, {2, 3}, {2, 3 * r}, {{0}, json::array()}, nullptr,
                         {{"kind", "all_gather"}, {"axes", {0}}, {"axis", 1}});
  std::vector<double> x = iota(2 * r * 3);
  std::vector<double> y = runOn(m, {2 * r, 3}, x);
  ASSERT_EQ(int64_t(y.size()), 2 * 3 * r);
  for (int64_t k = 0; k < r; ++k)
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j)
        EXPECT_EQ(y[i * 3 * r + 3 * k + j], x[(2 * k + i) * 3 + j]);
}

TEST_P(SpmdRanks, ReduceScatterGivesEachRankItsBlockOfTheSum) {
  // Rank k holds x_k = x[2r k .. 2r k + 2r - 1]; rank k's output is block k
  // of sum_m x_m, and the sharded output reassembles the whole sum.
  int64_t r = GetParam();
  json m = collectiveManifest({r}, {2 * r}, {2}, {{0}}, {{0}},
                              {{"kind", "reduce_scatter"},
                               {"axes", {0}},
                               {"reduction", "sum"},
                               {"axis", 0}});
  std::vector<double> x = iota(2 * r * r);
  std::vector<double> expected(2 * r, 0);
  for (int64_t k = 0; k < r; ++k)
    for (int64_t e = 0; e < 2 * r; ++e)
      expected[e] += x[k * 2 * r + e];
  EXPECT_EQ(runOn(m, {2 * r * r}, x), expected);
}

TEST_P(SpmdRanks, AllToAllTransposesBlocks) {
  // Rank i holds x_i [r, 2] (rows r i .. r i + r - 1 of x); part j (row j)
  // goes to rank j, which concatenates the parts along dimension 1: the
  // whole output [r, 2r] is out[j, 2i + c] = x[r i + j, c].
  int64_t r = GetParam();
  json m = collectiveManifest({r}, {r, 2}, {1, 2 * r}, {{0}, json::array()},
                              {{0}, json::array()},
                              {{"kind", "all_to_all"},
                               {"axes", {0}},
                               {"split_axis", 0},
                               {"concat_axis", 1}});
  std::vector<double> x = iota(r * r * 2);
  std::vector<double> y = runOn(m, {r * r, 2}, x);
  ASSERT_EQ(int64_t(y.size()), r * 2 * r);
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < r; ++j)
      for (int64_t c = 0; c < 2; ++c)
        EXPECT_EQ(y[j * 2 * r + 2 * i + c], x[(r * i + j) * 2 + c]);
}

TEST_P(SpmdRanks, AllSliceKeepsEachRanksPartOfItsOwnInput) {
  // x [2r, 3] on every rank: rank k keeps rows 2k..2k+1, and the output
  // sharded the same way reassembles x.
  int64_t r = GetParam();
  json fields = {{"kind", "all_slice"},
                 {"axes", {0}},
                 {"axis", 0},
                 {"algorithm", "local"},
                 {"chunks", 1}};
  json m = collectiveManifest({r}, {2 * r, 3}, {2, 3}, nullptr,
                              {{0}, json::array()}, fields);
  std::vector<double> x = iota(2 * r * 3);
  EXPECT_EQ(runOn(m, {2 * r, 3}, x), x);
  // Ranks holding different inputs show whose input each part comes from:
  // rank k holds x_k = x[2r k .. 2r k + 2r - 1] and keeps x_k[2k .. 2k + 1].
  m = collectiveManifest({r}, {2 * r}, {2}, {{0}}, {{0}}, fields);
  x = iota(2 * r * r);
  std::vector<double> expected;
  for (int64_t k = 0; k < r; ++k)
    for (int64_t e = 0; e < 2; ++e)
      expected.push_back(x[2 * r * k + 2 * k + e]);
  EXPECT_EQ(runOn(m, {2 * r * r}, x), expected);
}

INSTANTIATE_TEST_SUITE_P(TwoAndFour, SpmdRanks, ::testing::Values(2, 4));

TEST(SpmdTest, GroupsAlongOneAxisOfATwoDimensionalGrid) {
  // Grid [2, 2], rank = 2 a + b; summing along axis 1 adds ranks (a, 0)
  // and (a, 1); the output, sharded over axis 0, holds both groups' sums.
  json m = collectiveManifest(
      {2, 2}, {1}, {1}, {{0, 1}}, {{0}},
      {{"kind", "all_reduce"}, {"axes", {1}}, {"reduction", "sum"}});
  EXPECT_EQ(runOn(m, {4}, {1, 2, 30, 40}), (std::vector<double>{3, 70}));
  EXPECT_EQ(groupOf({2, 2}, {1}, 2), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(groupOf({2, 3}, {0}, 4), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(groupOf({2, 2}, {1, 0}, 0), (std::vector<int64_t>{0, 2, 1, 3}));
}

TEST(SpmdTest, AllSliceAlongOneAxisOfATwoDimensionalGrid) {
  // Grid [2, 2], rank (a, b) = 2 a + b holds row a of x [2, 4] (the same
  // on both ranks of its group along axis 1) and keeps its columns
  // 2b..2b+1; sharded over both axes, the outputs reassemble x.
  json m = collectiveManifest(
      {2, 2}, {1, 4}, {1, 2}, {{0}, json::array()}, {{0}, {1}},
      {{"kind", "all_slice"}, {"axes", {1}}, {"axis", 1}});
  std::vector<double> x = {1, 2, 3, 4, 50, 60, 70, 80};
  EXPECT_EQ(runOn(m, {2, 4}, x), x);
  // Unsharded, the output is rank 0's part: row 0, columns 0..1.
  m["outputs"][0].erase("sharding");
  EXPECT_EQ(runOn(m, {2, 4}, x), (std::vector<double>{1, 2}));
}

/// A kernel "copy" of two parameters: [rows, cols] f32 from parameter 0
/// through SBUF into parameter 1.
json copyKernel(int64_t rows, int64_t cols) {
  auto hbm = [&](int param) {
    return json{{"space", "hbm"},       {"param", param},
                {"offset", 0},          {"shape", {rows, cols}},
                {"strides", {cols, 1}}, {"dtype", "f32"}};
  };
  json sbuf = {{"space", "sbuf"},
               {"partition", 0},
               {"offset", 0},
               {"shape", {rows, cols}},
               {"dtype", "f32"}};
  return {{"name", "copy"},
          {"parameters", 2},
          {"limits", trn2Limits()},
          {"instructions",
           {{{"op", "dma_copy"},
             {"engine", "dma"},
             {"queue", 0},
             {"src", hbm(0)},
             {"dst", sbuf}},
            {{"op", "dma_copy"},
             {"engine", "dma"},
             {"queue", 1},
             {"src", sbuf},
             {"dst", hbm(1)}}}}};
}

TEST(SpmdTest, ShardedInputsAndOutputsRoundTrip) {
  // x [4, 6] split over a [2, 2] grid, rows along axis 0 and columns along
  // axis 1; each rank copies its [2, 3] shard and the output, sharded the
  // same way, reassembles x. An unsharded output is rank 0's copy of its
  // shard of a replicated input.
  json m = {{"spmd", {{"grid", {2, 2}}}},
            {"tensors",
             {tensor(0, {2, 3}, "input"), tensor(1, {2, 3}, "output"),
              tensor(2, {2, 3}, "input"), tensor(3, {2, 3}, "output")}},
            {"inputs", {io(0, {{0}, {1}}), io(2)}},
            {"outputs", {io(1, {{0}, {1}}), io(3)}},
            {"kernels", {copyKernel(2, 3)}},
            {"program",
             {{{"kernel", "copy"}, {"bindings", {0, 1}}},
              {{"kernel", "copy"}, {"bindings", {2, 3}}}}}};
  Program program = parse(m);
  ASSERT_EQ(wholeShape(program, program.inputs[0]),
            (std::vector<int64_t>{4, 6}));
  std::vector<double> x = iota(24), z = iota(6, -1);
  absl::StatusOr<std::vector<Tensor>> out =
      runSpmd(program, {makeTensor(DType::F32, {4, 6}, x),
                        makeTensor(DType::F32, {2, 3}, z)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape, (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(valuesOf((*out)[0]), x);
  EXPECT_EQ(valuesOf((*out)[1]), z);
  // Rank 3 = (1, 1) holds rows 2..3, columns 3..5.
  Tensor shard =
      shardOf(program, program.inputs[0],
              TensorRef::of(makeTensor(DType::F32, {4, 6}, x)), 3);
  EXPECT_EQ(valuesOf(shard), (std::vector<double>{16, 17, 18, 22, 23, 24}));

  // Two axes on one dimension: the first is the major one.
  json flat = collectiveManifest(
      {2, 2}, {2}, {2}, {{1, 0}}, {{1, 0}},
      {{"kind", "all_reduce"}, {"axes", json::array()}, {"reduction", "sum"}});
  Program p2 = parse(flat);
  Tensor whole = makeTensor(DType::F32, {8}, iota(8));
  // Rank 1 = (0, 1): block 1 * 2 + 0 = 2 of 4.
  EXPECT_EQ(valuesOf(shardOf(p2, p2.inputs[0], TensorRef::of(whole), 1)),
            (std::vector<double>{5, 6}));
  EXPECT_EQ(runOn(flat, {8}, iota(8)), iota(8));

  absl::StatusOr<std::vector<Tensor>> wrong =
      runSpmd(program, {makeTensor(DType::F32, {2, 3}, iota(6)),
                        makeTensor(DType::F32, {2, 3}, z)});
  EXPECT_EQ(wrong.status().message(),
            "inputs[0] (\"t0\"): expected f32[4, 6] (96 bytes, the whole "
            "tensor), found f32[2, 3] (24 bytes)");
  EXPECT_EQ(Device()
                .run(parse(collectiveManifest({2}, {2}, {2}, nullptr, nullptr,
                                              {{"kind", "all_reduce"},
                                               {"axes", {0}},
                                               {"reduction", "sum"}})),
                     {makeTensor(DType::F32, {2}, {1, 2})})
                .status()
                .message(),
            "program[0]: collective 7 needs every rank of the grid (an SPMD "
            "run)");
}

TEST(SpmdTest, AllReduceRoundsOnceToTheDtype) {
  // A bf16 sum rounds once, after the whole group's sum: adding 2^-8 to 1
  // twice with rounding in between would give 1 (ties to even).
  json m = collectiveManifest(
      {4}, {1}, {1}, {{0}}, nullptr,
      {{"kind", "all_reduce"}, {"axes", {0}}, {"reduction", "sum"}});
  for (json &t : m["tensors"])
    t["dtype"] = "bf16";
  Program program = parse(m);
  absl::StatusOr<std::vector<Tensor>> out = runSpmd(
      program, {makeTensor(DType::BF16, {4}, {1, 1.0 / 256, 1.0 / 256, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(valuesOf((*out)[0]), (std::vector<double>{1 + 1.0 / 128}));
}

//===----------------------------------------------------------------------===//
// Ranks spread over processes
//===----------------------------------------------------------------------===//

std::vector<TensorRef> refsOf(const std::vector<Tensor> &tensors) {
  std::vector<TensorRef> refs;
  for (const Tensor &t : tensors)
    refs.push_back(TensorRef::of(t));
  return refs;
}

/// The processes of a run as threads of this test, meeting in exchange()
/// as MPI processes do (runtime/mpi).
class ThreadedRun {
public:
  explicit ThreadedRun(int64_t processes)
      : given(processes), statuses(processes) {}

  class Process final : public RankExchange {
  public:
    Process(ThreadedRun &run, int64_t index) : run(run), index(index) {}
    int64_t process() const override { return index; }
    int64_t processes() const override { return run.given.size(); }
    absl::StatusOr<std::vector<std::vector<uint8_t>>>
    exchange(std::vector<uint8_t> block, const absl::Status &status,
             bool toAll) override {
      return run.meet(index, std::move(block), status, toAll);
    }

  private:
    ThreadedRun &run;
    int64_t index;
  };

  /// Runs `program` on `processes` threads, process p with inputs
  /// `inputs[p]`; every process's result.
  static std::vector<absl::StatusOr<SpmdResult>>
  run(const Program &program, std::vector<std::vector<Tensor>> inputs,
      SpmdOptions options = {}) {
    int64_t processes = int64_t(inputs.size());
    ThreadedRun meeting(processes);
    std::vector<absl::StatusOr<SpmdResult>> results(
        processes, absl::UnknownError("not run"));
    std::vector<std::thread> threads;
    for (int64_t p = 0; p < processes; ++p)
      threads.emplace_back([&, p] {
        Process process(meeting, p);
        SpmdOptions mine = options;
        mine.exchange = &process;
        results[p] = runSpmdProcess(program, refsOf(inputs[p]), nullptr, mine);
      });
    for (std::thread &t : threads)
      t.join();
    return results;
  }

private:
  absl::StatusOr<std::vector<std::vector<uint8_t>>>
  meet(int64_t p, std::vector<uint8_t> block, const absl::Status &status,
       bool toAll) {
    std::unique_lock<std::mutex> lock(mutex);
    given[p] = std::move(block);
    statuses[p] = status;
    int64_t generation = meetings;
    // The last to arrive publishes; nobody can arrive at the next meeting
    // before everyone has read this one's.
    if (++arrived == int64_t(given.size())) {
      met = given;
      metStatuses = statuses;
      arrived = 0;
      ++meetings;
      changed.notify_all();
    } else {
      changed.wait(lock, [&] { return meetings != generation; });
    }
    NEURON_RETURN_IF_ERROR(exchangeFailure(metStatuses, p));
    if (!toAll && p != 0)
      return std::vector<std::vector<uint8_t>>();
    return met;
  }

  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::vector<uint8_t>> given, met;
  std::vector<absl::Status> statuses, metStatuses;
  int64_t arrived = 0, meetings = 0;
};

TEST(SpmdProcessesTest, RanksSplitIntoContiguousBlocks) {
  auto block = [](int64_t ranks, int64_t process, int64_t processes) {
    RankBlock b = ranksOfProcess(ranks, process, processes);
    return std::vector<int64_t>{b.first, b.end};
  };
  EXPECT_EQ(block(8, 0, 3), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(block(8, 1, 3), (std::vector<int64_t>{3, 6}));
  EXPECT_EQ(block(8, 2, 3), (std::vector<int64_t>{6, 8}));
  EXPECT_EQ(block(4, 3, 4), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(block(1, 0, 1), (std::vector<int64_t>{0, 1}));
}

/// Grid [2, 3]: x [2, 6] split into [1, 2] shards, copied by a kernel into
/// tensor 1 (an output sharded like x), then gathered along axis 1 into
/// tensor 2 ([1, 6], sharded over axis 0 only). Both outputs are x.
json copyAndGatherManifest() {
  return {{"spmd", {{"grid", {2, 3}}}},
          {"tensors",
           {tensor(0, {1, 2}, "input"), tensor(1, {1, 2}, "output"),
            tensor(2, {1, 6}, "output")}},
          {"inputs", {io(0, {{0}, {1}})}},
          {"outputs", {io(1, {{0}, {1}}), io(2, {{0}, json::array()})}},
          {"kernels", {copyKernel(1, 2)}},
          {"program",
           {{{"kernel", "copy"}, {"bindings", {0, 1}}},
            {{"collective_start", 3},
             {"input", 1},
             {"output", 2},
             {"grid", {2, 3}},
             {"kind", "all_gather"},
             {"axes", {1}},
             {"axis", 1}},
            {{"collective_done", 3}}}}};
}

TEST(SpmdProcessesTest, AnyNumberOfProcessesGivesTheOneProcessResults) {
  Program program = parse(copyAndGatherManifest());
  std::vector<double> x = iota(12);
  SpmdOptions options;
  options.rankOutputs = true;
  absl::StatusOr<SpmdResult> one = runSpmdProcess(
      program, refsOf({makeTensor(DType::F32, {2, 6}, x)}), nullptr, options);
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_EQ(one->outputs.size(), 2u);
  EXPECT_EQ(valuesOf(one->outputs[0]), x);
  EXPECT_EQ(valuesOf(one->outputs[1]), x);
  ASSERT_EQ(one->rankOutputs.size(), 6u);
  for (int64_t processes = 2; processes <= 6; ++processes) {
    SCOPED_TRACE(absl::StrFormat("%d processes", processes));
    std::vector<absl::StatusOr<SpmdResult>> results = ThreadedRun::run(
        program,
        std::vector<std::vector<Tensor>>(
            processes, {makeTensor(DType::F32, {2, 6}, x)}),
        options);
    int64_t ranksSeen = 0;
    for (int64_t p = 0; p < processes; ++p) {
      ASSERT_TRUE(results[p].ok()) << results[p].status();
      const SpmdResult &r = *results[p];
      // Whole outputs on process 0 only.
      EXPECT_EQ(r.outputs.size(), p == 0 ? 2u : 0u);
      if (p == 0)
        for (size_t o = 0; o < 2; ++o)
          EXPECT_EQ(r.outputs[o].data, one->outputs[o].data);
      EXPECT_EQ(r.ranks.first, ranksSeen);
      for (int64_t k = 0; k < r.ranks.size(); ++k)
        for (size_t o = 0; o < 2; ++o)
          EXPECT_EQ(r.rankOutputs[k][o].data,
                    one->rankOutputs[r.ranks.first + k][o].data);
      ranksSeen = r.ranks.end;
    }
    EXPECT_EQ(ranksSeen, 6);
  }
}

TEST(SpmdProcessesTest, OneProcessFailingStopsEveryProcess) {
  Program program = parse(copyAndGatherManifest());
  Tensor good = makeTensor(DType::F32, {2, 6}, iota(12));
  Tensor bad = makeTensor(DType::F32, {2, 3}, iota(6));
  std::vector<absl::StatusOr<SpmdResult>> results =
      ThreadedRun::run(program, {{good}, {bad}, {good}});
  std::string own = "inputs[0] (\"t0\"): expected f32[2, 6] (48 bytes, the "
                    "whole tensor), found f32[2, 3] (24 bytes)";
  EXPECT_EQ(results[1].status(), absl::InvalidArgumentError(own));
  for (int p : {0, 2})
    EXPECT_EQ(results[p].status(),
              absl::InvalidArgumentError("process 1 stopped the run: " + own));

  // More processes than ranks: every process says so, nobody waits.
  results = ThreadedRun::run(program,
                             std::vector<std::vector<Tensor>>(7, {good}));
  for (const absl::StatusOr<SpmdResult> &r : results)
    EXPECT_EQ(r.status(),
              absl::FailedPreconditionError(
                  "the program has 6 ranks, fewer than the run's 7 "
                  "processes: start at most 6"));
}

TEST(SpmdProcessesTest, ExchangeFailureNamesTheFirstFailedProcess) {
  std::vector<absl::Status> statuses = {absl::OkStatus(),
                                        absl::OutOfRangeError("a"),
                                        absl::InternalError("b")};
  EXPECT_EQ(exchangeFailure(statuses, 0),
            absl::OutOfRangeError("process 1 stopped the run: a"));
  EXPECT_EQ(exchangeFailure(statuses, 2), absl::InternalError("b"));
  EXPECT_TRUE(exchangeFailure({absl::OkStatus(), absl::OkStatus()}, 1).ok());
}

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

struct Trn2 {
  TargetRegistry registry;
  ResolvedTarget target;
  CostModel cost;
  CollectiveLinks links;
};

const Trn2 &trn2() {
  static const Trn2 *models = [] {
    absl::StatusOr<TargetRegistry> registry = TargetRegistry::loadBuiltin();
    EXPECT_TRUE(registry.ok()) << registry.status();
    absl::StatusOr<ResolvedTarget> target = registry->resolve("trn2");
    EXPECT_TRUE(target.ok()) << target.status();
    absl::StatusOr<CostModel> cost = CostModel::forTarget(*target);
    absl::StatusOr<CollectiveModel> links = CollectiveModel::forTarget(*target);
    EXPECT_TRUE(cost.ok() && links.ok());
    return new Trn2{*std::move(registry), *target, *cost,
                    CollectiveLinks{*links, target->logicalCoresPerChip()}};
  }();
  return *models;
}

/// all_reduce of a [128, 512] f32 tensor over 2 ranks, with `between`
/// copies of a [128, 512] tensor between its start and done.
json overlapManifest(int between) {
  json program = {{{"collective_start", 1},
                   {"kind", "all_reduce"},
                   {"input", 0},
                   {"output", 1},
                   {"grid", {2}},
                   {"axes", {0}},
                   {"reduction", "sum"},
                   {"algorithm", "ring"},
                   {"predicted_ns", 12345}}};
  for (int i = 0; i < between; ++i)
    program.push_back({{"kernel", "copy"}, {"bindings", {2, 3}}});
  program.push_back({{"collective_done", 1}});
  return {{"spmd", {{"grid", {2}}}},
          {"tensors",
           {tensor(0, {128, 512}, "input"), tensor(1, {128, 512}, "output"),
            tensor(2, {128, 512}, "input"), tensor(3, {128, 512}, "output")}},
          {"inputs", {io(0), io(2)}},
          {"outputs", {io(1), io(3)}},
          {"kernels", {copyKernel(128, 512)}},
          {"program", program}};
}

TEST(SpmdTest, KernelInFlightOverlapsTheCollective) {
  const Trn2 &t = trn2();
  double collective =
      t.links.model.ns({CollectiveOp::AllReduce, 128 * 512 * 4, 2, 1},
                       CollectiveAlgorithm::Ring);
  ASSERT_GT(collective, 0);
  for (int between : {1, 8}) {
    Program program = parse(overlapManifest(between));
    absl::StatusOr<ProgramTiming> timing =
        simulateProgramTiming(program, t.cost, t.links);
    ASSERT_TRUE(timing.ok()) << timing.status();
    double kernels = between * timing->kernels[0].observedNs;
    ASSERT_GT(kernels, 0);
    ASSERT_EQ(timing->collectives.size(), 1u);
    const CollectiveTiming &c = timing->collectives[0];
    EXPECT_EQ(c.query.chips, 1);
    EXPECT_DOUBLE_EQ(c.ns, collective);
    EXPECT_DOUBLE_EQ(timing->totalNs, std::max(kernels, collective));
    EXPECT_DOUBLE_EQ(timing->serialisedNs, kernels + collective);
    EXPECT_LT(timing->totalNs, timing->serialisedNs);
    for (int r = 0; r < 2; ++r) {
      EXPECT_DOUBLE_EQ(c.startNs[r], 0);
      EXPECT_DOUBLE_EQ(c.exposedNs[r], std::max(0.0, collective - kernels));
      EXPECT_DOUBLE_EQ(c.overlapNs[r], std::min(kernels, collective));
    }
  }
  // Back to back, two collectives share each rank's collective engine.
  json m = overlapManifest(0);
  m["program"] = {m["program"][0],
                  m["program"][0],
                  {{"collective_done", 1}},
                  {{"collective_done", 2}}};
  m["program"][1]["collective_start"] = 2;
  m["program"][1]["output"] = 3;
  m["program"][1]["input"] = 2;
  Program program = parse(m);
  absl::StatusOr<ProgramTiming> timing =
      simulateProgramTiming(program, t.cost, t.links);
  ASSERT_TRUE(timing.ok()) << timing.status();
  EXPECT_DOUBLE_EQ(timing->collectives[1].startNs[0], collective);
  EXPECT_DOUBLE_EQ(timing->totalNs, 2 * collective);
  EXPECT_EQ(simulateProgramTiming(program, t.cost).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

/// A kernel copying parameter 0 into 2, then parameter 1 into 3 (the first
/// `rows` x 512 f32 of each, one instruction after another: no schedule).
json twoCopiesKernel(int64_t rows) {
  json kernel = copyKernel(rows, 512);
  json first = kernel["instructions"];
  json second = first;
  second[0]["src"]["param"] = 1;
  second[0]["dst"]["offset"] = 2048;
  second[1]["src"]["offset"] = 2048;
  second[1]["dst"]["param"] = 3;
  first[1]["dst"]["param"] = 2;
  kernel["name"] = "two_copies";
  kernel["parameters"] = 4;
  kernel["instructions"] = {first[0], first[1], second[0], second[1]};
  return kernel;
}

/// all_reduce (sum over 2 ranks) of tensor 0 into 1 ([128, 512]), and,
/// while it is in flight, a launch of two_copies that copies tensor 2 into
/// 3 and the first 4 rows of the all_reduce's result into 4, awaiting it
/// inside. The copies are short beside the all_reduce.
json awaitManifest() {
  json m = overlapManifest(0);
  m["tensors"] = {tensor(0, {128, 512}, "input"),
                  tensor(1, {128, 512}, "scratch"),
                  tensor(2, {4, 512}, "input"),
                  tensor(3, {4, 512}, "output"),
                  tensor(4, {4, 512}, "output")};
  m["outputs"] = {io(3), io(4)};
  m["kernels"] = {twoCopiesKernel(4)};
  m["program"] = {m["program"][0],
                  {{"kernel", "two_copies"},
                   {"bindings", {2, 1, 3, 4}},
                   {"awaits", {1}}},
                  m["program"][1]};
  return m;
}

TEST(SpmdTest, LaunchAwaitingACollectiveWaitsInsideForItsResult) {
  Program program = parse(awaitManifest());
  ASSERT_EQ(program.steps[1].awaits, std::vector<int64_t>{0});
  std::vector<double> x = iota(128 * 512), y = iota(4 * 512, 2);
  absl::StatusOr<std::vector<Tensor>> out =
      runSpmd(program, {makeTensor(DType::F32, {128, 512}, x),
                        makeTensor(DType::F32, {4, 512}, y)});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ(valuesOf((*out)[0]), y);
  std::vector<double> sum(x.begin(), x.begin() + 4 * 512);
  for (double &v : sum)
    v *= 2;
  EXPECT_EQ(valuesOf((*out)[1]), sum);

  // The copy of tensor 2 runs under the collective; the copy of its result
  // starts when it finishes. The time the launch takes beyond its own is
  // the collective's exposed time.
  const Trn2 &t = trn2();
  absl::StatusOr<ProgramTiming> timing =
      simulateProgramTiming(program, t.cost, t.links);
  ASSERT_TRUE(timing.ok()) << timing.status();
  double own = timing->kernels[0].observedNs, half = own / 2;
  const CollectiveTiming &c = timing->collectives[0];
  ASSERT_GT(c.ns, half); // the copy of the result waits
  double launch = c.ns + half;
  EXPECT_DOUBLE_EQ(timing->steps[1].durationNs, launch);
  EXPECT_DOUBLE_EQ(timing->steps[2].durationNs, 0);
  EXPECT_DOUBLE_EQ(timing->totalNs, launch);
  EXPECT_DOUBLE_EQ(timing->serialisedNs, c.ns + own);
  for (int r = 0; r < 2; ++r) {
    EXPECT_DOUBLE_EQ(c.exposedNs[r], launch - own);
    EXPECT_DOUBLE_EQ(c.overlapNs[r], c.ns - (launch - own));
  }
  EXPECT_DOUBLE_EQ(timing->launch(program, 1).observedNs, launch);
  json profile = profileJson(program, *timing, t.cost, nullptr, &t.target);
  EXPECT_DOUBLE_EQ(profile["kernels"][0]["observed_ns"].get<double>(), launch);
}

TEST(SpmdTest, AwaitedJoinReleasesEachReadWithItsPiece) {
  // Two all-reduces write the two halves of one tensor (views of it); a
  // launch reading the whole tensor, half by half, awaits both. The
  // collective engine runs them one after another: the read of the first
  // half waits for the first only.
  json m = overlapManifest(0);
  json start = m["program"][0];
  json second = start;
  second["collective_start"] = 2;
  second["input"] = 1;
  second["output"] = 4;
  start["output"] = 3;
  auto view = [](int64_t id, int64_t offset) {
    json t = tensor(id, {128, 512}, "view");
    t["view"] = {{"tensor", 2}, {"offset", offset}};
    return t;
  };
  m["tensors"] = {tensor(0, {128, 512}, "input"),
                  tensor(1, {128, 512}, "input"),
                  tensor(2, {256, 512}, "scratch"),
                  view(3, 0),
                  view(4, 128 * 512),
                  tensor(5, {128, 512}, "output"),
                  tensor(6, {128, 512}, "output")};
  m["inputs"] = {io(0), io(1)};
  m["outputs"] = {io(5), io(6)};
  json kernel = twoCopiesKernel(128);
  kernel["parameters"] = 3;
  kernel["instructions"][2]["src"]["param"] = 0;
  kernel["instructions"][2]["src"]["offset"] = 128 * 512;
  kernel["instructions"][1]["dst"]["param"] = 1;
  kernel["instructions"][3]["dst"]["param"] = 2;
  m["kernels"] = {kernel};
  m["program"] = {start,
                  second,
                  {{"kernel", "two_copies"},
                   {"bindings", {2, 5, 6}},
                   {"awaits", {1, 2}}},
                  {{"collective_done", 1}},
                  {{"collective_done", 2}}};
  Program program = parse(m);
  std::vector<double> x = iota(128 * 512), y = iota(128 * 512, 3);
  absl::StatusOr<std::vector<Tensor>> out =
      runSpmd(program, {makeTensor(DType::F32, {128, 512}, x),
                        makeTensor(DType::F32, {128, 512}, y)});
  ASSERT_TRUE(out.ok()) << out.status();
  for (double &v : x)
    v *= 2;
  for (double &v : y)
    v *= 2;
  EXPECT_EQ(valuesOf((*out)[0]), x);
  EXPECT_EQ(valuesOf((*out)[1]), y);

  const Trn2 &t = trn2();
  absl::StatusOr<ProgramTiming> timing =
      simulateProgramTiming(program, t.cost, t.links);
  ASSERT_TRUE(timing.ok()) << timing.status();
  double ns = timing->collectives[0].ns;
  ASSERT_DOUBLE_EQ(timing->collectives[1].finishNs[0], 2 * ns);
  const KernelTiming &launch = timing->launch(program, 2);
  EXPECT_DOUBLE_EQ(launch.startNs[0], ns);
  EXPECT_DOUBLE_EQ(launch.startNs[2], std::max(2 * ns, launch.endNs[1]));
}

TEST(SpmdTest, AwaitErrors) {
  json m = awaitManifest();
  m["program"][1]["awaits"] = {9};
  EXPECT_EQ(errorOf(m), "manifest: program[1].awaits: expected ids of "
                        "collectives in flight at this step (started before "
                        "it, done after it), found 9, no collective's id");
  m = awaitManifest();
  m["program"] = {m["program"][0], m["program"][2], m["program"][1]};
  EXPECT_EQ(errorOf(m), "manifest: program[2].awaits: expected ids of "
                        "collectives in flight at this step (started before "
                        "it, done after it), found 1, in flight from "
                        "program[0] to program[1]");
  m = awaitManifest();
  m["program"][1]["awaits"] = "1";
  EXPECT_EQ(errorOf(m), "manifest: program[1].awaits: expected an array of "
                        "integers, found a string \"1\"");
  m = awaitManifest();
  m["program"][1]["bindings"] = {2, 0, 3, 4};
  EXPECT_EQ(errorOf(m), "manifest: program[1].awaits: expected collectives "
                        "whose outputs the kernel reads, found collective 1, "
                        "whose output (tensor 1) it does not read");
  m = awaitManifest();
  m["program"][1]["awaits"] = {1, 1};
  EXPECT_EQ(errorOf(m), "manifest: program[1].awaits: expected distinct "
                        "collective ids, found [1, 1]");
  // Awaiting lets the launch read the result, never write it.
  m = awaitManifest();
  m["program"][1]["bindings"] = {2, 1, 3, 1};
  EXPECT_NE(errorOf(m).find("a step that writes tensor 1"), std::string::npos)
      << errorOf(m);
  // Without awaits, the launch may not read the result in flight.
  m = awaitManifest();
  m["program"][1].erase("awaits");
  EXPECT_NE(errorOf(m).find("a step that reads tensor 1"), std::string::npos)
      << errorOf(m);
}

TEST(SpmdTest, ReportsShowRanksCollectivesAndCores) {
  const Trn2 &t = trn2();
  Program program = parse(overlapManifest(2));
  absl::StatusOr<ProgramTiming> timing =
      simulateProgramTiming(program, t.cost, t.links);
  ASSERT_TRUE(timing.ok()) << timing.status();
  json profile = profileJson(program, *timing, t.cost, nullptr, &t.target);
  EXPECT_EQ(profile["cores"]["logical_cores_per_chip"],
            t.target.logicalCoresPerChip());
  EXPECT_EQ(profile["cores"]["lnc_definition"], t.target.lnc.definition);
  EXPECT_EQ(profile["spmd"]["ranks"], 2);
  EXPECT_EQ(profile["spmd"]["serialised_ns"], timing->serialisedNs);
  const json &c = profile["spmd"]["collectives"][0];
  EXPECT_EQ(c["kind"], "all_reduce");
  EXPECT_EQ(c["predicted_ns"], 12345);
  EXPECT_EQ(c["observed_ns"], timing->collectives[0].ns);
  EXPECT_EQ(c["per_rank"].size(), 2u);
  EXPECT_EQ(profile["kernels"].size(), 2u);

  json trace = traceJson(program, *timing, t.cost);
  std::set<std::string> processes;
  int links = 0, kernelEvents = 0;
  for (const json &e : trace["traceEvents"]) {
    if (e["name"] == "process_name")
      processes.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] == "X" && e["name"] == "all_reduce #1")
      ++links;
    if (e["ph"] == "X" && e["pid"] == 2)
      ++kernelEvents;
  }
  EXPECT_EQ(processes,
            (std::set<std::string>{"observed rank 0", "observed rank 1",
                                   "predicted", "links"}));
  EXPECT_EQ(links, 2);
  EXPECT_EQ(kernelEvents, 4);
  // The predicted process places the collective on its clock: the start is
  // step 0, so it runs from 0 for the compiler's predicted_ns.
  std::vector<json> predicted;
  for (const json &e : trace["traceEvents"])
    if (e["ph"] == "X" && e["pid"] == 3 && e["name"] == "all_reduce")
      predicted.push_back(e);
  ASSERT_EQ(predicted.size(), 1u);
  EXPECT_EQ(predicted[0]["ts"], 0.0);
  EXPECT_DOUBLE_EQ(predicted[0]["dur"].get<double>(), 12.345);
  EXPECT_EQ(predicted[0]["args"]["predicted_ns"], 12345);
  EXPECT_EQ(predicted[0]["args"]["algorithm"], "ring");

  // One observed group per rank and the predicted one, each with a
  // collective row.
  std::string svg = timelineSvg(program, *timing, t.cost);
  for (const char *group : {"<g id=\"rank-0\">", "<g id=\"rank-1\">",
                            "<g id=\"predicted\">", ">rank 1<"})
    EXPECT_NE(svg.find(group), std::string::npos) << group;
  EXPECT_EQ(svg.find(">observed<"), std::string::npos);
  size_t rows = 0;
  for (size_t at = 0; (at = svg.find(">collective<", at)) != std::string::npos;
       ++at)
    ++rows;
  EXPECT_EQ(rows, 3u);
  EXPECT_NE(svg.find("<title>all_reduce #1: 262144 bytes, ring, observed "),
            std::string::npos);
  EXPECT_NE(svg.find("<title>all_reduce #1: 262144 bytes, ring, predicted "
                     "12345.0 ns: 0.0..12345.0 ns</title>"),
            std::string::npos);
  std::string summary = timingSummary(program, *timing);
  EXPECT_NE(summary.find("start all_reduce #1"), std::string::npos) << summary;
  EXPECT_NE(summary.find("every collective serialised"), std::string::npos);
}

TEST(SpmdTest, TimelineDrawsAtMostEightRanks) {
  const Trn2 &t = trn2();
  Program program = parse(collectiveManifest(
      {16}, {1}, {1}, {{0}}, nullptr,
      {{"kind", "all_reduce"}, {"axes", {0}}, {"reduction", "sum"}}));
  absl::StatusOr<ProgramTiming> timing =
      simulateProgramTiming(program, t.cost, t.links);
  ASSERT_TRUE(timing.ok()) << timing.status();
  std::string svg = timelineSvg(program, *timing, t.cost);
  EXPECT_NE(svg.find(">rank 7<"), std::string::npos);
  EXPECT_EQ(svg.find(">rank 8<"), std::string::npos);
  EXPECT_NE(svg.find(">ranks 8..15 not drawn (16 ranks)<"), std::string::npos);
  // Nothing predicted: no predicted group.
  EXPECT_EQ(svg.find(">predicted<"), std::string::npos);
}

TEST(SpmdTest, AllSliceTakesTheModelsLocalTimeOnNoLink) {
  // f32 [8 x 128, 512] sliced over 8 ranks: trn2 holds 4 logical cores per
  // chip, so the group spans two chips, yet each rank only copies its
  // [128, 512] part within itself.
  const Trn2 &t = trn2();
  ASSERT_EQ(t.links.logicalCoresPerChip, 4);
  json m = collectiveManifest(
      {8}, {8 * 128, 512}, {128, 512}, nullptr, {{0}, json::array()},
      {{"kind", "all_slice"}, {"axes", {0}}, {"axis", 0}});
  double local = 1000 + 128 * 512 * 4 / t.links.model.intraChipBytesPerNs();
  for (json algorithm : {json("local"), json(nullptr)}) {
    if (algorithm.is_null())
      start(m).erase("algorithm");
    else
      start(m)["algorithm"] = algorithm;
    Program program = parse(m);
    absl::StatusOr<ProgramTiming> timing =
        simulateProgramTiming(program, t.cost, t.links);
    ASSERT_TRUE(timing.ok()) << timing.status();
    ASSERT_EQ(timing->collectives.size(), 1u);
    const CollectiveTiming &c = timing->collectives[0];
    EXPECT_EQ(c.query.op, CollectiveOp::AllSlice);
    EXPECT_EQ(c.query.chips, 2);
    EXPECT_EQ(c.algorithm, CollectiveAlgorithm::Local);
    EXPECT_DOUBLE_EQ(c.ns,
                     t.links.model.ns(c.query, CollectiveAlgorithm::Local));
    EXPECT_NEAR(c.ns, local, 1e-6);
    EXPECT_DOUBLE_EQ(timing->totalNs, local);
    for (int r = 0; r < 8; ++r)
      EXPECT_DOUBLE_EQ(c.finishNs[r] - c.startNs[r], local);
    json profile = profileJson(program, *timing, t.cost, nullptr, &t.target);
    EXPECT_EQ(profile["spmd"]["collectives"][0]["kind"], "all_slice");
    EXPECT_EQ(profile["spmd"]["collectives"][0]["algorithm"], "local");
    EXPECT_NE(timingSummary(program, *timing).find("all_slice #7"),
              std::string::npos);
  }
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

json allReduce() {
  return collectiveManifest(
      {2}, {4}, {4}, {{0}}, nullptr,
      {{"kind", "all_reduce"}, {"axes", {0}}, {"reduction", "sum"}});
}

TEST(SpmdTest, CollectiveFieldErrors) {
  json m = allReduce();
  start(m)["kind"] = "broadcast";
  EXPECT_EQ(errorOf(m), "manifest: program[0].kind: expected one of "
                        "all_reduce all_gather reduce_scatter all_to_all "
                        "all_slice, found a string \"broadcast\"");
  m = allReduce();
  start(m)["axis"] = 0;
  EXPECT_EQ(errorOf(m), "manifest: program[0].axis: expected no axis "
                        "(all_reduce takes none), found a number 0");
  m = allReduce();
  start(m).erase("reduction");
  EXPECT_EQ(errorOf(m), "manifest: program[0].reduction: expected a "
                        "non-empty string, found nothing (the field is "
                        "missing)");
  m = allReduce();
  start(m)["kind"] = "all_to_all";
  start(m).erase("reduction");
  start(m)["split_axis"] = 0;
  EXPECT_EQ(errorOf(m), "manifest: program[0].concat_axis: expected a "
                        "dimension in [0, 0] of the input, found nothing "
                        "(the field is missing)");
  m = allReduce();
  start(m)["input"] = 2;
  EXPECT_EQ(errorOf(m), "manifest: program[0].input: expected a tensor id in "
                        "[0, 1], found a number 2");
  m = allReduce();
  start(m)["axes"] = {1};
  EXPECT_EQ(errorOf(m), "manifest: program[0].axes[0]: expected an integer "
                        "in [0, 0], found a number 1");
  m = allReduce();
  start(m)["grid"] = {4};
  EXPECT_EQ(errorOf(m), "manifest: program[0].grid: expected the program's "
                        "grid [2] (spmd.grid), found [4]");
  m = allReduce();
  start(m)["algorithm"] = "tree";
  EXPECT_EQ(errorOf(m), "manifest: program[0].algorithm: expected one of "
                        "ring halving-doubling mesh hierarchical local, found a "
                        "string \"tree\"");
  m = allReduce();
  start(m)["algorithm"] = "local";
  EXPECT_EQ(errorOf(m), "manifest: program[0].algorithm: expected one of "
                        "ring halving-doubling mesh hierarchical (all_reduce "
                        "moves data between cores; local is all_slice's "
                        "alone), "
                        "found a string \"local\"");
  m = allReduce();
  start(m)["bogus"] = 1;
  EXPECT_NE(errorOf(m).find("program[0].bogus: unknown field"),
            std::string::npos);
}

TEST(SpmdTest, CollectiveShapeErrors) {
  json m = allReduce();
  m["tensors"][1]["shape"] = {2};
  EXPECT_EQ(errorOf(m), "manifest: program[0].output: expected a f32[4] "
                        "tensor (all_reduce of [4] over a group of 2 ranks), "
                        "found tensor 1: f32[2]");
  m = collectiveManifest({2}, {4}, {4}, nullptr, nullptr,
                         {{"kind", "all_gather"}, {"axes", {0}}, {"axis", 0}});
  EXPECT_EQ(errorOf(m), "manifest: program[0].output: expected a f32[8] "
                        "tensor (all_gather of [4] over a group of 2 ranks), "
                        "found tensor 1: f32[4]");
  m = collectiveManifest({2}, {3}, {1}, nullptr, nullptr,
                         {{"kind", "reduce_scatter"},
                          {"axes", {0}},
                          {"reduction", "max"},
                          {"axis", 0}});
  EXPECT_EQ(errorOf(m), "manifest: program[0].axis: expected a dimension "
                        "that splits evenly over the 2 ranks of a group, "
                        "found dimension 0 of tensor 0: f32[3]");
  m = collectiveManifest({4}, {4}, {1}, nullptr, nullptr,
                         {{"kind", "reduce_scatter"},
                          {"axes", {0}},
                          {"reduction", "max"},
                          {"axis", 0}});
  EXPECT_EQ(errorOf(m), "");
  m["tensors"][1]["dtype"] = "bf16";
  EXPECT_EQ(errorOf(m), "manifest: program[0].output: expected a f32[1] "
                        "tensor (reduce_scatter of [4] over a group of 4 "
                        "ranks), found tensor 1: bf16[1]");
}

json allSlice() {
  return collectiveManifest({2}, {4}, {2}, nullptr, nullptr,
                            {{"kind", "all_slice"},
                             {"axes", {0}},
                             {"axis", 0},
                             {"algorithm", "local"},
                             {"chunks", 1},
                             {"predicted_ns", 1000}});
}

TEST(SpmdTest, AllSliceErrors) {
  json m = allSlice();
  ASSERT_EQ(errorOf(m), "");
  EXPECT_EQ(parse(m).steps[0].collective.op, CollectiveOp::AllSlice);
  m["tensors"][0]["shape"] = {3};
  EXPECT_EQ(errorOf(m), "manifest: program[0].axis: expected a dimension "
                        "that splits evenly over the 2 ranks of a group, "
                        "found dimension 0 of tensor 0: f32[3]");
  m = allSlice();
  m["tensors"][1]["shape"] = {4};
  EXPECT_EQ(errorOf(m), "manifest: program[0].output: expected a f32[2] "
                        "tensor (all_slice of [4] over a group of 2 ranks), "
                        "found tensor 1: f32[4]");
  m = allSlice();
  m["tensors"][1]["dtype"] = "bf16";
  EXPECT_EQ(errorOf(m), "manifest: program[0].output: expected a f32[2] "
                        "tensor (all_slice of [4] over a group of 2 ranks), "
                        "found tensor 1: bf16[2]");
  m = allSlice();
  start(m)["reduction"] = "sum";
  EXPECT_EQ(errorOf(m), "manifest: program[0].reduction: expected no "
                        "reduction (all_slice takes none), found a string "
                        "\"sum\"");
  m = allSlice();
  start(m)["split_axis"] = 0;
  EXPECT_EQ(errorOf(m), "manifest: program[0].split_axis: expected no "
                        "split_axis (all_slice takes none), found a number 0");
  m = allSlice();
  start(m).erase("axis");
  EXPECT_EQ(errorOf(m), "manifest: program[0].axis: expected a dimension in "
                        "[0, 0] of the input, found nothing (the field is "
                        "missing)");
  m = allSlice();
  start(m)["algorithm"] = "ring";
  EXPECT_EQ(errorOf(m), "manifest: program[0].algorithm: expected local "
                        "(all_slice moves no data between cores), found a "
                        "string \"ring\"");
}

TEST(SpmdTest, StartDonePairing) {
  json m = allReduce();
  m["program"].erase(1);
  EXPECT_EQ(errorOf(m), "manifest: program[0].collective_start: expected a "
                        "collective_done 7 later in the program, found none");
  m = allReduce();
  m["program"][1]["collective_done"] = 8;
  EXPECT_EQ(errorOf(m), "manifest: program[1].collective_done: expected the "
                        "id of a collective_start, found 8");
  m = allReduce();
  m["program"] = {m["program"][1], m["program"][0], m["program"][1]};
  EXPECT_EQ(errorOf(m), "manifest: program[0].collective_done: expected a "
                        "done after its start (program[1] starts 7), found 7");
  m = allReduce();
  m["program"].push_back(m["program"][1]);
  EXPECT_EQ(errorOf(m), "manifest: program[2].collective_done: expected one "
                        "done per start (program[1] already finished 7), "
                        "found 7");
  m = allReduce();
  m["program"].push_back(m["program"][0]);
  m["program"].push_back(m["program"][1]);
  EXPECT_EQ(errorOf(m), "manifest: program[2].collective_start: expected an "
                        "id no other collective_start uses (program[0] "
                        "starts 7), found 7");
  m = allReduce();
  m.erase("spmd");
  m["inputs"][0].erase("sharding");
  EXPECT_EQ(errorOf(m), "manifest: program[0].collective_start: expected no "
                        "collective (the program has no top-level spmd "
                        "grid), found collective 7");
  // A step in flight may not write the collective's output.
  m = overlapManifest(1);
  m["program"][1]["bindings"] = {2, 1};
  EXPECT_EQ(errorOf(m), "manifest: program[1]: expected a step that leaves "
                        "tensors 0 and 1 alone while collective 1 is in "
                        "flight (program[0] to program[2]), found a step "
                        "that writes tensor 1");
  // Reading its input is fine.
  m["program"][1]["bindings"] = {0, 3};
  EXPECT_EQ(errorOf(m), "");
}

TEST(SpmdTest, SpmdAndShardingErrors) {
  json m = allReduce();
  m["spmd"]["grid"] = json::array();
  EXPECT_EQ(errorOf(m), "manifest: spmd.grid: expected a non-empty grid of "
                        "at most 4096 ranks, found []");
  m = allReduce();
  m["spmd"]["grid"] = {64, 128};
  EXPECT_EQ(errorOf(m), "manifest: spmd.grid: expected a non-empty grid of "
                        "at most 4096 ranks, found [64, 128]");
  m = allReduce();
  m["inputs"][0]["sharding"] = {{1}};
  EXPECT_EQ(errorOf(m), "manifest: inputs[0].sharding[0][0]: expected a grid "
                        "axis in [0, 0], found a number 1");
  m = allReduce();
  m["inputs"][0]["sharding"] = {{0}, {0}};
  EXPECT_EQ(errorOf(m), "manifest: inputs[0].sharding: expected an array of "
                        "1 arrays of grid axes (one per dimension of tensor "
                        "0, f32[4]), found an array of 2 elements");
  m = collectiveManifest(
      {2, 2}, {4, 4}, {4, 4}, {{0}, {0}}, nullptr,
      {{"kind", "all_reduce"}, {"axes", {0}}, {"reduction", "sum"}});
  EXPECT_EQ(errorOf(m), "manifest: inputs[0].sharding[1][0]: expected a grid "
                        "axis that shards no other dimension, found axis 0 "
                        "again");
  m = allReduce();
  m.erase("spmd");
  m["program"] = json::array();
  EXPECT_EQ(errorOf(m), "manifest: inputs[0].sharding: expected no sharding "
                        "(the program has no top-level spmd grid), found an "
                        "array of 1 elements");
}

/// Replaces every value of two SPMD manifests, in turn, by hostile
/// values; the reader must return either way, and any program it accepts
/// must run and time.
TEST(SpmdTest, NoJsonValueCrashes) {
  const json hostile[] = {nullptr,
                          -1,
                          0,
                          1,
                          3,
                          4096,
                          int64_t(1) << 62,
                          0.5,
                          "",
                          "max",
                          json::array(),
                          json::array({1, 2}),
                          json::object()};
  json small = {{"spmd", {{"grid", {2, 2}}}},
                {"tensors",
                 {tensor(0, {2, 3}, "input"), tensor(1, {2, 3}, "output"),
                  tensor(2, {2, 3}, "input"), tensor(3, {2, 6}, "output")}},
                {"inputs", {io(0, {{0}, {1}}), io(2)}},
                {"outputs", {io(1, {{0}, {1}}), io(3, {{0}, json::array()})}},
                {"kernels", {copyKernel(2, 3)}},
                {"program",
                 {{{"collective_start", 3},
                   {"kind", "all_gather"},
                   {"input", 2},
                   {"output", 3},
                   {"grid", {2, 2}},
                   {"axes", {1}},
                   {"axis", 1},
                   {"chunks", 2},
                   {"algorithm", "hierarchical"}},
                  {{"kernel", "copy"}, {"bindings", {0, 1}}},
                  {{"collective_done", 3}}}}};
  // Small on-chip memories keep the runs of accepted mutations quick.
  small["kernels"][0]["limits"]["sbuf_bytes"] = 1024;
  json toAll = collectiveManifest({2}, {2, 2}, {1, 4}, {{0}, json::array()},
                                  {{0}, json::array()},
                                  {{"kind", "all_to_all"},
                                   {"axes", {0}},
                                   {"split_axis", 0},
                                   {"concat_axis", 1}});
  HostileSweep sweep;
  for (const json &base : {small, toAll}) {
    HostileSweep one = sweepHostileValues(
        base, json::json_pointer(), hostile, [](const Program &program) {
          std::vector<Tensor> inputs;
          for (const IoBinding &in : program.inputs) {
            std::vector<int64_t> shape = wholeShape(program, in);
            int64_t n = 1;
            for (int64_t d : shape)
              n *= d;
            inputs.push_back(makeTensor(program.tensors[in.tensor].dtype,
                                        shape, iota(n)));
          }
          (void)runSpmd(program, std::move(inputs));
          (void)simulateProgramTiming(program, trn2().cost, trn2().links);
        });
    sweep.checked += one.checked;
    sweep.accepted += one.accepted;
  }
  EXPECT_GT(sweep.checked, 1000);
  EXPECT_GT(sweep.accepted, 0);
}

} // namespace
