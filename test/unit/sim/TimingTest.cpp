//===- TimingTest.cpp - Timing simulation and its reports -----------------===//
//
// Closed-form cases of the timing simulator (independent units overlap, a
// chain of waits serialises, an unscheduled kernel runs serially, DMA
// transfers share HBM bandwidth, a wait cycle is a deadlock), the reader's
// errors for the schedule fields, and the profile, trace and timeline
// writers on a small program.
//
//===----------------------------------------------------------------------===//

#include "SimTestUtil.h"

#include "runtime/sim/Profile.h"
#include "runtime/sim/TargetModels.h"
#include "runtime/sim/Timing.h"
#include "runtime/target/Target.h"

#include <gtest/gtest.h>

#include <set>

using namespace neuron::rt;
using namespace neuron::rt::test;

namespace {

CostModel modelOf(const char *spec) {
  absl::StatusOr<TargetRegistry> registry = TargetRegistry::loadBuiltin();
  EXPECT_TRUE(registry.ok()) << registry.status();
  absl::StatusOr<ResolvedTarget> target = registry->resolve(spec);
  EXPECT_TRUE(target.ok()) << target.status();
  absl::StatusOr<CostModel> model = CostModel::forTarget(*target);
  EXPECT_TRUE(model.ok()) << model.status();
  return *model;
}

/// The cost model of one trn2 physical core (16 queues of 23 B/ns sharing
/// about 362 B/ns).
const CostModel &trn2() {
  static const CostModel model = modelOf("trn2,lnc=1");
  return model;
}

/// A trn2 logical core of two physical cores, each with 16 queues, sharing
/// about 725 B/ns.
const CostModel &trn2Lnc2() {
  static const CostModel model = modelOf("trn2,lnc=2");
  return model;
}

json sbuf(std::vector<int64_t> shape, const char *dtype = "f32",
          int64_t offset = 0) {
  return {{"space", "sbuf"},
          {"partition", 0},
          {"offset", offset},
          {"shape", shape},
          {"dtype", dtype}};
}

/// matmul of a [128, 128] x [128, 512] bf16 pair into PSUM.
json matmul() {
  return {{"op", "matmul"},
          {"engine", "tensor"},
          {"accumulate", false},
          {"stationary", sbuf({128, 128}, "bf16")},
          {"moving", sbuf({128, 512}, "bf16", 256)},
          {"dst",
           {{"space", "psum"},
            {"partition", 0},
            {"offset", 0},
            {"shape", {128, 512}},
            {"dtype", "f32"}}}};
}

/// tensor_scalar over [128, 256] f32.
json vectorOp() {
  return {{"op", "tensor_scalar"},
          {"engine", "vector"},
          {"alu", "add"},
          {"scalar", 1.0},
          {"src", sbuf({128, 256})},
          {"dst", sbuf({128, 256}, "f32", 4096)}};
}

/// dma_copy of `rows` x 512 f32 from parameter 0 into SBUF on `queue`.
json dmaIn(int64_t queue, int64_t rows = 128) {
  return {{"op", "dma_copy"},
          {"engine", "dma"},
          {"queue", queue},
          {"src",
           {{"space", "hbm"},
            {"param", 0},
            {"offset", 0},
            {"shape", {rows, 512}},
            {"strides", {512, 1}},
            {"dtype", "f32"}}},
          {"dst", sbuf({rows, 512}, "f32", 8192)}};
}

json schedule() {
  return {{"predicted_ns", 1000},
          {"bound_ns", 800},
          {"critical_path_ns", 700},
          {"serial_ns", 2000},
          {"busy_ns",
           {{"tensor", 1},
            {"vector", 2},
            {"scalar", 0},
            {"gpsimd", 0},
            {"dma", 3}}},
          {"dma_engines", 16},
          {"critical_path", json::array()}};
}

/// A manifest of one kernel "k" over x [128, 512] f32, launched once.
json manifestOf(json instructions, bool scheduled = true) {
  json kernel = {{"name", "k"},
                 {"parameters", 1},
                 {"limits", trn2Limits()},
                 {"instructions", std::move(instructions)}};
  if (scheduled)
    kernel["schedule"] = schedule();
  return {{"tensors",
           {{{"id", 0},
             {"dtype", "f32"},
             {"shape", {128, 512}},
             {"kind", "input"},
             {"name", "x"}}}},
          {"inputs", {{{"tensor", 0}}}},
          {"outputs", json::array()},
          {"kernels", {kernel}},
          {"program", {{{"kernel", "k"}, {"bindings", {0}}}}}};
}

KernelTiming timeOf(const Program &program) {
  absl::StatusOr<KernelTiming> t =
      simulateKernelTiming(program.kernels.at(0), trn2());
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : KernelTiming{};
}

double durationOf(const Program &program, size_t i) {
  return durationNs(program.kernels[0].instructions[i], trn2());
}

TEST(TargetModelsTest, TheSpecIsAStringOrNone) {
  // A manifest is input: a target record of another shape is no spec (and
  // no crash), and timing it is an error.
  EXPECT_EQ(targetSpecOf(json{{"target", {{"spec", "trn2,lnc=1"}}}}),
            "trn2,lnc=1");
  for (const json &manifest :
       {json{{"target", {{"spec", 5}}}}, json{{"target", "trn2"}},
        json{{"target", json::array({"spec"})}}, json::object()})
    EXPECT_EQ(targetSpecOf(manifest), "") << manifest.dump();
  EXPECT_TRUE(targetRecordOf(json::object()).is_null());
  EXPECT_EQ(targetRecordOf(json{{"target", "trn2"}}), json("trn2"));

  Program program;
  EXPECT_EQ(targetModelsOf(json{{"target", {{"spec", 5}}}}, program).status(),
            absl::InvalidArgumentError(
                "timing needs the manifest's target.spec (a target spec "
                "string), found none"));
  absl::StatusOr<TargetModels> models =
      targetModelsOf(json{{"target", {{"spec", "trn2"}}}}, program);
  ASSERT_TRUE(models.ok()) << models.status();
  EXPECT_FALSE(models->links.has_value()); // no collectives
}

TEST(TimingTest, IndependentUnitsOverlap) {
  json insts = json::array();
  for (int i = 0; i < 3; ++i)
    insts.push_back(matmul());
  for (int i = 0; i < 5; ++i)
    insts.push_back(vectorOp());
  Program program = parse(manifestOf(insts));
  double tensor = 3 * durationOf(program, 0);
  double vector = 5 * durationOf(program, 3);
  KernelTiming t = timeOf(program);
  EXPECT_DOUBLE_EQ(t.observedNs, std::max(tensor, vector));
  EXPECT_DOUBLE_EQ(t.busyNs[int(EngineClass::Tensor)], tensor);
  EXPECT_DOUBLE_EQ(t.busyNs[int(EngineClass::Vector)], vector);
  EXPECT_DOUBLE_EQ(t.startNs[3], 0);
  EXPECT_DOUBLE_EQ(t.startNs[1], t.endNs[0]);
}

TEST(TimingTest, UnscheduledKernelRunsSerially) {
  json insts = json::array();
  for (int i = 0; i < 3; ++i)
    insts.push_back(matmul());
  for (int i = 0; i < 5; ++i)
    insts.push_back(vectorOp());
  insts.push_back(dmaIn(0));
  Program program = parse(manifestOf(insts, /*scheduled=*/false));
  double sum = 0;
  for (size_t i = 0; i < 9; ++i)
    sum += durationOf(program, i);
  KernelTiming t = timeOf(program);
  EXPECT_NEAR(t.observedNs, sum, 1e-9 * sum);
  EXPECT_DOUBLE_EQ(t.startNs[3], t.endNs[2]);
}

TEST(TimingTest, ReleaseTimesHoldInstructionsBack) {
  // A transfer held back until 5 us starts then; the engines and the other
  // queue run from 0, and a unit whose next instruction is held waits
  // (scheduled or not).
  json mm = matmul();
  Program program = parse(manifestOf({dmaIn(0), dmaIn(1), mm, mm}));
  TimingOptions options;
  options.releaseNs = {0, 5000, 0, 3000};
  absl::StatusOr<KernelTiming> t =
      simulateKernelTiming(program.kernels[0], trn2(), options);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_DOUBLE_EQ(t->startNs[0], 0);
  EXPECT_DOUBLE_EQ(t->startNs[1], 5000);
  EXPECT_DOUBLE_EQ(t->startNs[2], 0);
  EXPECT_DOUBLE_EQ(t->startNs[3], 3000);
  EXPECT_NEAR(t->observedNs, 5000 + durationOf(program, 1), 1e-6);

  options.releaseNs = {0};
  EXPECT_EQ(simulateKernelTiming(program.kernels[0], trn2(), options)
                .status()
                .message(),
            "kernel \"k\": 1 release times for 4 instructions");

  Program serial = parse(manifestOf({dmaIn(0), dmaIn(1)}, false));
  double first = durationOf(serial, 0);
  options.releaseNs = {0, 2 * first};
  t = simulateKernelTiming(serial.kernels[0], trn2(), options);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_DOUBLE_EQ(t->startNs[1], 2 * first);
}

TEST(TimingTest, WaitsAcrossUnitsSerialise) {
  json load = dmaIn(0);
  load["signal"] = true;
  json mm = matmul();
  mm["wait"] = {{{"unit", "dma0"}, {"count", 1}}};
  mm["signal"] = true;
  json add = vectorOp();
  add["wait"] = {{{"unit", "tensor"}, {"count", 1}}};
  add["signal"] = true;
  json load2 = dmaIn(1);
  load2["wait"] = {{{"unit", "vector"}, {"count", 1}}};
  Program program = parse(manifestOf({load, mm, add, load2}));
  double chain = 0;
  for (size_t i = 0; i < 4; ++i)
    chain += durationOf(program, i);
  KernelTiming t = timeOf(program);
  EXPECT_NEAR(t.observedNs, chain, 1e-9 * chain);
  EXPECT_NEAR(t.startNs[1], t.endNs[0], 1e-9 * chain);
  EXPECT_DOUBLE_EQ(t.startNs[2], t.endNs[1]);
  EXPECT_DOUBLE_EQ(t.startNs[3], t.endNs[2]);
  // Alone, a transfer takes the cost model's time.
  EXPECT_NEAR(t.endNs[0] - t.startNs[0], durationOf(program, 0), 1e-9);
}

TEST(TimingTest, DmaTransfersShareHbm) {
  const CostModel &model = trn2();
  // Two queues stay under the core's HBM share: each runs at queue rate.
  ASSERT_LT(2 * model.dmaEngineBytesPerNs(), model.hbmBytesPerNs());
  Program two = parse(manifestOf({dmaIn(0), dmaIn(1)}));
  KernelTiming t = timeOf(two);
  EXPECT_NEAR(t.observedNs, durationOf(two, 0), 1e-6);

  // All 16 queues exceed it: each moves at hbm / 16.
  int queues = model.dmaEngines();
  ASSERT_GT(queues * model.dmaEngineBytesPerNs(), model.hbmBytesPerNs());
  json insts = json::array();
  for (int q = 0; q < queues; ++q)
    insts.push_back(dmaIn(q));
  Program all = parse(manifestOf(insts));
  // A transfer of `rows` partitions of 512 f32 costs its payload and one
  // descriptor per partition.
  auto streamBytes = [&](int64_t rows) {
    CostQuery q;
    q.kind = CostQuery::Kind::Dma;
    q.bytes = rows * 512 * 4;
    q.descriptors = rows;
    return model.dmaStreamBytes(q);
  };
  double bytes = streamBytes(128);
  double expected =
      model.dmaFixedNs() + bytes / (model.hbmBytesPerNs() / queues);
  t = timeOf(all);
  EXPECT_NEAR(t.observedNs, expected, 1e-6);
  for (int q = 0; q < queues; ++q)
    EXPECT_NEAR(t.endNs[q], expected, 1e-6);
  EXPECT_NEAR(t.busyNs[int(EngineClass::Dma)], queues * expected, 1e-3);

  // A short transfer on queue 0 and a long one on every other queue: the
  // short one ends first and the rest speed up. Closed form: phase one
  // shares among 16 until the short one's bytes are done, then among 15.
  insts[0] = dmaIn(0, 32);
  Program mixed = parse(manifestOf(insts));
  double shortBytes = streamBytes(32);
  double rate16 = model.hbmBytesPerNs() / queues;
  double rate15 = std::min(model.dmaEngineBytesPerNs(),
                           model.hbmBytesPerNs() / (queues - 1));
  double shortEnd = model.dmaFixedNs() + shortBytes / rate16;
  double longEnd = shortEnd + (bytes - shortBytes) / rate15;
  t = timeOf(mixed);
  EXPECT_NEAR(t.endNs[0], shortEnd, 1e-6);
  EXPECT_NEAR(t.endNs[1], longEnd, 1e-6);
}

TEST(TimingTest, OneQueueMovesTransfersSideBySide) {
  // Four transfers of queue 0 start at once, each on a DMA engine of its
  // own, and end together (four engines stay under the HBM share).
  const CostModel &model = trn2();
  ASSERT_LT(4 * model.dmaEngineBytesPerNs(), model.hbmBytesPerNs());
  Program program =
      parse(manifestOf({dmaIn(0), dmaIn(0), dmaIn(0), dmaIn(0)}));
  TimingOptions options;
  options.recordInstances = 4;
  absl::StatusOr<KernelTiming> t =
      simulateKernelTiming(program.kernels[0], model, options);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_NEAR(t->observedNs, durationOf(program, 0), 1e-6);
  std::set<int64_t> lanes;
  for (const TimedInstance &x : t->recorded) {
    EXPECT_DOUBLE_EQ(x.startNs, 0);
    EXPECT_GE(x.lane, kFirstDmaUnit);
    lanes.insert(x.lane);
  }
  EXPECT_EQ(lanes.size(), 4u);
}

TEST(TimingTest, QueueCompletesInOrder) {
  // A long transfer, then a short one on the same queue: the short one
  // ends first, but the queue's semaphore counts the long one first, so a
  // matmul waiting for one signal starts when the long one ends.
  json longLoad = dmaIn(0);
  longLoad["signal"] = true;
  json shortLoad = dmaIn(0, 8);
  shortLoad["signal"] = true;
  json mm = matmul();
  mm["wait"] = {{{"unit", "dma0"}, {"count", 1}}};
  Program program = parse(manifestOf({longLoad, shortLoad, mm}));
  KernelTiming t = timeOf(program);
  EXPECT_LT(t.endNs[1], t.endNs[0]);
  EXPECT_DOUBLE_EQ(t.startNs[2], t.endNs[0]);
}

TEST(TimingTest, QueuesTakeEnginesInTurn) {
  // Queue 0 has more ready transfers than the core has DMA engines; queue
  // 1's one transfer, later in program order, still starts at once.
  const CostModel &model = trn2();
  json insts = json::array();
  for (int i = 0; i < model.dmaEngines() + 8; ++i)
    insts.push_back(dmaIn(0, 8));
  insts.push_back(dmaIn(1, 8));
  Program program = parse(manifestOf(insts));
  KernelTiming t = timeOf(program);
  EXPECT_DOUBLE_EQ(t.startNs[insts.size() - 1], 0);
  EXPECT_GT(t.startNs[insts.size() - 2], 0);
}

/// `instructions` as a kernel of two physical cores.
json twoCoreManifest(json instructions) {
  json m = manifestOf(std::move(instructions));
  m["kernels"][0]["cores"] = 2;
  return m;
}

TEST(TimingTest, PhysicalCoresRunTheirOwnStreams) {
  // At lnc=2 each physical core has its own engines: two matmuls, one per
  // core, run side by side, where one core runs them one after the other.
  const CostModel &model = trn2Lnc2();
  json on1 = matmul();
  on1["core"] = 1;
  Program both = parse(twoCoreManifest({matmul(), on1}));
  double one = durationNs(both.kernels[0].instructions[0], model);
  absl::StatusOr<KernelTiming> t =
      simulateKernelTiming(both.kernels[0], model);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_DOUBLE_EQ(t->startNs[1], 0);
  EXPECT_NEAR(t->observedNs, one, 1e-9);
  EXPECT_NEAR(t->busyNs[int(EngineClass::Tensor)], 2 * one, 1e-9);
  // Lanes of core 1 follow core 0's: its tensor engine is lanesPerCore on.
  EXPECT_EQ(t->recorded.back().lane, lanesPerCore(model));
  EXPECT_EQ(laneName(lanesPerCore(model), model), "tensor@1");
  EXPECT_EQ(laneName(lanesPerCore(model) + kFirstDmaUnit + 3, model),
            "dma3@1");

  Program same = parse(manifestOf({matmul(), matmul()}));
  t = simulateKernelTiming(same.kernels[0], model);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_NEAR(t->observedNs, 2 * one, 1e-9);
}

TEST(TimingTest, WaitsCrossPhysicalCores) {
  // Core 1's matmul waits for core 0's load: "dma0" is core 0's queue, and
  // a wait on core 1's tensor engine names it "tensor@1".
  json load = dmaIn(0);
  load["signal"] = true;
  json mm = matmul();
  mm["core"] = 1;
  mm["signal"] = true;
  mm["wait"] = {{{"unit", "dma0"}, {"count", 1}}};
  json after = vectorOp();
  after["wait"] = {{{"unit", "tensor@1"}, {"count", 1}}};
  Program program = parse(twoCoreManifest({load, mm, after}));
  EXPECT_EQ(unitName(unitOf(program.kernels[0].instructions[1])),
            "tensor@1");
  absl::StatusOr<KernelTiming> t =
      simulateKernelTiming(program.kernels[0], trn2Lnc2());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_DOUBLE_EQ(t->startNs[1], t->endNs[0]);
  EXPECT_DOUBLE_EQ(t->startNs[2], t->endNs[1]);
}

TEST(TimingTest, PhysicalCoreErrors) {
  json on1 = matmul();
  on1["core"] = 1;
  // An instruction on a core the kernel does not have.
  EXPECT_EQ(errorOf(manifestOf({on1})),
            "manifest: kernels[0].instructions[0].core: expected a physical "
            "core in [0, 0] (the kernel's cores), found a number 1");
  json many = manifestOf({matmul()});
  many["kernels"][0]["cores"] = 9;
  EXPECT_EQ(errorOf(many), "manifest: kernels[0].cores: expected a physical "
                           "core count in [1, 8], found a number 9");
  // A wait on a core's unit that never signals.
  json mm = matmul();
  mm["wait"] = {{{"unit", "tensor@1"}, {"count", 1}}};
  EXPECT_NE(errorOf(twoCoreManifest({on1, mm})).find("tensor@1 has none"),
            std::string::npos);
  EXPECT_FALSE(parseUnit("tensor@0").has_value());
  EXPECT_FALSE(parseUnit("tensor@8").has_value());
  EXPECT_FALSE(parseUnit("dma3@").has_value());
  EXPECT_EQ(parseUnit("dma3@2"), 2 * kUnitsPerCore + kFirstDmaUnit + 3);
  // A kernel of two physical cores on a logical core of one.
  Program program = parse(twoCoreManifest({matmul(), on1}));
  absl::StatusOr<KernelTiming> t =
      simulateKernelTiming(program.kernels[0], trn2());
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(),
            "kernel \"k\" runs on 2 physical cores; the target's logical "
            "core has 1 (compile for its lnc, or run with the lnc it was "
            "compiled for)");
}

