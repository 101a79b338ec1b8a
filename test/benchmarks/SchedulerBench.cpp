//===- SchedulerBench.cpp - compile time of scheduling and sync -----------===//
//
// How nisa-schedule, nisa-insert-sync and nisa-verify-sync scale with the
// instructions of a kernel: a streaming kernel of N instructions (load a
// tile, multiply it by a resident weight, evacuate PSUM, store a row block;
// tiles rotate through 8 SBUF and 4 PSUM slots, as the allocator leaves
// them) of 10 and 100 thousand instructions. nisa-schedule cuts long
// transfers into pieces over the DMA engines, so the sync passes see more
// instructions than the kernel had: `instructions` counts what the timed
// pass leaves. Google Benchmark fits the complexity.
//
//===----------------------------------------------------------------------===//

#include "dialects/neuron/IR/NeuronDialect.h"
#include "dialects/nisa/IR/NisaOps.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <benchmark/benchmark.h>

using namespace mlir;

namespace {

/// A kernel of 4 x `groups` + 1 instructions.
OwningOpRef<ModuleOp> streamingKernel(MLIRContext &ctx, int64_t groups) {
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  auto space = [&](nisa::MemorySpace s) {
    return nisa::MemorySpaceAttr::get(&ctx, s);
  };
  auto memref = [&](ArrayRef<int64_t> shape, Type element,
                    nisa::MemorySpace s) {
    return MemRefType::get(shape, element, MemRefLayoutAttrInterface(),
                           space(s));
  };
  Type bf16 = b.getBF16Type(), f32 = b.getF32Type();
  auto in = memref({128, 512}, bf16, nisa::MemorySpace::hbm);
  auto weight = memref({128, 128}, bf16, nisa::MemorySpace::hbm);
  auto out = memref({groups * 128, 512}, f32, nisa::MemorySpace::hbm);
  b.setInsertionPointToEnd(module->getBody());
  auto kernel = func::FuncOp::create(
      b, loc, "stream", b.getFunctionType({in, weight, out}, {}));
  kernel->setAttr("nisa.limits",
                  nisa::LimitsAttr::get(&ctx, 128, 229376, 16384, 2048, 128,
                                        512, 1));
  kernel->setAttr("nisa.num_inputs", b.getI64IntegerAttr(2));
  Block *body = kernel.addEntryBlock();
  b.setInsertionPointToEnd(body);
  auto alloc = [&](MemRefType type, int64_t address) {
    auto op = memref::AllocOp::create(b, loc, type);
    op->setAttr("nisa.address", b.getI64IntegerAttr(address));
    return op.getResult();
  };
  auto dma = [&](Value src, Value dst) {
    nisa::DmaCopyOp::create(b, loc, src, dst, b.getI64IntegerAttr(0));
  };
  Value stationary =
      alloc(memref({128, 128}, bf16, nisa::MemorySpace::sbuf), 0);
  dma(body->getArgument(1), stationary);
  for (int64_t g = 0; g < groups; ++g) {
    Value moving = alloc(memref({128, 512}, bf16, nisa::MemorySpace::sbuf),
                         256 + (g % 8) * 1024);
    dma(body->getArgument(0), moving);
    Value acc = alloc(memref({128, 512}, f32, nisa::MemorySpace::psum),
                      (g % 4) * 2048);
    nisa::MatmulOp::create(b, loc, stationary, moving, acc,
                           /*accumulate=*/false, /*restart=*/ValueRange());
    Value result = alloc(memref({128, 512}, f32, nisa::MemorySpace::sbuf),
                         256 + 8 * 1024 + (g % 8) * 2048);
    nisa::ActivationOp::create(
        b, loc, acc, result, Value(),
        nisa::ActivationFunctionAttr::get(&ctx,
                                          nisa::ActivationFunction::identity),
        b.getF64FloatAttr(1.0));
    SmallVector<int64_t> offsets{g * 128, 0}, sizes{128, 512}, strides{1, 1};
    Value rows = memref::SubViewOp::create(b, loc, body->getArgument(2),
                                           offsets, sizes, strides);
    dma(result, rows);
  }
  func::ReturnOp::create(b, loc);
  return module;
}

MLIRContext &context() {
  static MLIRContext *ctx = [] {
    DialectRegistry registry;
    registry.insert<func::FuncDialect, memref::MemRefDialect,
                    neuron::NeuronDialect, nisa::NisaDialect>();
    auto *c = new MLIRContext(registry);
    c->loadAllAvailableDialects();
    c->disableMultithreading();
    return c;
  }();
  return *ctx;
}

/// Times `addPasses` on a fresh copy of the kernel each iteration; `prefix`
/// passes run on the copy first, untimed.
void run(benchmark::State &state,
         function_ref<void(PassManager &)> prefix,
         function_ref<void(PassManager &)> addPasses) {
  MLIRContext &ctx = context();
  OwningOpRef<ModuleOp> kernel = streamingKernel(ctx, state.range(0) / 4);
  int64_t instructions = 0;
  {
    PassManager pm(&ctx);
    prefix(pm);
    if (failed(pm.run(*kernel)))
      state.SkipWithError("preparing the kernel failed");
  }
  for (auto _ : state) {
    state.PauseTiming();
    OwningOpRef<ModuleOp> copy = kernel->clone();
    PassManager pm(&ctx);
    addPasses(pm);
    state.ResumeTiming();
    if (failed(pm.run(*copy)))
      state.SkipWithError("the pass failed");
    state.PauseTiming();
    instructions = 0;
    copy->walk([&](nisa::EngineOpInterface) { ++instructions; });
    copy = nullptr; // destroying 1M ops is not the pass's time
    state.ResumeTiming();
  }
  state.SetComplexityN(instructions);
  state.counters["instructions"] = double(instructions);
  state.counters["ns_per_instruction"] = benchmark::Counter(
      double(instructions), benchmark::Counter::kIsIterationInvariantRate |
                                benchmark::Counter::kInvert);
}

void none(PassManager &) {}
void schedule(PassManager &pm) { pm.addPass(neuron::createNisaSchedule()); }
void scheduleAndSync(PassManager &pm) {
  schedule(pm);
  pm.addPass(neuron::createNisaInsertSync());
}

void BM_NisaSchedule(benchmark::State &state) { run(state, none, schedule); }
void BM_NisaInsertSync(benchmark::State &state) {
  run(state, schedule,
      [](PassManager &pm) { pm.addPass(neuron::createNisaInsertSync()); });
}
void BM_NisaVerifySync(benchmark::State &state) {
  run(state, scheduleAndSync,
      [](PassManager &pm) { pm.addPass(neuron::createNisaVerifySync()); });
}

} // namespace

BENCHMARK(BM_NisaSchedule)
    ->RangeMultiplier(10)
    ->Range(10000, 100000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oNLogN);
BENCHMARK(BM_NisaInsertSync)
    ->RangeMultiplier(10)
    ->Range(10000, 100000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);
BENCHMARK(BM_NisaVerifySync)
    ->RangeMultiplier(10)
    ->Range(10000, 100000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);

BENCHMARK_MAIN();
