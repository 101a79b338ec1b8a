//===- LoopTest.cpp - Kernels with loops: reading, running, timing --------===//
//
// The reader's closed-form checks of loop records (every iteration's
// address in bounds, trip counts, strides that overflow, nesting, waits
// that could deadlock at some iteration), and loops run natively against
// the same kernel unrolled here by the test: functional results and timing
// must be identical.
//
//===----------------------------------------------------------------------===//

#include "SimTestUtil.h"

#include "runtime/sim/OrderCheck.h"
#include "runtime/sim/Timing.h"
#include "runtime/target/Target.h"

#include <gtest/gtest.h>

#include <limits>

using namespace neuron::rt;
using namespace neuron::rt::test;

namespace {

const CostModel &trn2() {
  static const CostModel model = [] {
    absl::StatusOr<TargetRegistry> registry = TargetRegistry::loadBuiltin();
    EXPECT_TRUE(registry.ok()) << registry.status();
    absl::StatusOr<ResolvedTarget> target = registry->resolve("trn2,lnc=1");
    EXPECT_TRUE(target.ok()) << target.status();
    absl::StatusOr<CostModel> model = CostModel::forTarget(*target);
    EXPECT_TRUE(model.ok()) << model.status();
    return *model;
  }();
  return model;
}

json hbm(int64_t param, int64_t offset, std::vector<int64_t> shape,
         std::vector<int64_t> strides, std::vector<int64_t> iv = {}) {
  json r = {{"space", "hbm"},  {"param", param},     {"offset", offset},
            {"shape", shape},  {"strides", strides}, {"dtype", "f32"}};
  if (!iv.empty())
    r["iv"] = iv;
  return r;
}

json onChip(const char *space, int64_t offset, std::vector<int64_t> shape,
            json slots = nullptr) {
  json r = {{"space", space},
            {"partition", 0},
            {"offset", offset},
            {"shape", shape},
            {"dtype", "f32"}};
  if (!slots.is_null())
    r["slots"] = slots;
  return r;
}

json dma(int64_t queue, json src, json dst) {
  return {{"op", "dma_copy"},
          {"engine", "dma"},
          {"queue", queue},
          {"src", std::move(src)},
          {"dst", std::move(dst)}};
}

json schedule() {
  return {{"predicted_ns", 1},
          {"bound_ns", 1},
          {"critical_path_ns", 1},
          {"serial_ns", 1},
          {"busy_ns",
           {{"tensor", 0}, {"vector", 0}, {"scalar", 0}, {"gpsimd", 0},
            {"dma", 0}}},
          {"dma_engines", 16},
          {"critical_path", json::array()}};
}

/// One kernel `k` over x [512, 64] (parameter 0) and y [512, 64]
/// (parameter 1): y = x * 2 + 1, row tile by row tile in a loop of 4, each
/// tile through two rotating slots. The scale waits for the load of its
/// iteration, the load for the store that last read its slot, the store for
/// the scale.
json scaleKernel() {
  json slots = {{"count", 2}, {"bytes", 256}, {"depth", 1}};
  json load = dma(0, hbm(0, 0, {128, 64}, {64, 1}, {128 * 64}),
                  onChip("sbuf", 0, {128, 64}, slots));
  load["loop"] = 0;
  load["signal"] = true;
  // Iteration i overwrites the slot iteration i - 2 stored from: wait for
  // store i - 2 (count i - 1).
  load["wait"] = {{{"unit", "dma1"}, {"count", -1}, {"iv", {1}}}};
  json scale = {{"op", "activation"},
                {"engine", "scalar"},
                {"function", "identity"},
                {"scale", 2.0},
                {"loop", 0},
                {"signal", true},
                {"src", onChip("sbuf", 0, {128, 64}, slots)},
                {"dst", onChip("sbuf", 512, {128, 64}, slots)},
                {"wait", {{{"unit", "dma0"}, {"count", 1}, {"iv", {1}}}}}};
  json add = {{"op", "tensor_scalar"},
              {"engine", "vector"},
              {"alu", "add"},
              {"scalar", 1.0},
              {"loop", 0},
              {"signal", true},
              {"src", onChip("sbuf", 512, {128, 64}, slots)},
              {"dst", onChip("sbuf", 512, {128, 64}, slots)},
              {"wait", {{{"unit", "scalar"}, {"count", 1}, {"iv", {1}}}}}};
  json store = dma(1, onChip("sbuf", 512, {128, 64}, slots),
                   hbm(1, 0, {128, 64}, {64, 1}, {128 * 64}));
  store["loop"] = 0;
  store["signal"] = true;
  store["wait"] = {{{"unit", "vector"}, {"count", 1}, {"iv", {1}}}};
  return {{"name", "k"},
          {"parameters", 2},
          {"limits", trn2Limits()},
          {"loops", {{{"trips", 4}}}},
          {"instructions", {load, scale, add, store}},
          {"schedule", schedule()}};
}

/// scaleKernel's four row tiles in two loops of two, each tile in one slot,
/// the outer loop's body also loading a row tile on the store queue (which
/// so signals once more outside the inner loop). A load refills the slot
/// the store of the inner iteration before read: in the inner loop's first
/// iteration, that is the outer loop's previous iteration, before its extra
/// load, so the load waits for one signal fewer there.
json nestedScaleKernel() {
  json k = scaleKernel();
  k["loops"] = {{{"trips", 2}}, {{"trips", 2}, {"parent", 0}}};
  for (json &inst : k["instructions"]) {
    inst["loop"] = 1;
    for (const char *key : {"src", "dst"})
      if (inst[key].contains("slots"))
        inst[key]["slots"] = {{"count", 1}, {"bytes", 256}, {"depth", 2}};
      else
        inst[key]["iv"] = {2 * 128 * 64, 128 * 64};
    inst["wait"][0]["iv"] = {2, 1};
  }
  // Per outer iteration the store queue signals three times.
  k["instructions"][0]["wait"][0] = {{"unit", "dma1"},
                                     {"count", 0},
                                     {"iv", {3, 1}},
                                     {"fewer_first", {1, 1, 1}}};
  json extra = dma(1, hbm(0, 0, {128, 64}, {64, 1}, {2 * 128 * 64}),
                   onChip("sbuf", 4096, {128, 64}));
  extra["loop"] = 0;
  extra["signal"] = true;
  extra["wait"] = {{{"unit", "dma1"}, {"count", 2}, {"iv", {3}}}};
  k["instructions"].push_back(extra);
  return k;
}

json manifestOf(json kernel) {
  auto tensor = [](int64_t id, const char *kind) {
    return json{{"id", id},
                {"dtype", "f32"},
                {"shape", {512, 64}},
                {"kind", kind},
                {"name", kind}};
  };
  return {{"schema", "neuron-executable/4"},
          {"tensors", {tensor(0, "input"), tensor(1, "output")}},
          {"inputs", {{{"tensor", 0}}}},
          {"outputs", {{{"tensor", 1}}}},
          {"kernels", {std::move(kernel)}},
          {"program", {{{"kernel", "k"}, {"bindings", {0, 1}}}}}};
}

/// `kernel` with every loop expanded, the test's own reading of the format:
/// offsets, slots, wait counts and matmul restarts resolved per iteration.
json unrolled(const json &kernel) {
  const json &loops = kernel.contains("loops") ? kernel["loops"] : json();
  auto nestOf = [&](const json &inst) {
    std::vector<int64_t> nest;
    for (int64_t l = inst.value("loop", int64_t(-1)); l >= 0;
         l = loops[l].value("parent", int64_t(-1)))
      nest.insert(nest.begin(), l);
    return nest;
  };
  json out = kernel;
  out.erase("loops");
  out["instructions"] = json::array();
  // Instructions of loop `loop`'s body (all of them at the top level).
  std::function<void(int64_t, size_t, std::vector<int64_t> &)> expand =
      [&](int64_t loop, size_t depth, std::vector<int64_t> &iv) {
        const json &insts = kernel["instructions"];
        for (size_t i = 0; i < insts.size();) {
          std::vector<int64_t> nest = nestOf(insts[i]);
          if (nest.size() < depth || (depth && nest[depth - 1] != loop)) {
            ++i;
            continue;
          }
          if (nest.size() > depth) {
            int64_t inner = nest[depth];
            size_t end = i;
            while (end < insts.size()) {
              std::vector<int64_t> n = nestOf(insts[end]);
              if (n.size() <= depth || n[depth] != inner)
                break;
              ++end;
            }
            iv.push_back(0);
            for (; iv.back() < loops[inner]["trips"].get<int64_t>();
                 ++iv.back())
              expand(inner, depth + 1, iv);
            iv.pop_back();
            i = end;
            continue;
          }
          json inst = insts[i];
          std::vector<int64_t> trips;
          for (int64_t l : nest)
            trips.push_back(loops[l]["trips"].get<int64_t>());
          for (auto &[key, value] : inst.items()) {
            if (!value.is_object() || !value.contains("space"))
              continue;
            int64_t offset = value["offset"];
            if (value.contains("iv"))
              for (size_t l = 0; l < iv.size(); ++l)
                offset += value["iv"][l].get<int64_t>() * iv[l];
            if (value.contains("slots")) {
              int64_t it = 0;
              for (int64_t l = 0; l < value["slots"]["depth"]; ++l)
                it = it * trips[l] + iv[l];
              offset += (it % value["slots"]["count"].get<int64_t>()) *
                        value["slots"]["bytes"].get<int64_t>();
            }
            value["offset"] = offset;
            value.erase("iv");
            value.erase("slots");
          }
          if (inst.contains("wait"))
            for (json &w : inst["wait"]) {
              int64_t count = w["count"];
              if (w.contains("iv"))
                for (size_t l = 0; l < iv.size(); ++l)
                  count += w["iv"][l].get<int64_t>() * iv[l];
              if (w.contains("fewer_first") &&
                  iv[w["fewer_first"][0].get<size_t>()] <
                      w["fewer_first"][1].get<int64_t>())
                count -= w["fewer_first"][2].get<int64_t>();
              w["count"] = count;
              w.erase("iv");
              w.erase("fewer_first");
            }
          if (inst.contains("restart")) {
            bool first = true;
            for (int64_t level : inst["restart"])
              first = first && iv[level] == 0;
            if (first)
              inst["accumulate"] = false;
            inst.erase("restart");
          }
          inst.erase("loop");
          out["instructions"].push_back(inst);
          ++i;
        }
      };
  std::vector<int64_t> iv;
  expand(-1, 0, iv);
  // Waits met at once need not stay.
  for (json &inst : out["instructions"])
    if (inst.contains("wait")) {
      json kept = json::array();
      for (const json &w : inst["wait"])
        if (w["count"].get<int64_t>() > 0)
          kept.push_back(w);
      if (kept.empty())
        inst.erase("wait");
      else
        inst["wait"] = kept;
    }
  return out;
}

std::vector<double> iota(size_t n) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = double(i % 97) - 48;
  return v;
}