TEST(TimingTest, QueueBeyondTheTarget) {
  // trn2 at lnc=2: each physical core has 16 queues of its own.
  Program program = parse(manifestOf({dmaIn(16)}));
  absl::StatusOr<KernelTiming> t =
      simulateKernelTiming(program.kernels[0], trn2Lnc2());
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(),
            "kernel \"k\": instruction 0 (dma_copy) uses DMA queue 16; the "
            "target has 16 queues (0..15)");
}

TEST(TimingTest, ForwardWaitIsRejected) {
  // The matmul waits for the vector op after it, which waits for the
  // matmul: the reader refuses a wait on a later instruction.
  json mm = matmul();
  mm["signal"] = true;
  mm["wait"] = {{{"unit", "vector"}, {"count", 1}}};
  json add = vectorOp();
  add["signal"] = true;
  add["wait"] = {{{"unit", "tensor"}, {"count", 1}}};
  EXPECT_EQ(errorOf(manifestOf({dmaIn(0), mm, add})),
            "manifest: kernels[0].instructions[1].wait[0].count: expected a "
            "count vector reaches before this instruction in program order (0 "
            "at iteration []; waiting for more could deadlock), found 1 at "
            "iteration []");
}

TEST(TimingTest, WaitCycleIsADeadlock) {
  // A program the reader would refuse, built past it: the simulator still
  // reports the cycle rather than spinning.
  json mm = matmul();
  mm["signal"] = true;
  json add = vectorOp();
  add["signal"] = true;
  add["wait"] = {{{"unit", "tensor"}, {"count", 1}}};
  Program program = parse(manifestOf({dmaIn(0), mm, add}));
  ASSERT_EQ(program.kernels.size(), 1u);
  program.kernels[0].instructions[1].waits.push_back(
      {int64_t(Engine::Vector), 1, {}});
  absl::StatusOr<KernelTiming> t =
      simulateKernelTiming(program.kernels[0], trn2());
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kFailedPrecondition);
  std::string message(t.status().message());
  EXPECT_NE(message.find("kernel \"k\": deadlock at "), std::string::npos)
      << message;
  EXPECT_NE(message.find("with 1 of 3 instructions done; tensor: instruction "
                         "1 (matmul) waits for vector to reach 1 (it is at "
                         "0); vector: instruction 2 (tensor_scalar) waits for "
                         "tensor to reach 1 (it is at 0)"),
            std::string::npos)
      << message;
}

