//===- CheckCoverage.cpp - the neuron-check-coverage pass -----------------===//
//
// Judges the module against the target generation's capability table,
// applies the fallback policy, and reports: diagnostics at each offending
// op, an optional JSON report, an optional summary table.
//
//===----------------------------------------------------------------------===//

#include "passes/Coverage.h"
#include "passes/Decompose.h"
#include "passes/HostOutline.h"
#include "passes/Passes.h"
#include "passes/ReportFile.h"
#include "passes/TargetLoading.h"

#include "dialects/neuron/IR/NeuronOps.h"
#include "runtime/target/Capabilities.h"
#include "runtime/target/Target.h"

#include "NeuronVersion.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <map>

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONCHECKCOVERAGE
#include "passes/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
namespace rt = ::neuron::rt;
using json = nlohmann::ordered_json;

/// `file:line:col` of a location, or its printed form.
static std::string locationString(Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>()) {
    if (file.getLine() == 0)
      return file.getFilename().str(); // a whole file, such as the module
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

/// Bytes of a ranked tensor with a static shape (0 otherwise).
static int64_t bytesOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  int64_t bits = tensor.getElementTypeBitWidth();
  return (tensor.getNumElements() * bits + 7) / 8;
}

/// The ops a host call runs, as the report counts them: its body's ops but
/// the terminator and the constants copied in.
static SmallVector<Operation *> hostOpsIn(HostCallOp call) {
  SmallVector<Operation *> ops;
  for (Operation &op : call.getBody().front().without_terminator())
    if (!op.hasTrait<OpTrait::ConstantLike>())
      ops.push_back(&op);
  return ops;
}

namespace {

/// The descriptions, tables and resolved target a run works with. Held
/// apart from the pass, which must stay copyable.
struct Loaded {
  LoadedTarget target;
  rt::CapabilityRegistry capabilities;
};

/// Counts by op kind for the report.
struct KindCounts {
  int64_t native = 0, decomposed = 0, host = 0, custom = 0, unsupported = 0;
};

struct NeuronCheckCoverage
    : mlir::neuron::impl::NeuronCheckCoverageBase<NeuronCheckCoverage> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// Loads the descriptions and tables and resolves the target; emits an
  /// error and returns null on failure.
  std::unique_ptr<Loaded> load();

  /// Every judged op under the module, in walk (block) order.
  SmallVector<Operation *> judgedOps();

  void decompose(const CoverageChecker &checker, DecomposeLog &log);
  SmallVector<HostCallOp> outline(const CoverageChecker &checker,
                                  std::map<std::string, KindCounts> &);
  json hostCallEntry(HostCallOp call, double linkBytesPerSecond);
  void printSummary(const json &report);
};

} // namespace

std::unique_ptr<Loaded> NeuronCheckCoverage::load() {
  ModuleOp module = getOperation();
  auto fail = [&](const Twine &message) -> std::unique_ptr<Loaded> {
    module.emitError() << "neuron-check-coverage: " << message;
    return nullptr;
  };
  if (failed(checkFallbackPolicy(module, "neuron-check-coverage", fallback)))
    return nullptr;
  FailureOr<LoadedTarget> t =
      loadTarget(module, "neuron-check-coverage", target, targetDir);
  if (failed(t))
    return nullptr;
  absl::StatusOr<rt::CapabilityRegistry> c =
      capabilityDir.empty() ? rt::CapabilityRegistry::loadBuiltin()
                            : rt::CapabilityRegistry::loadDirectory(capabilityDir);
  if (!c.ok())
    return fail(std::string(c.status().message()));
  const rt::ResolvedTarget &r = t->target;
  if (!c->forGeneration(r.chip->generation))
    return fail("no capability table for generation '" + r.chip->generation +
                "' (target '" + r.spec() + "')");
  return std::make_unique<Loaded>(Loaded{std::move(*t), std::move(*c)});
}

SmallVector<Operation *> NeuronCheckCoverage::judgedOps() {
  SmallVector<Operation *> ops;
  getOperation()->walk([&](Operation *op) {
    if (CoverageChecker::isJudged(op))
      ops.push_back(op);
  });
  return ops;
}

void NeuronCheckCoverage::decompose(const CoverageChecker &checker,
                                    DecomposeLog &log) {
  RewritePatternSet patterns(&getContext());
  populateCoverageDecompositions(patterns, checker, log);
  // Rewrite only what is unsupported: no folding, no CFG simplification.
  GreedyRewriteConfig config;
  config.enableFolding(false);
  config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
}