std::vector<double> run(const json &manifest, std::vector<Tensor> inputs) {
  Program program = parse(manifest);
  Device device;
  absl::StatusOr<std::vector<Tensor>> out = device.run(program, inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() && !out->empty() ? valuesOf(out->front())
                                   : std::vector<double>();
}

TEST(LoopTest, RunsLikeItsUnrolledForm) {
  std::vector<double> x = iota(512 * 64);
  Tensor in = makeTensor(DType::F32, {512, 64}, x);
  std::vector<double> looped = run(manifestOf(scaleKernel()), {in});
  ASSERT_EQ(looped.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(looped[i], x[i] * 2 + 1) << i;
  EXPECT_EQ(run(manifestOf(unrolled(scaleKernel())), {in}), looped);
}

TEST(LoopTest, TimesLikeItsUnrolledForm) {
  Program looped = parse(manifestOf(scaleKernel()));
  Program flat = parse(manifestOf(unrolled(scaleKernel())));
  ASSERT_EQ(looped.kernels.size(), 1u);
  ASSERT_EQ(flat.kernels.size(), 1u);
  EXPECT_EQ(looped.kernels[0].dynamicInstructions(), 16);
  absl::StatusOr<KernelTiming> a =
      simulateKernelTiming(looped.kernels[0], trn2());
  absl::StatusOr<KernelTiming> b = simulateKernelTiming(flat.kernels[0], trn2());
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->dynamicInstructions, 16);
  EXPECT_EQ(a->instances, (std::vector<int64_t>{4, 4, 4, 4}));
  EXPECT_DOUBLE_EQ(a->observedNs, b->observedNs);
  for (size_t c = 0; c < a->busyNs.size(); ++c)
    EXPECT_DOUBLE_EQ(a->busyNs[c], b->busyNs[c]);
  ASSERT_EQ(a->recorded.size(), b->recorded.size());
  for (size_t k = 0; k < a->recorded.size(); ++k) {
    EXPECT_DOUBLE_EQ(a->recorded[k].startNs, b->recorded[k].startNs);
    EXPECT_DOUBLE_EQ(a->recorded[k].endNs, b->recorded[k].endNs);
  }
  // The loop's loads run ahead of the engines by the two slots, no more:
  // load 2 starts after store 0 ends.
  TimingOptions few;
  few.recordInstances = 3;
  absl::StatusOr<KernelTiming> c =
      simulateKernelTiming(looped.kernels[0], trn2(), few);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->recorded.size(), 3u);
  EXPECT_EQ(c->unrecorded, 13);
}