TEST(TimingTest, ScheduleFieldsParse) {
  json load = dmaIn(3);
  load["signal"] = true;
  load["start_ns"] = 0;
  load["end_ns"] = 1200.5;
  json mm = matmul();
  mm["wait"] = {{{"unit", "dma3"}, {"count", 1}}};
  json m = manifestOf({load, mm});
  m["kernels"][0]["schedule"]["critical_path"] = {0, 1};
  Program program = parse(m);
  const Kernel &k = program.kernels[0];
  ASSERT_TRUE(k.schedule);
  EXPECT_EQ(k.schedule->criticalPath, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(k.schedule->busyNs[int(Engine::Dma)], 3);
  EXPECT_TRUE(k.instructions[0].signal);
  EXPECT_EQ(*k.instructions[0].endNs, 1200.5);
  ASSERT_EQ(k.instructions[1].waits.size(), 1u);
  EXPECT_EQ(k.instructions[1].waits[0].unit, kFirstDmaUnit + 3);
  EXPECT_EQ(unitName(k.instructions[1].waits[0].unit), "dma3");
}

TEST(TimingTest, ScheduleFieldErrors) {
  json load = dmaIn(0);
  load["signal"] = true;
  json mm = matmul();
  auto withWait = [&](json wait) {
    json w = mm;
    w["wait"] = std::move(wait);
    return manifestOf({load, w});
  };
  const std::string at = "manifest: kernels[0].instructions[1].";
  EXPECT_EQ(errorOf(withWait({{{"unit", "dma"}, {"count", 1}}})),
            at + "wait[0].unit: expected one of tensor vector scalar gpsimd "
                 "dmaQ (Q in [0, 1023]), then @C on physical core C in "
                 "[1, 7], found a string \"dma\"");
  EXPECT_EQ(errorOf(withWait({{{"unit", "dma01"}, {"count", 1}}})),
            at + "wait[0].unit: expected one of tensor vector scalar gpsimd "
                 "dmaQ (Q in [0, 1023]), then @C on physical core C in "
                 "[1, 7], found a string \"dma01\"");
  // A count of 0 or less is met at once (a loop's first iterations).
  EXPECT_EQ(errorOf(withWait({{{"unit", "dma0"}, {"count", 0}}})), "");
  EXPECT_EQ(errorOf(withWait({{{"unit", "dma0"}, {"count", 2}}})),
            at + "wait[0].count: expected a count dma0 reaches before this "
                 "instruction in program order (1 at iteration []; waiting "
                 "for more could deadlock), found 2 at iteration []");
  EXPECT_EQ(errorOf(withWait({{{"unit", "dma0"}, {"count", int64_t(1) << 41}}})),
            at + "wait[0].count: expected a count in [-2^40, 2^40], found a "
                 "number 2199023255552");
  EXPECT_EQ(errorOf(withWait({{{"unit", "dma0"}, {"count", 1}},
                              {{"unit", "vector"}, {"count", 1}}})),
            at + "wait[1].count: expected a wait on a unit with signalling "
                 "instructions (vector has none), found 1");
  EXPECT_EQ(errorOf(withWait({{{"unit", "dma0"}}})),
            at + "wait[0].count: expected a count in [-2^40, 2^40], found "
                 "nothing (the field is missing)");
  json m = manifestOf({load, mm});
  m["kernels"][0]["instructions"][1]["signal"] = 1;
  EXPECT_EQ(errorOf(m), at + "signal: expected true or false, found a number "
                             "1");
  m = manifestOf({load, mm});
  m["kernels"][0]["instructions"][1]["start_ns"] = 5;
  m["kernels"][0]["instructions"][1]["end_ns"] = 4;
  EXPECT_EQ(errorOf(m), at + "end_ns: expected a time at or after start_ns "
                             "(5), found 4");
  m = manifestOf({load, mm});
  m["kernels"][0]["schedule"]["critical_path"] = {0, 2};
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].schedule.critical_path[1]: "
                        "expected an integer in [0, 1], found a number 2");
  m = manifestOf({load, mm});
  m["kernels"][0]["schedule"]["busy_ns"].erase("dma");
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].schedule.busy_ns.dma: expected "
                        "a non-negative number, found nothing (the field is "
                        "missing)");
  m = manifestOf({load, mm});
  m["kernels"][0]["schedule"]["dma_engines"] = 0;
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].schedule.dma_engines: expected "
                        "a DMA engine count in [1, 1024], found a number 0");
}

