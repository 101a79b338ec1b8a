//===- NisaToExecutable.cpp - nisa kernels to an executable ---------------===//
//
// Serialises a kernel: every HBM buffer it touches (arguments, constant
// globals, scratch allocations) becomes a program tensor bound to a kernel
// parameter; every instruction becomes a manifest entry whose tile
// references carry the element offset and strides of their memref views
// (HBM) or the partitions and byte offset `nisa-allocate` gave them (SBUF,
// PSUM); constants go in sections.
//
//===----------------------------------------------------------------------===//

#include "lowering/NisaToExecutable/NisaToExecutable.h"

#include "dialects/nisa/IR/NisaOps.h"
#include "runtime/format/Executable.h"
#include "runtime/target/Target.h"

#include "NeuronVersion.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <numeric>

#include <nlohmann/json.hpp>

using namespace mlir;
using namespace mlir::nisa;
namespace rt = ::neuron::rt;
using json = nlohmann::ordered_json;

/// The manifest name of an element type, or empty.
static std::string dtypeName(Type type) {
  if (type.isF32()) return "f32";
  if (type.isBF16()) return "bf16";
  if (type.isF16()) return "f16";
  if (isa<Float8E4M3FNType>(type)) return "f8E4M3FN";
  if (isa<Float8E5M2Type>(type)) return "f8E5M2";
  if (type.isInteger(1)) return "i1";
  if (type.isInteger(8)) return "i8";
  if (type.isInteger(32)) return "i32";
  if (type.isInteger(64)) return "i64";
  return "";
}

namespace {

/// Builds the manifest of one kernel, failing with a diagnostic.
class KernelEmitter {
public:
  explicit KernelEmitter(func::FuncOp kernel) : kernel(kernel) {}

  LogicalResult emit(json &manifest, SmallVector<rt::Section> &sections);

private:
  FailureOr<int64_t> parameterOf(Value root);
  FailureOr<json> tileRef(Operation *user, Value tile);
  FailureOr<json> instruction(Operation *op);
  LogicalResult constantSection(memref::GlobalOp global, int64_t id,
                                SmallVector<rt::Section> &sections);

  func::FuncOp kernel;
  /// HBM roots in parameter order, and their program tensors.
  SmallVector<Value> parameters;
  json tensors = json::array();
};

} // namespace