SmallVector<HostCallOp>
NeuronCheckCoverage::outline(const CoverageChecker &checker,
                             std::map<std::string, KindCounts> &kinds) {
  // Unsupported ops, grouped by block, each group in block order.
  llvm::MapVector<Block *, llvm::SetVector<Operation *>> byBlock;
  for (Operation *op : judgedOps())
    if (checker.check(op))
      byBlock[op->getBlock()].insert(op);
  SmallVector<HostCallOp> calls;
  for (auto &[block, ops] : byBlock) {
    auto reasonOf = [&](ArrayRef<Operation *> region) {
      std::string reason = "unsupported on " + checker.generation().str() + ":";
      llvm::SmallSetVector<StringRef, 4> names;
      for (Operation *op : region)
        names.insert(op->getName().getStringRef());
      for (StringRef name : names)
        reason += " " + name.str();
      return reason;
    };
    SmallVector<HostCallOp> made = outlineToHost(ops, reasonOf);
    for (HostCallOp call : made)
      for (Operation *op : hostOpsIn(call))
        ++kinds[op->getName().getStringRef().str()].host;
    llvm::append_range(calls, made);
  }
  return calls;
}

json NeuronCheckCoverage::hostCallEntry(HostCallOp call,
                                        double linkBytesPerSecond) {
  int64_t in = 0, out = 0;
  for (Type t : call.getInputs().getTypes())
    in += bytesOf(t);
  for (Type t : call.getResultTypes())
    out += bytesOf(t);
  int64_t ops = hostOpsIn(call).size();
  json entry;
  entry["location"] = locationString(call.getLoc());
  entry["reason"] = call.getReason() ? call.getReason()->str() : "";
  entry["ops"] = ops;
  entry["bytes_to_host"] = in;
  entry["bytes_to_device"] = out;
  entry["estimated_transfer_us"] =
      linkBytesPerSecond > 0 ? (in + out) / linkBytesPerSecond * 1e6 : 0.0;
  return entry;
}

void NeuronCheckCoverage::runOnOperation() {
  std::unique_ptr<Loaded> loaded = load();
  if (!loaded)
    return signalPassFailure();
  const rt::ResolvedTarget &resolved = loaded->target.target;
  const rt::CapabilityTable &table =
      *loaded->capabilities.forGeneration(resolved.chip->generation);
  CoverageChecker checker(loaded->capabilities, table);

  // Judge everything once before any fallback.
  std::map<std::string, KindCounts> kinds;
  int64_t judged = 0;
  for (Operation *op : judgedOps()) {
    ++judged;
    // A user kernel counts as what it replaced.
    if (auto custom = dyn_cast<CustomKernelOp>(op))
      ++kinds[custom.getOp().str()].custom;
    else if (!checker.check(op))
      ++kinds[op->getName().getStringRef().str()].native;
  }

  DecomposeLog log;
  if (fallback != "error")
    decompose(checker, log);
  for (const auto &[name, count] : log.decomposed)
    kinds[name].decomposed += count;

  double linkBytesPerSecond = resolved.hostLinkBytesPerSecond();
  json hostCalls = json::array();
  if (fallback == "host")
    for (HostCallOp call : outline(checker, kinds))
      hostCalls.push_back(hostCallEntry(call, linkBytesPerSecond));

  // What is left is an error, at its location, whatever the policy.
  json unsupported = json::array();
  int64_t device = 0, failing = 0;
  for (Operation *op : judgedOps()) {
    std::optional<CoverageIssue> issue = checker.check(op);
    if (!issue) {
      device += !isa<HostCallOp>(op);
      continue;
    }
    ++failing;
    ++kinds[op->getName().getStringRef().str()].unsupported;
    op->emitError() << issue->reason << " [" << issue->rule
                    << "]; hint: " << issue->hint;
    unsupported.push_back({{"op", op->getName().getStringRef().str()},
                           {"location", locationString(op->getLoc())},
                           {"rule", issue->rule},
                           {"reason", issue->reason},
                           {"hint", issue->hint}});
  }
  int64_t hostOps = 0, bytes = 0;
  double transferUs = 0;
  for (const json &call : hostCalls) {
    hostOps += call["ops"].get<int64_t>();
    bytes += call["bytes_to_host"].get<int64_t>() +
             call["bytes_to_device"].get<int64_t>();
    transferUs += call["estimated_transfer_us"].get<double>();
  }
  int64_t finalOps = device + hostOps + failing;
  int64_t native = 0, decomposed = 0, custom = 0;
  json byOp = json::object();
  for (const auto &[name, c] : kinds) {
    native += c.native;
    decomposed += c.decomposed;
    custom += c.custom;
    byOp[name] = {{"native", c.native},
                  {"decomposed", c.decomposed},
                  {"host", c.host},
                  {"custom", c.custom},
                  {"unsupported", c.unsupported}};
  }

  json report;
  report["schema"] = "neuron-coverage-report/1";
  report["compiler"] = {{"name", "neuron-mlir"},
                        {"version", NEURON_VERSION},
                        {"git", NEURON_GIT_REVISION},
                        {"mlir", NEURON_MLIR_VERSION}};
  report["target"] = targetRecord(resolved);
  report["input"] = locationString(getOperation().getLoc());
  report["policy"] = fallback;
  report["totals"] = {
      {"judged_ops", judged},
      {"native", native},
      {"decomposed", decomposed},
      {"host", hostOps},
      {"custom", custom},
      {"unsupported", failing},
      {"device_ops_after_policy", device},
      {"coverage_percent",
       finalOps ? 100.0 * static_cast<double>(device) / finalOps : 100.0}};
  report["by_op"] = byOp;
  report["host_calls"] = hostCalls;
  report["host_transfer"] = {{"bytes", bytes},
                             {"estimated_us", transferUs},
                             {"link_bytes_per_second", linkBytesPerSecond}};
  json warnings = json::array();
  for (const auto &[loc, message] : log.warnings)
    warnings.push_back({{"location", locationString(loc)}, {"message", message}});
  report["warnings"] = warnings;
  report["unsupported"] = unsupported;

  if (!this->report.empty() &&
      failed(writeReportFile(
          getOperation(), "neuron-check-coverage", "coverage report",
          this->report,
          report.dump(2, ' ', false, json::error_handler_t::replace) + "\n")))
    return signalPassFailure();
  if (summary)
    printSummary(report);
  if (failing)
    signalPassFailure();
}