TEST(TimingTest, ProgramStepsEndToEnd) {
  json m = manifestOf({matmul(), vectorOp()});
  m["program"].push_back({{"kernel", "k"}, {"bindings", {0}}});
  Program program = parse(m);
  absl::StatusOr<ProgramTiming> t = simulateProgramTiming(program, trn2());
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->steps.size(), 2u);
  double kernel = t->kernels[0].observedNs;
  EXPECT_DOUBLE_EQ(t->steps[1].startNs, kernel);
  EXPECT_DOUBLE_EQ(t->totalNs, 2 * kernel);
}

TEST(TimingTest, Reports) {
  json load = dmaIn(0);
  load["signal"] = true;
  load["start_ns"] = 0;
  load["end_ns"] = 3000;
  json mm = matmul();
  mm["wait"] = {{{"unit", "dma0"}, {"count", 1}}};
  mm["start_ns"] = 3000;
  mm["end_ns"] = 3500;
  json m = manifestOf({load, mm});
  m["kernels"][0]["schedule"]["critical_path"] = {0, 1};
  Program program = parse(m);
  absl::StatusOr<ProgramTiming> t = simulateProgramTiming(program, trn2());
  ASSERT_TRUE(t.ok()) << t.status();

  json target = {{"spec", "trn2"}};
  json profile = profileJson(program, *t, trn2(), target);
  EXPECT_EQ(profile["schema"], "neuron-profile/1");
  EXPECT_EQ(profile["target"]["spec"], "trn2");
  EXPECT_FALSE(profile["cost_model"].empty());
  EXPECT_DOUBLE_EQ(profile["program"]["observed_ns"].get<double>(), t->totalNs);
  EXPECT_DOUBLE_EQ(profile["program"]["predicted_ns"].get<double>(), 1000);
  ASSERT_EQ(profile["kernels"].size(), 1u);
  json k = profile["kernels"][0];
  EXPECT_EQ(k["kernel"], "k");
  EXPECT_EQ(k["instructions"], 2);
  EXPECT_DOUBLE_EQ(k["observed_over_bound"].get<double>(), t->totalNs / 800);
  EXPECT_DOUBLE_EQ(k["predicted_vs_observed"].get<double>(),
                   (1000 - t->totalNs) / t->totalNs);
  EXPECT_NEAR(k["busy_ns"]["tensor"].get<double>(), durationOf(program, 1),
              1e-9);
  EXPECT_GT(k["utilisation"]["tensor"].get<double>(), 0);
  EXPECT_EQ(k["critical_path"][1]["op"], "matmul");
  EXPECT_EQ(k["critical_path"][0]["unit"], "dma0");

  json trace = traceJson(program, *t, trn2());
  json reparsed = json::parse(trace.dump(), nullptr, false);
  ASSERT_FALSE(reparsed.is_discarded());
  EXPECT_EQ(reparsed["displayTimeUnit"], "ns");
  int observed = 0, predicted = 0;
  for (const json &e : reparsed["traceEvents"])
    if (e["ph"] == "X")
      ++(e["pid"] == 1 ? observed : predicted);
  EXPECT_EQ(observed, 2);
  EXPECT_EQ(predicted, 2);

  std::string svg = timelineSvg(program, *t, trn2());
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find(">predicted<"), std::string::npos);
  EXPECT_NE(svg.find(">dma0<"), std::string::npos);

  std::string summary = timingSummary(program, *t);
  EXPECT_NE(summary.find("observed/bound"), std::string::npos);
  EXPECT_NE(summary.find("total"), std::string::npos);
}