/// The buffer a view chain starts from.
static Value rootOf(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isa<memref::SubViewOp, memref::TransposeOp,
             memref::ReinterpretCastOp>(def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

FailureOr<int64_t> KernelEmitter::parameterOf(Value root) {
  auto it = llvm::find(parameters, root);
  if (it != parameters.end())
    return std::distance(parameters.begin(), it);
  auto type = cast<MemRefType>(root.getType());
  std::string dtype = dtypeName(type.getElementType());
  if (dtype.empty() || !type.hasStaticShape())
    return emitError(root.getLoc())
           << "nisa-to-executable: cannot store " << type
           << " in an executable (static shape, supported element type)";
  parameters.push_back(root);
  return parameters.size() - 1;
}

FailureOr<json> KernelEmitter::tileRef(Operation *user, Value tile) {
  auto type = cast<MemRefType>(tile.getType());
  std::optional<MemorySpace> space = getMemorySpace(type);
  std::string dtype = dtypeName(type.getElementType());
  if (!space || dtype.empty())
    return user->emitError() << "nisa-to-executable: unsupported tile " << type;
  json ref = {{"space", stringifyMemorySpace(*space).str()},
              {"dtype", dtype},
              {"shape", type.getShape()}};
  if (*space == MemorySpace::hbm) {
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(offset) ||
        llvm::any_of(strides, ShapedType::isDynamic))
      return user->emitError()
             << "nisa-to-executable: expected a static strided view, found "
             << type;
    FailureOr<int64_t> param = parameterOf(rootOf(tile));
    if (failed(param))
      return failure();
    ref["param"] = *param;
    ref["offset"] = offset;
    ref["strides"] = strides;
    return ref;
  }
  auto alloc = tile.getDefiningOp<memref::AllocOp>();
  auto address = alloc ? alloc->getAttrOfType<IntegerAttr>("nisa.address")
                       : IntegerAttr();
  if (!address)
    return user->emitError() << "nisa-to-executable: on-chip tile without an "
                                "address (run nisa-allocate first)";
  ref["partition"] = 0;
  ref["offset"] = address.getInt();
  return ref;
}

FailureOr<json> KernelEmitter::instruction(Operation *op) {
  auto engine = cast<EngineOpInterface>(op);
  json inst = {{"op", op->getName().stripDialect().str()},
               {"engine", mlir::neuron::stringifyEngineKind(engine.getEngine()).str()}};
  auto add = [&](StringRef field, Value tile) -> LogicalResult {
    FailureOr<json> ref = tileRef(op, tile);
    if (failed(ref))
      return failure();
    inst[field.str()] = *ref;
    return success();
  };
  LogicalResult result =
      llvm::TypeSwitch<Operation *, LogicalResult>(op)
          .Case([&](DmaCopyOp o) {
            inst["queue"] = o.getQueue();
            return success(succeeded(add("src", o.getSrc())) &&
                           succeeded(add("dst", o.getDst())));
          })
          .Case([&](MatmulOp o) {
            inst["accumulate"] = o.getAccumulate();
            return success(succeeded(add("stationary", o.getStationary())) &&
                           succeeded(add("moving", o.getMoving())) &&
                           succeeded(add("dst", o.getDst())));
          })
          .Case([&](TransposeOp o) {
            return success(succeeded(add("src", o.getSrc())) &&
                           succeeded(add("dst", o.getDst())));
          })
          .Case([&](ActivationOp o) {
            inst["function"] = stringifyActivationFunction(o.getFunction());
            inst["scale"] = o.getScale().convertToDouble();
            if (o.getBias() && failed(add("bias", o.getBias())))
              return failure();
            return success(succeeded(add("src", o.getSrc())) &&
                           succeeded(add("dst", o.getDst())));
          })
          .Case([&](TensorTensorOp o) {
            inst["alu"] = stringifyAluOp(o.getOp());
            return success(succeeded(add("lhs", o.getLhs())) &&
                           succeeded(add("rhs", o.getRhs())) &&
                           succeeded(add("dst", o.getDst())));
          })
          .Case([&](TensorScalarOp o) {
            inst["alu"] = stringifyAluOp(o.getOp());
            inst["scalar"] = o.getScalar().convertToDouble();
            return success(succeeded(add("src", o.getSrc())) &&
                           succeeded(add("dst", o.getDst())));
          })
          .Case([&](TensorReduceOp o) {
            inst["alu"] = stringifyAluOp(o.getOp());
            return success(succeeded(add("src", o.getSrc())) &&
                           succeeded(add("dst", o.getDst())));
          })
          .Case([&](MemsetOp o) {
            inst["value"] = o.getValue().convertToDouble();
            return add("dst", o.getDst());
          })
          .Case([&](IotaOp o) {
            inst["partition_step"] = o.getPartitionStep();
            return add("dst", o.getDst());
          })
          .Default([](Operation *) { return failure(); });
  if (failed(result))
    return failure();
  return inst;
}

LogicalResult KernelEmitter::constantSection(memref::GlobalOp global,
                                             int64_t id,
                                             SmallVector<rt::Section> &sections) {
  Attribute initial = global.getInitialValue().value_or(Attribute());
  rt::Section section;
  section.name = "const" + std::to_string(id);
  if (auto resource = dyn_cast_if_present<DenseResourceElementsAttr>(initial)) {
    // A blob (as frontends store real weights): its bytes as they are.
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return global.emitError() << "nisa-to-executable: constant @"
                                << global.getSymName()
                                << " refers to a resource with no data";
    ArrayRef<char> bytes = blob->getData();
    section.data.assign(bytes.begin(), bytes.end());
    tensors[id]["section"] = section.name;
    sections.push_back(std::move(section));
    return success();
  }
  auto value = dyn_cast_if_present<DenseElementsAttr>(initial);
  if (!value)
    return global.emitError() << "nisa-to-executable: constant @"
                              << global.getSymName()
                              << " has no data (only dense constants and "
                                 "resource blobs are stored)";
  Type element = value.getElementType();
  if (element.isInteger(1)) {
    for (bool v : value.getValues<bool>())
      section.data.push_back(v);
  } else {
    ArrayRef<char> raw = value.getRawData();
    int64_t bytes = (element.getIntOrFloatBitWidth() + 7) / 8;
    int64_t count = value.getNumElements();
    for (int64_t i = 0; i < count; ++i) {
      const char *src = raw.data() + (value.isSplat() ? 0 : i * bytes);
      section.data.insert(section.data.end(), src, src + bytes);
    }
  }
  tensors[id]["section"] = section.name;
  sections.push_back(std::move(section));
  return success();
}

LogicalResult KernelEmitter::emit(json &manifest,
                                  SmallVector<rt::Section> &sections) {
  auto limits = kernel->getAttrOfType<LimitsAttr>("nisa.limits");
  auto numInputs = kernel->getAttrOfType<IntegerAttr>("nisa.num_inputs");
  if (!limits || !numInputs)
    return kernel.emitError() << "nisa-to-executable: expected a kernel from "
                                 "convert-neuron-to-nisa (nisa.limits, "
                                 "nisa.num_inputs)";
  // The kernel's arguments come first, so parameter i is argument i.
  for (BlockArgument arg : kernel.getArguments())
    if (failed(parameterOf(arg)))
      return failure();
  json instructions = json::array();
  for (Operation &op : kernel.getBody().front()) {
    if (isa<memref::AllocOp, memref::SubViewOp, memref::TransposeOp,
            memref::ReinterpretCastOp, memref::GetGlobalOp, func::ReturnOp>(
            op))
      continue;
    if (!isa<EngineOpInterface>(op))
      return op.emitError() << "nisa-to-executable: '" << op.getName()
                            << "' is not an instruction";
    FailureOr<json> inst = instruction(&op);
    if (failed(inst))
      return failure();
    instructions.push_back(*inst);
  }
  // Program tensors, one per parameter.
  int64_t inputs = numInputs.getInt();
  json programInputs = json::array(), programOutputs = json::array();
  for (auto [id, root] : llvm::enumerate(parameters)) {
    auto type = cast<MemRefType>(root.getType());
    std::string kind = "scratch", name = "t" + std::to_string(id);
    if (auto arg = dyn_cast<BlockArgument>(root)) {
      bool input = arg.getArgNumber() < inputs;
      kind = input ? "input" : "output";
      name = (input ? "input" : "result") +
             std::to_string(input ? arg.getArgNumber()
                                  : arg.getArgNumber() - inputs);
      (input ? programInputs : programOutputs)
          .push_back({{"tensor", id}, {"name", name}});
    } else if (root.getDefiningOp<memref::GetGlobalOp>()) {
      kind = "constant";
    }
    tensors.push_back({{"id", id},
                       {"dtype", dtypeName(type.getElementType())},
                       {"shape", type.getShape()},
                       {"kind", kind},
                       {"name", name}});
    if (auto get = root.getDefiningOp<memref::GetGlobalOp>()) {
      auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
          get, get.getNameAttr());
      if (!global || failed(constantSection(global, id, sections)))
        return failure();
    }
  }
  SmallVector<int64_t> bindings(parameters.size());
  std::iota(bindings.begin(), bindings.end(), 0);
  manifest["tensors"] = tensors;
  manifest["inputs"] = programInputs;
  manifest["outputs"] = programOutputs;
  manifest["kernels"] = json::array(
      {{{"name", kernel.getName().str()},
        {"parameters", parameters.size()},
        {"limits",
         {{"partitions", limits.getPartitions()},
          {"sbuf_bytes", limits.getSbufBytes()},
          {"psum_bytes", limits.getPsumBytes()},
          {"psum_bank_bytes", limits.getPsumBankBytes()},
          {"stationary_free", limits.getStationaryFree()},
          {"moving_free", limits.getMovingFree()}}},
        {"instructions", instructions}}});
  manifest["program"] = json::array(
      {{{"kernel", kernel.getName().str()}, {"bindings", bindings}}});
  return success();
}