void NeuronCheckCoverage::printSummary(const json &report) {
  llvm::raw_ostream &os = llvm::errs();
  const json &totals = report["totals"];
  os << llvm::formatv(
      "coverage on {0} ({1}), policy {2}: {3:F1}% of ops on the device\n",
      report["target"]["spec"].get<std::string>(),
      report["target"]["generation"].get<std::string>(),
      report["policy"].get<std::string>(),
      totals["coverage_percent"].get<double>());
  os << llvm::formatv("  {0,-28} {1,7} {2,10} {3,5} {4,6} {5,11}\n", "op",
                      "native", "decomposed", "host", "custom", "unsupported");
  auto row = [&](StringRef name, const json &c) {
    os << llvm::formatv("  {0,-28} {1,7} {2,10} {3,5} {4,6} {5,11}\n", name,
                        c["native"].get<int64_t>(),
                        c["decomposed"].get<int64_t>(),
                        c["host"].get<int64_t>(), c["custom"].get<int64_t>(),
                        c["unsupported"].get<int64_t>());
  };
  // Only the op kinds that needed a fallback, a user kernel or failed get
  // a row.
  int64_t quietKinds = 0, quietOps = 0;
  for (const auto &[name, c] : report["by_op"].items()) {
    if (c["decomposed"].get<int64_t>() == 0 && c["host"].get<int64_t>() == 0 &&
        c["custom"].get<int64_t>() == 0 &&
        c["unsupported"].get<int64_t>() == 0) {
      ++quietKinds;
      quietOps += c["native"].get<int64_t>();
      continue;
    }
    row(name, c);
  }
  if (quietKinds)
    os << llvm::formatv("  {0,-28} {1,7}\n",
                        "(" + std::to_string(quietKinds) + " other op kinds)",
                        quietOps);
  row("total", totals);
  if (!report["host_calls"].empty())
    os << llvm::formatv("  host calls: {0}, {1} bytes cross, ~{2:F1} us over "
                        "the host link\n",
                        report["host_calls"].size(),
                        report["host_transfer"]["bytes"].get<int64_t>(),
                        report["host_transfer"]["estimated_us"].get<double>());
}