/// A long pipelined kernel: each matmul waits for its load; the tensor
/// engine stays busy. (Simulation speed is a benchmark's:
/// test/benchmarks/run_scale.py.)
TEST(TimingTest, LargeKernel) {
  Program program = parse(manifestOf({dmaIn(0), matmul()}));
  Kernel &kernel = program.kernels[0];
  Instruction load = kernel.instructions[0], mm = kernel.instructions[1];
  kernel.instructions.clear();
  const int64_t pairs = 100000;
  kernel.instructions.reserve(2 * pairs);
  for (int64_t i = 0; i < pairs; ++i) {
    load.queue = i % 16;
    load.signal = true;
    kernel.instructions.push_back(load);
    mm.waits = {{kFirstDmaUnit + i % 16, i / 16 + 1}};
    kernel.instructions.push_back(mm);
  }
  absl::StatusOr<KernelTiming> t = simulateKernelTiming(kernel, trn2());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_GT(t->observedNs, pairs * durationNs(mm, trn2()) * 0.99);

  // Rectangles narrower than a pixel merge: the timeline stays small.
  absl::StatusOr<ProgramTiming> timing = simulateProgramTiming(program, trn2());
  ASSERT_TRUE(timing.ok()) << timing.status();
  std::string svg = timelineSvg(program, *timing, trn2());
  EXPECT_LT(svg.size(), 2u << 20);
}

} // namespace