/// The order check of a timed run of `kernel`: "" when it holds.
std::string orderError(const json &kernel) {
  Program program = parse(manifestOf(kernel));
  TimingOptions all;
  all.recordInstances = std::numeric_limits<int64_t>::max();
  absl::StatusOr<KernelTiming> t =
      simulateKernelTiming(program.kernels.at(0), trn2(), all);
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok())
    return "timing failed";
  absl::Status s = checkProgramOrder(program.kernels[0], *t);
  return s.ok() ? "" : std::string(s.message());
}

TEST(LoopTest, OrderCheckHoldsWithEveryWait) {
  EXPECT_EQ(orderError(scaleKernel()), "");
}

TEST(LoopTest, OrderCheckFindsAMissingWait) {
  // Without its wait the scale reads a tile its load is still writing.
  json kernel = scaleKernel();
  kernel["instructions"][1].erase("wait");
  std::string error = orderError(kernel);
  EXPECT_EQ(error.rfind("kernel \"k\": instruction 1 (activation) at "
                        "iteration [0] started at 0.0 ns, before instruction "
                        "0 (dma_copy) at iteration [0], earlier in program "
                        "order, ended at ",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find("read-after-write on SBUF partition 0 bytes [0, 256)"),
            std::string::npos)
      << error;

  // Without the slot wait, load 2 refills the slot of iteration 0 at once:
  // the queue moves its loads side by side.
  kernel = scaleKernel();
  kernel["instructions"][0].erase("wait");
  error = orderError(kernel);
  EXPECT_EQ(error.rfind("kernel \"k\": instruction 0 (dma_copy) at "
                        "iteration [2] started at 0.0 ns, before instruction "
                        "0 (dma_copy) at iteration [0], earlier in program "
                        "order, ended at ",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find("write-after-write on SBUF partition 0 bytes [0, "
                       "256)"),
            std::string::npos)
      << error;
}

TEST(LoopTest, OrderCheckNeedsEveryInstance) {
  Program program = parse(manifestOf(scaleKernel()));
  TimingOptions few;
  few.recordInstances = 3;
  absl::StatusOr<KernelTiming> t =
      simulateKernelTiming(program.kernels.at(0), trn2(), few);
  ASSERT_TRUE(t.ok());
  absl::Status s = checkProgramOrder(program.kernels[0], *t);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "kernel \"k\": the order check needs every "
                         "instance's times; 13 went unrecorded");
}

TEST(LoopTest, SlotsRotateWithTheIteration) {
  // Serially (no schedule) every slot is still read back before reuse.
  json kernel = scaleKernel();
  kernel.erase("schedule");
  std::vector<double> x = iota(512 * 64);
  std::vector<double> y =
      run(manifestOf(kernel), {makeTensor(DType::F32, {512, 64}, x)});
  ASSERT_EQ(y.size(), x.size());
  EXPECT_EQ(y[511 * 64 + 63], x[511 * 64 + 63] * 2 + 1);
}

TEST(LoopTest, MatmulRestartsItsSumAtTheFirstIteration) {
  // C[128, 64] = A^T B over K = 256 in two K tiles of 128 partitions: the
  // matmul accumulates over the inner loop and restarts its sum at each
  // outer iteration (two column halves of 32).
  json stationary = {{"space", "sbuf"}, {"partition", 0}, {"offset", 0},
                     {"shape", {128, 128}}, {"dtype", "f32"},
                     {"iv", {0, 512}}};
  json moving = {{"space", "sbuf"}, {"partition", 0}, {"offset", 1024},
                 {"shape", {128, 32}}, {"dtype", "f32"}, {"iv", {128, 256}}};
  json acc = {{"space", "psum"}, {"partition", 0}, {"offset", 0},
              {"shape", {128, 32}}, {"dtype", "f32"}};
  json loadA = dma(0, hbm(0, 0, {128, 256}, {256, 1}),
                   {{"space", "sbuf"}, {"partition", 0}, {"offset", 0},
                    {"shape", {128, 256}}, {"dtype", "f32"}});
  loadA["src"] = hbm(0, 0, {2, 128, 128}, {128 * 128, 128, 1});
  loadA["src"]["shape"] = {128, 2, 128};
  loadA["src"]["strides"] = {128, 128 * 128, 1};
  loadA["signal"] = true;
  json loadB = dma(1, hbm(1, 0, {128, 2, 64}, {64, 128 * 64, 1}),
                   {{"space", "sbuf"}, {"partition", 0}, {"offset", 1024},
                    {"shape", {128, 128}}, {"dtype", "f32"}});
  loadB["signal"] = true;
  json mm = {{"op", "matmul"}, {"engine", "tensor"}, {"accumulate", true},
             {"restart", {1}}, {"loop", 1}, {"stationary", stationary},
             {"moving", moving}, {"dst", acc},
             {"wait", {{{"unit", "dma0"}, {"count", 1}},
                       {{"unit", "dma1"}, {"count", 1}}}}};
  json evacuate = {{"op", "activation"}, {"engine", "scalar"},
                   {"function", "identity"}, {"scale", 1.0}, {"loop", 0},
                   {"src", acc},
                   {"dst", onChip("sbuf", 4096, {128, 32})}};
  json store = dma(2, onChip("sbuf", 4096, {128, 32}),
                   hbm(2, 0, {128, 32}, {64, 1}, {32}));
  store["loop"] = 0;
  json kernel = {{"name", "k"}, {"parameters", 3}, {"limits", trn2Limits()},
                 {"loops", {{{"trips", 2}}, {{"trips", 2}, {"parent", 0}}}},
                 {"instructions", {loadA, loadB, mm, evacuate, store}}};
  // Serial kernel: the order alone orders everything.
  kernel["instructions"][2].erase("wait");
  auto tensor = [](int64_t id, std::vector<int64_t> shape, const char *kind) {
    return json{{"id", id}, {"dtype", "f32"}, {"shape", shape},
                {"kind", kind}, {"name", kind}};
  };
  json manifest = {
      {"tensors", {tensor(0, {256, 128}, "input"), tensor(1, {256, 64}, "input"),
                   tensor(2, {128, 64}, "output")}},
      {"inputs", {{{"tensor", 0}}, {{"tensor", 1}}}},
      {"outputs", {{{"tensor", 2}}}},
      {"kernels", {kernel}},
      {"program", {{{"kernel", "k"}, {"bindings", {0, 1, 2}}}}}};
  std::vector<double> a = iota(256 * 128), b = iota(256 * 64);
  for (double &v : b)
    v = v / 16;
  std::vector<Tensor> inputs{makeTensor(DType::F32, {256, 128}, a),
                             makeTensor(DType::F32, {256, 64}, b)};
  std::vector<double> c = run(manifest, inputs);
  ASSERT_EQ(c.size(), 128u * 64);
  for (int64_t m = 0; m < 128; ++m)
    for (int64_t n = 0; n < 64; ++n) {
      double sum = 0;
      for (int64_t k = 0; k < 256; ++k)
        sum += a[k * 128 + m] * b[k * 64 + n];
      EXPECT_NEAR(c[m * 64 + n], sum, 1e-3 * (1 + std::abs(sum)))
          << m << "," << n;
    }
  manifest["kernels"] = {unrolled(kernel)};
  EXPECT_EQ(run(manifest, inputs), c);
}

/// The error of `scaleKernel()` changed by `edit`.
std::string errorWith(const std::function<void(json &)> &edit) {
  json kernel = scaleKernel();
  edit(kernel);
  return errorOf(manifestOf(kernel));
}

const std::string at = "manifest: kernels[0].";

TEST(LoopTest, TripCountsArePositive) {
  for (int64_t trips : {0, -3})
    EXPECT_EQ(errorWith([&](json &k) { k["loops"][0]["trips"] = trips; }),
              at + "loops[0].trips: expected a trip count in [1, 2^32], found "
                   "a number " +
                  std::to_string(trips));
  EXPECT_EQ(errorWith([](json &k) { k["loops"][0]["trips"] = int64_t(1) << 33; }),
            at + "loops[0].trips: expected a trip count in [1, 2^32], found a "
                 "number 8589934592");
}

TEST(LoopTest, AddressesStayInTheirBufferAtEveryIteration) {
  // Five row tiles of a four-tile tensor: the last iteration reads past x.
  EXPECT_EQ(errorWith([](json &k) { k["loops"][0]["trips"] = 5; }),
            "manifest: program[0].bindings[0]: expected a f32 tensor of more "
            "than 40959 elements (kernels[0].instructions[0].src touches "
            "elements 0..40959), found tensor 0: f32[512, 64]");
  // A negative stride walks below element 0.
  EXPECT_EQ(errorWith([](json &k) {
              k["instructions"][0]["src"]["iv"] = {-128};
            }),
            at + "instructions[0].src.iv: expected strides keeping the pattern "
                 "inside elements [0, 2^40] at every iteration, found "
                 "elements -384..8191");
  // Slots that run past the partition's bytes.
  EXPECT_EQ(errorWith([](json &k) {
              k["instructions"][0]["dst"]["slots"]["bytes"] = 196608;
            }),
            at + "instructions[0].dst.slots: expected slots and strides "
                 "keeping the tile inside [0, 196608) sbuf bytes per "
                 "partition at every iteration, found bytes 0..196864");
}

TEST(LoopTest, OverflowingStridesAreErrors) {
  EXPECT_EQ(errorWith([](json &k) {
              k["loops"][0]["trips"] = int64_t(1) << 32;
              k["instructions"][0]["src"]["iv"] = {int64_t(1) << 40};
            }),
            at + "instructions[0].src.iv: expected strides keeping the pattern "
                 "inside elements [0, 2^40] at every iteration, found strides "
                 "whose products overflow");
  EXPECT_EQ(errorWith([](json &k) {
              k["instructions"][0]["src"]["iv"] = {int64_t(1) << 41};
            }),
            at + "instructions[0].src.iv[0]: expected an integer in "
                 "[-1099511627776, 1099511627776], found a number "
                 "2199023255552");
  EXPECT_EQ(errorWith([](json &k) { k["instructions"][0]["src"]["iv"] = {1, 2}; }),
            at + "instructions[0].src.iv: expected 1 element strides per "
                 "iteration (one per enclosing loop, outermost first), found "
                 "2");
}

TEST(LoopTest, LoopsNestAndHoldContiguousBodies) {
  EXPECT_EQ(errorWith([](json &k) {
              json &scale = k["instructions"][1];
              scale.erase("loop");
              scale.erase("wait");
              scale["src"].erase("slots");
              scale["dst"].erase("slots");
            }),
            at + "instructions[2].loop: expected a loop whose body is "
                 "contiguous (loop 0 ended at instruction 1), found loop 0 "
                 "again");
  EXPECT_EQ(errorWith([](json &k) { k["loops"].push_back({{"trips", 2}}); }),
            "manifest: kernel \"k\" loops[1]: expected a loop holding an "
            "instruction, found an empty loop");
  EXPECT_EQ(errorWith([](json &k) { k["loops"][0]["parent"] = 0; }),
            at + "loops[0].parent: expected no parent (an enclosing loop comes "
                 "first), found a number 0");
  EXPECT_EQ(errorWith([](json &k) { k["instructions"][0]["loop"] = 1; }),
            at + "instructions[0].loop: expected a loop index in [0, 0], found "
                 "a number 1");
  EXPECT_EQ(errorWith([](json &k) {
              k["instructions"][0]["dst"]["slots"]["depth"] = 2;
            }),
            at + "instructions[0].dst.slots.depth: expected a loop count in "
                 "[0, 1] (the instruction's loops), found a number 2");
}

TEST(LoopTest, WaitsThatCouldDeadlockAtSomeIterationAreErrors) {
  // The scale waits for two loads per iteration: at iteration 3 it waits
  // for the 7th, which comes after it.
  EXPECT_EQ(errorWith([](json &k) {
              k["instructions"][1]["wait"][0]["iv"] = {2};
            }),
            at + "instructions[1].wait[0].count: expected a count dma0 reaches "
                 "before this instruction in program order (4 at iteration "
                 "[3]; waiting for more could deadlock), found 7 at iteration "
                 "[3]");
  // Per-iteration counts, one per loop.
  EXPECT_EQ(errorWith([](json &k) {
              k["instructions"][1]["wait"][0]["iv"] = {1, 1};
            }),
            at + "instructions[1].wait[0].iv: expected 1 counts per iteration "
                 "(one per enclosing loop, outermost first), found 2");
}

TEST(LoopTest, RestartNamesTheMatmulsLoops) {
  EXPECT_EQ(errorWith([](json &k) {
              json &mm = k["instructions"][1];
              mm = {{"op", "matmul"},   {"engine", "tensor"},
                    {"loop", 0},        {"accumulate", true},
                    {"restart", {1}},
                    {"stationary", onChip("sbuf", 0, {128, 128})},
                    {"moving", onChip("sbuf", 0, {128, 64})},
                    {"dst", onChip("psum", 0, {128, 64})}};
            }),
            at + "instructions[1].restart[0]: expected an integer in [0, 0], "
                 "found a number 1");
}

TEST(LoopTest, OlderExecutablesAreRefused) {
  json m = manifestOf(scaleKernel());
  m["schema"] = "neuron-executable/3";
  EXPECT_EQ(errorOf(m),
            "manifest: schema: expected \"neuron-executable/4\" (this "
            "runtime's format: on-chip access patterns; recompile an older "
            "executable with this neuron-compile), found a string "
            "\"neuron-executable/3\"");
}

TEST(LoopTest, FewerFirstLowersALoopsFirstIterationsCounts) {
  json kernel = nestedScaleKernel();
  std::vector<double> x = iota(512 * 64);
  Tensor in = makeTensor(DType::F32, {512, 64}, x);
  std::vector<double> looped = run(manifestOf(kernel), {in});
  ASSERT_EQ(looped.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(looped[i], x[i] * 2 + 1) << i;
  Program rolled = parse(manifestOf(kernel));
  Program flat = parse(manifestOf(unrolled(kernel)));
  absl::StatusOr<KernelTiming> a =
      simulateKernelTiming(rolled.kernels.at(0), trn2());
  absl::StatusOr<KernelTiming> b =
      simulateKernelTiming(flat.kernels.at(0), trn2());
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_DOUBLE_EQ(a->observedNs, b->observedNs);
  ASSERT_EQ(a->recorded.size(), b->recorded.size());
  for (size_t k = 0; k < a->recorded.size(); ++k)
    EXPECT_DOUBLE_EQ(a->recorded[k].startNs, b->recorded[k].startNs);
  EXPECT_EQ(orderError(kernel), "");
  // One fewer still: load [1, 0] refills the slot scale [0, 1] reads.
  kernel["instructions"][0]["wait"][0]["fewer_first"] = {1, 1, 2};
  std::string error = orderError(kernel);
  EXPECT_NE(error.find("instruction 0 (dma_copy) at iteration [1, 0]"),
            std::string::npos)
      << error;
}

TEST(LoopTest, FewerFirstNamesALoopAndItsFirstIterations) {
  auto errorOfWait = [](json fewer) {
    json kernel = nestedScaleKernel();
    kernel["instructions"][0]["wait"][0]["fewer_first"] = std::move(fewer);
    return errorOf(manifestOf(kernel));
  };
  const std::string expected =
      at + "instructions[0].wait[0].fewer_first: expected [loop, "
           "iterations, fewer]: a loop level in [0, 1], iterations within "
           "its trips and fewer at least 1, found ";
  EXPECT_EQ(errorOfWait({2, 1, 1}), expected + "[2, 1, 1]");
  EXPECT_EQ(errorOfWait({1, 3, 1}), expected + "[1, 3, 1]");
  EXPECT_EQ(errorOfWait({1, 1, 0}), expected + "[1, 1, 0]");
  EXPECT_EQ(errorOfWait({1, 1}), expected + "[1, 1]");
  EXPECT_EQ(errorOfWait({-1, 1, 1}),
            at + "instructions[0].wait[0].fewer_first[0]: expected an "
                 "integer in [0, 1099511627776], found a number -1");
}

TEST(LoopTest, FewerFirstOutsideLoopsIsAnError) {
  json kernel = scaleKernel();
  json &store = kernel["instructions"][3];
  store.erase("loop");
  store["src"].erase("slots");
  store["dst"].erase("iv");
  store["wait"][0] = {
      {"unit", "vector"}, {"count", 4}, {"fewer_first", {0, 1, 1}}};
  EXPECT_EQ(errorOf(manifestOf(kernel)),
            at + "instructions[3].wait[0].fewer_first: expected none: the "
                 "instruction is in no loop, found [0, 1, 1]");
}

} // namespace
