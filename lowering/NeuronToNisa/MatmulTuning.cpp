//===- MatmulTuning.cpp - Plans searched by scheduling, and their records -===//
//
// matmulPlans orders a matmul's plans by an estimate. With a tuning cache,
// convert-neuron-to-nisa also times the best few the way the compile will:
// each is compiled alone into a probe module (the op, or its fusion, with
// the transposes it reads through), allocated and scheduled, and the one
// nisa-schedule predicts fastest is kept. The choice is stored as a tuning
// record, one JSON file per op signature and target, named by a hash of
// them: a later compile of the same op reads it and skips the search. A
// record that does not parse, or was written for another signature,
// target or compiler, is a warning and searched again.
//
//===----------------------------------------------------------------------===//

#include "lowering/NeuronToNisa/KernelLowering.h"

#include "lowering/Passes.h"

#include "NeuronVersion.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace mlir::neuron;

/// Plans timed per op: the estimate's best few.
static constexpr int64_t kProbes = 3;

static bool isContraction(Operation *op) {
  return isa<MatmulOp, BatchMatmulOp>(op);
}

/// The op to tune at the top of `func`'s body: a matmul, or a fusion
/// whose producer is one.
static bool isTunable(Operation *op) {
  if (isContraction(op))
    return true;
  auto fusion = dyn_cast<FusionOp>(op);
  return fusion && llvm::any_of(fusion.getBody().front(),
                                [](Operation &o) { return isContraction(&o); });
}

namespace {

/// A module holding `anchor` alone as a function of the values it reads,
/// with the transposes it reads through (they lower to its operand views).
struct Probe {
  OwningOpRef<ModuleOp> module;
  Operation *anchor = nullptr;
};

Probe makeProbe(Operation *anchor) {
  MLIRContext *ctx = anchor->getContext();
  Location loc = anchor->getLoc();
  Probe probe;
  probe.module = ModuleOp::create(loc);
  ModuleOp parent = anchor->getParentOfType<ModuleOp>();
  for (NamedAttribute a : parent->getAttrs())
    if (a.getName() != SymbolTable::getSymbolAttrName())
      (*probe.module)->setAttr(a.getName(), a.getValue());
  llvm::SetVector<Value> inputs;
  SmallVector<Operation *> transposes;
  for (Value v : anchor->getOperands()) {
    // A transpose the compile reads as a view (DataMovement.cpp) is one
    // in the probe too.
    auto t = v.getDefiningOp<TransposeOp>();
    if (t && t.isOperandView()) {
      transposes.push_back(t);
      inputs.insert(t.getInput());
    } else {
      inputs.insert(v);
    }
  }
  SmallVector<Type> types;
  for (Value v : inputs)
    types.push_back(v.getType());
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(probe.module->getBody());
  auto func = func::FuncOp::create(
      b, loc, "probe",
      FunctionType::get(ctx, types, anchor->getResultTypes()));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToEnd(body);
  IRMapping map;
  for (auto [v, arg] : llvm::zip(inputs, body->getArguments()))
    map.map(v, arg);
  for (Operation *t : transposes)
    if (!map.contains(t->getResult(0)))
      b.clone(*t, map);
  probe.anchor = b.clone(*anchor, map);
  probe.anchor->removeAttr(kPlanRank);
  probe.anchor->removeAttr(kPlanExpected);
  func::ReturnOp::create(b, loc, probe.anchor->getResults());
  return probe;
}

/// What a probe of one plan gave: the plan it took and its predicted time.
struct Trial {
  int64_t rank = 0;
  std::string plan;
  double ns = 0;
};

/// Compiles the probe with the plan of rank `rank` and schedules it; fails
/// when it does not compile (a plan that does not fit).
FailureOr<Trial> tryPlan(Probe &probe, int64_t rank,
                         const TuningOptions &options) {
  OwningOpRef<ModuleOp> module(cast<ModuleOp>(probe.module->clone()));
  MLIRContext *ctx = module->getContext();
  module->walk([&](Operation *op) {
    if (isTunable(op))
      op->setAttr(kPlanRank,
                  IntegerAttr::get(IntegerType::get(ctx, 64), rank));
  });
  PassManager pm(ctx, ModuleOp::getOperationName());
  ConvertNeuronToNisaOptions convert;
  convert.target = options.target;
  convert.targetDir = options.targetDir;
  convert.buffers = options.buffers;
  addTilingPasses(pm, convert);
  // A plan that does not fit is no candidate: its errors stay here.
  ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
  if (failed(pm.run(*module)))
    return failure();
  for (auto func : module->getOps<func::FuncOp>()) {
    auto plans = func->getAttrOfType<ArrayAttr>(kTunedPlans);
    auto timing = func->getAttrOfType<nisa::ScheduleAttr>("nisa.schedule");
    if (plans && timing && !plans.empty())
      return Trial{rank, cast<StringAttr>(plans[0]).getValue().str(),
                   timing.getPredictedNs().getValueAsDouble()};
  }
  return failure();
}

} // namespace

FailureOr<double> mlir::neuron::scheduledAloneNs(Operation *anchor,
                                                 const TuningOptions &options) {
  Probe probe = makeProbe(anchor);
  FailureOr<Trial> trial = tryPlan(probe, /*rank=*/0, options);
  if (failed(trial))
    return failure();
  return trial->ns;
}

