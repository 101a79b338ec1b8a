//===- TargetLoading.cpp - The target a pass compiles for -----------------===//

#include "passes/TargetLoading.h"
#include "passes/Passes.h"

#include "dialects/neuron/IR/NeuronDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <nlohmann/json.hpp>

namespace rt = ::neuron::rt;
using namespace mlir;
using namespace mlir::neuron;

/// loadTarget's choice of target, resolved against `registry`.
static FailureOr<rt::ResolvedTarget>
resolveTarget(ModuleOp module, StringRef pass,
              const rt::TargetRegistry &registry, StringRef option,
              StringRef fallback) {
  auto resolve = [&](StringRef spec) -> FailureOr<rt::ResolvedTarget> {
    absl::StatusOr<rt::ResolvedTarget> target = registry.resolve(spec.str());
    if (!target.ok())
      return module.emitError()
             << pass << ": " << std::string(target.status().message());
    return *target;
  };
  auto attr = module->getAttrOfType<TargetAttr>(NeuronDialect::kTargetAttrName);
  if (!attr)
    return resolve(option.empty() ? fallback : option);
  FailureOr<rt::ResolvedTarget> target = resolve(attr.getSpec());
  if (failed(target) || option.empty())
    return target;
  FailureOr<rt::ResolvedTarget> given = resolve(option);
  if (failed(given))
    return failure();
  if (given->spec() != target->spec())
    return module.emitError()
           << pass << ": target=" << option << " is " << given->spec()
           << ", but the module is compiled for " << target->spec() << " ("
           << NeuronDialect::kTargetAttrName
           << "); drop the option or change the attribute";
  return target;
}

FailureOr<rt::CostModel>
mlir::neuron::loadCostModel(ModuleOp module, StringRef pass,
                            const rt::ResolvedTarget &target) {
  absl::StatusOr<rt::CostModel> model = rt::CostModel::forTarget(target);
  if (!model.ok())
    return module.emitError()
           << pass << ": " << std::string(model.status().message());
  return std::move(*model);
}

nlohmann::ordered_json
mlir::neuron::targetRecord(const rt::ResolvedTarget &target) {
  return {{"spec", target.spec()},
          {"chip", target.chip->name},
          {"generation", target.chip->generation},
          {"instance", target.instance ? target.instance->name : ""},
          {"lnc", target.lnc.lnc},
          {"lnc_definition", target.lnc.definition}};
}

void mlir::neuron::setModuleTarget(ModuleOp module,
                                   const rt::ResolvedTarget &target) {
  Builder b(module.getContext());
  module->setAttr(
      NeuronDialect::kTargetAttrName,
      TargetAttr::get(module.getContext(), b.getStringAttr(target.chip->name),
                      target.instance ? b.getStringAttr(target.instance->name)
                                      : StringAttr(),
                      target.lnc.physicalCoresPerLogicalCore));
}

FailureOr<mlir::neuron::LoadedTarget>
mlir::neuron::loadTarget(ModuleOp module, StringRef pass, StringRef option,
                         StringRef dir, StringRef fallback) {
  absl::StatusOr<rt::TargetRegistry> registry =
      dir.empty() ? rt::TargetRegistry::loadBuiltin()
                  : rt::TargetRegistry::loadDirectory(dir.str());
  if (!registry.ok())
    return module.emitError()
           << pass << ": " << std::string(registry.status().message());
  LoadedTarget loaded{*std::move(registry), {}};
  FailureOr<rt::ResolvedTarget> target =
      resolveTarget(module, pass, loaded.registry, option, fallback);
  if (failed(target))
    return failure();
  loaded.target = *target;
  return loaded;
}

//===----------------------------------------------------------------------===//
// neuron-set-target
//===----------------------------------------------------------------------===//

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONSETTARGET
#include "passes/Passes.h.inc"
} // namespace mlir::neuron

namespace {
struct NeuronSetTargetPass
    : public mlir::neuron::impl::NeuronSetTargetBase<NeuronSetTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<mlir::neuron::LoadedTarget> loaded = mlir::neuron::loadTarget(
        module, "neuron-set-target", target, targetDir, target);
    if (failed(loaded))
      return signalPassFailure();
    mlir::neuron::setModuleTarget(module, loaded->target);
  }
};
} // namespace