/// The target as the manifest records it: the spec resolved to its chip,
/// generation, instance and logical-core mode with the mode's definition
/// (just the spec if it does not resolve).
static json targetRecord(const std::string &spec) {
  json record = {{"spec", spec}};
  absl::StatusOr<rt::TargetRegistry> registry =
      rt::TargetRegistry::loadBuiltin();
  if (!registry.ok())
    return record;
  absl::StatusOr<rt::ResolvedTarget> target = registry->resolve(spec);
  if (!target.ok())
    return record;
  record["spec"] = target->spec();
  record["chip"] = target->chip->name;
  record["generation"] = target->chip->generation;
  record["instance"] = target->instance ? target->instance->name : "";
  record["lnc"] = target->lnc.lnc;
  record["lnc_definition"] = target->lnc.definition;
  return record;
}

LogicalResult
mlir::neuron::translateNisaToExecutable(ModuleOp module, llvm::raw_ostream &os,
                                        StringRef entry,
                                        const ExecutableInfo &info) {
  SmallVector<func::FuncOp> kernels;
  for (func::FuncOp f : module.getOps<func::FuncOp>())
    if (f->hasAttr("nisa.limits") && (entry.empty() || f.getName() == entry))
      kernels.push_back(f);
  if (kernels.size() != 1)
    return module.emitError()
           << "nisa-to-executable: expected one kernel"
           << (entry.empty() ? "" : (" named '" + entry + "'").str())
           << ", found " << kernels.size();
  json manifest = {{"schema", "neuron-executable/1"},
                   {"compiler",
                    {{"name", "neuron-mlir"},
                     {"version", NEURON_VERSION},
                     {"git", NEURON_GIT_REVISION},
                     {"mlir", NEURON_MLIR_VERSION}}},
                   {"target", targetRecord(info.targetSpec)},
                   {"input_hash", info.inputHash},
                   {"options", {{"text", info.options},
                                {"pipeline", info.pipeline}}}};
  if (!info.coverageTotals.empty()) {
    json totals = json::parse(info.coverageTotals, nullptr, false);
    if (!totals.is_discarded())
      manifest["coverage"] = totals;
  }
  SmallVector<rt::Section> sections;
  if (failed(KernelEmitter(kernels.front()).emit(manifest, sections)))
    return failure();
  rt::ExecutableWriter writer(manifest);
  for (rt::Section &section : sections)
    writer.addSection(std::move(section));
  absl::StatusOr<std::vector<uint8_t>> bytes = writer.serialize();
  if (!bytes.ok())
    return module.emitError() << "nisa-to-executable: "
                              << std::string(bytes.status().message());
  os.write(reinterpret_cast<const char *>(bytes->data()), bytes->size());
  return success();
}

void mlir::neuron::registerNisaToExecutableTranslation() {
  static llvm::cl::opt<std::string> entry(
      "entry", llvm::cl::desc("The kernel to make the program of"),
      llvm::cl::init(""));
  static llvm::cl::opt<std::string> target(
      "executable-target",
      llvm::cl::desc("Target spec recorded in the manifest"),
      llvm::cl::init("trn2"));
  TranslateFromMLIRRegistration registration(
      "nisa-to-executable", "Write an allocated nisa kernel as an executable",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError() << "nisa-to-executable: expected a module";
        ExecutableInfo info;
        info.targetSpec = target;
        return translateNisaToExecutable(module, os, entry, info);
      },
      [](DialectRegistry &registry) {
        registry.insert<NisaDialect, mlir::neuron::NeuronDialect, func::FuncDialect,
                        memref::MemRefDialect>();
      });
}