namespace {

/// The record's key: the probe as text, the target's limits and cost
/// model, the probes' buffers, and the compiler's version.
std::string keyOf(Probe &probe, const TileConfig &config, int64_t buffers) {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << "neuron-tuning/1\n" << NEURON_VERSION_LINE << "\n"
     << config.limits << "\nbuffers " << buffers << "\n"
     << config.cost.assumptions();
  probe.module->print(os, OpPrintingFlags().useLocalScope());
  return key;
}

/// A record as read back: the rank chosen and the plan it was.
struct Record {
  int64_t rank = 0;
  std::string plan;
};

/// The record at `path` for `key`: none when there is no file; a warning
/// (and none) when it is corrupt or stale.
std::optional<Record> readRecord(Operation *anchor, StringRef path,
                                 StringRef key) {
  if (!llvm::sys::fs::exists(path))
    return std::nullopt;
  auto warn = [&](const Twine &why) {
    anchor->emitWarning() << "convert-neuron-to-nisa: ignoring tuning record "
                          << path << ": " << why << "; searching again";
    return std::nullopt;
  };
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file)
    return warn("cannot read it (" + file.getError().message() + ")");
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*file)->getBuffer());
  if (!json)
    return warn("not JSON (" + llvm::toString(json.takeError()) + ")");
  const llvm::json::Object *o = json->getAsObject();
  std::optional<StringRef> recordKey = o ? o->getString("key") : std::nullopt;
  std::optional<int64_t> rank = o ? o->getInteger("rank") : std::nullopt;
  std::optional<StringRef> plan = o ? o->getString("plan") : std::nullopt;
  if (!recordKey || !rank || !plan || *rank < 0 || *rank >= kProbes)
    return warn("expected {key, rank (0.." + Twine(kProbes - 1) + "), plan}");
  if (*recordKey != key)
    return warn("written for another op signature, target or compiler");
  return Record{*rank, plan->str()};
}

/// Writes the record through a temporary file, so no reader sees half.
void writeRecord(Operation *anchor, StringRef dir, StringRef path,
                 StringRef key, const Trial &trial) {
  llvm::json::Object o{{"key", key},
                       {"rank", trial.rank},
                       {"plan", trial.plan},
                       {"predicted_ns", trial.ns}};
  std::string text;
  llvm::raw_string_ostream(text) << llvm::json::Value(std::move(o));
  // A file of its own per writer, renamed over the record: compiles
  // writing the same record at once each leave a whole one.
  SmallString<128> temp;
  int fd = -1;
  std::error_code ec = llvm::sys::fs::create_directories(dir);
  if (!ec)
    ec = llvm::sys::fs::createUniqueFile(path + "-%%%%%%.tmp", fd, temp);
  if (!ec) {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << text;
    out.close();
    ec = out.error();
    if (!ec)
      ec = llvm::sys::fs::rename(temp, path);
    if (ec)
      llvm::sys::fs::remove(temp);
  }
  if (ec)
    anchor->emitWarning() << "convert-neuron-to-nisa: cannot write tuning "
                             "record "
                          << path << ": " << ec.message();
}

} // namespace

LogicalResult mlir::neuron::tuneMatmuls(Block &body, const TileConfig &config,
                                        const TuningOptions &options) {
  SmallVector<Operation *> anchors;
  for (Operation &op : body)
    if (isTunable(&op))
      anchors.push_back(&op);
  for (Operation *anchor : anchors) {
    MLIRContext *ctx = anchor->getContext();
    Probe probe = makeProbe(anchor);
    std::string key = keyOf(probe, config, options.buffers);
    SmallString<128> path(options.cacheDir);
    llvm::sys::path::append(
        path, llvm::utohexstr(llvm::xxh3_64bits(key), /*LowerCase=*/true) +
                  ".json");
    auto mark = [&](int64_t rank, StringRef plan) {
      anchor->setAttr(kPlanRank,
                      IntegerAttr::get(IntegerType::get(ctx, 64), rank));
      anchor->setAttr(kPlanExpected, StringAttr::get(ctx, plan));
    };
    if (std::optional<Record> r = readRecord(anchor, path, key)) {
      mark(r->rank, r->plan);
      anchor->emitRemark() << "convert-neuron-to-nisa: tuning record " << path
                           << ": " << r->plan << ", search skipped";
      continue;
    }
    SmallVector<Trial> trials;
    int64_t best = -1;
    for (int64_t rank = 0; rank < kProbes; ++rank) {
      FailureOr<Trial> t = tryPlan(probe, rank, options);
      if (failed(t))
        continue;
      // Ranks past the last plan repeat it.
      if (llvm::any_of(trials, [&](const Trial &u) { return u.plan == t->plan; }))
        break;
      trials.push_back(*t);
      if (best < 0 || t->ns < trials[best].ns)
        best = int64_t(trials.size()) - 1;
    }
    if (best < 0)
      continue; // the lowering reports why no plan fits
    mark(trials[best].rank, trials[best].plan);
    writeRecord(anchor, options.cacheDir, path, key, trials[best]);
    InFlightDiagnostic remark =
        anchor->emitRemark()
        << "convert-neuron-to-nisa: scheduled " << trials.size()
        << " plan(s) alone: " << trials[best].plan << ", "
        << llvm::formatv("{0:F1}", trials[best].ns / 1e3) << " us";
    for (auto [i, t] : llvm::enumerate(trials))
      if (int64_t(i) != best)
        remark << "; " << t.plan << ", "
               << llvm::formatv("{0:F1}", t.ns / 1e3) << " us";
    remark << "; recorded in " << path;
  }
  return success();
}
