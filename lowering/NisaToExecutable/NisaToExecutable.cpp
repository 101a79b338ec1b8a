//===- NisaToExecutable.cpp - nisa kernels to an executable ---------------===//
//
// Serialises a program and its kernels. Every HBM buffer a kernel touches
// (arguments, constant globals, scratch allocations) is one of its
// parameters; a program step binds them to program tensors: the launch's
// operands and results, then the kernel's own constants and scratch, which
// all launches of the kernel share. Every instruction becomes a manifest
// entry whose tile references carry the element offset and strides of
// their memref views (HBM) or the partitions and byte offset
// `nisa-allocate` gave them (SBUF, PSUM); constants go in sections. A host
// call carries its region's MLIR text and the name of its entry point in
// the shared library of the `host_code` section (lowering/HostCode).
//
//===----------------------------------------------------------------------===//

#include "lowering/NisaToExecutable/NisaToExecutable.h"
#include "passes/KernelGraph.h"
#include "passes/TargetLoading.h"

#include "dialects/neuron/IR/NeuronOps.h"
#include "dialects/nisa/IR/NisaOps.h"
#include "lowering/HostCode/HostCode.h"
#include "runtime/format/Executable.h"
#include "runtime/target/Target.h"

#include "NeuronVersion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <numeric>

#include <nlohmann/json.hpp>

using namespace mlir;
using namespace mlir::nisa;
namespace rt = ::neuron::rt;
using json = nlohmann::json;

/// The section holding the host calls' shared library.
static constexpr const char *kHostCodeSection = "host_code";

/// `v` as a manifest number: JSON holds no NaN or infinity, which are the
/// strings "nan", "inf" and "-inf".
static json number(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  return v;
}

/// The manifest name of an element type, or empty.
static std::string dtypeName(Type type) {
  return mlir::neuron::dtypeNameOf(type).str();
}

namespace {

/// Builds the manifest entry of one kernel, failing with a diagnostic.
class KernelEmitter {
public:
  explicit KernelEmitter(func::FuncOp kernel) : kernel(kernel) {}

  FailureOr<json> emit();
  /// The HBM buffers in parameter order: the arguments, then the kernel's
  /// constant globals and scratch allocations.
  ArrayRef<Value> parameters() const { return roots; }

private:
  FailureOr<int64_t> parameterOf(Value root);
  FailureOr<json> tileRef(size_t i, Value tile);
  FailureOr<json> instruction(size_t i);
  LogicalResult addRestart(size_t i, MatmulOp op, json &inst);
  void addSchedule(size_t i, json &inst);
  /// `coeffs` as one entry per loop of instruction `i` (outermost first).
  json perLoop(size_t i, ArrayRef<int64_t> coeffs) const;

  func::FuncOp kernel;
  std::optional<mlir::neuron::KernelGraph> graph;
  /// Physical cores its instructions run on (`nisa.cores`).
  int64_t cores = 1;
  SmallVector<Value> roots;
};

/// A kernel as the program binds it.
struct EmittedKernel {
  std::string name;
  int64_t arguments = 0;
  /// Program tensors of its own constants and scratch, shared by launches.
  SmallVector<int64_t> internal;
};

/// Builds the manifest's tensors, kernels and program.
class ProgramEmitter {
public:
  /// A program function (`neuron.program`) of launches and host calls.
  LogicalResult emitProgram(func::FuncOp program);
  /// A lone kernel as the whole program.
  LogicalResult emitKernelProgram(func::FuncOp kernel);
  /// Compiles the host calls' regions into the `host_code` section.
  LogicalResult emitHostCode(json &manifest);
  void finish(json &manifest, SmallVector<rt::Section> &sections);

private:
  FailureOr<int64_t> addTensor(Location loc, Type type, StringRef kind,
                               std::string name = "");
  LogicalResult addConstantData(int64_t id, Attribute value, Operation *owner);
  /// The step of host call `h`: its tensors, MLIR text and entry point.
  LogicalResult
  emitHostCall(mlir::neuron::HostCallOp h, const std::string &name,
               json inputs,
               function_ref<FailureOr<json>(ValueRange)> newTensors);
  FailureOr<const EmittedKernel *> kernel(func::FuncOp f);
  void bindIo(int64_t id, bool input, int64_t index);

  /// Appends launch `step` of `l` (kernel `f`); when it awaits
  /// collectives, after them the dones placed right before it.
  LogicalResult emitLaunch(mlir::neuron::LaunchOp l, func::FuncOp f,
                           json step);
  LogicalResult emitCollectiveStart(Operation *op, Value result,
                                    function_ref<int64_t(Value)> idOf,
                                    function_ref<FailureOr<int64_t>(Value)>
                                        outputOf);

  /// The host calls, in program order, and their entry points.
  SmallVector<mlir::neuron::HostCallOp> hostCalls;
  SmallVector<std::string> hostSymbols;
  json tensors = json::array(), kernels = json::array(),
       steps = json::array(), inputs = json::array(),
       outputs = json::array();
  /// The grid of the program's collectives (all share one), if any.
  std::optional<SmallVector<int64_t>> grid;
  /// Collective steps started and not yet done, by the op that started.
  DenseMap<Operation *, int64_t> started;
  int64_t collectives = 0;
  SmallVector<rt::Section> sections;
  llvm::StringMap<EmittedKernel> emitted;
};

} // namespace

FailureOr<int64_t> KernelEmitter::parameterOf(Value root) {
  auto it = llvm::find(roots, root);
  if (it != roots.end())
    return std::distance(roots.begin(), it);
  auto type = cast<MemRefType>(root.getType());
  std::string dtype = dtypeName(type.getElementType());
  if (dtype.empty() || !type.hasStaticShape())
    return emitError(root.getLoc())
           << "nisa-to-executable: cannot store " << type
           << " in an executable (static shape, supported element type)";
  roots.push_back(root);
  return roots.size() - 1;
}

json KernelEmitter::perLoop(size_t i, ArrayRef<int64_t> coeffs) const {
  json out = json::array();
  for (size_t l = 0; l < graph->nestOf(i).size(); ++l)
    out.push_back(l < coeffs.size() ? coeffs[l] : 0);
  return out;
}

FailureOr<json> KernelEmitter::tileRef(size_t i, Value tile) {
  Operation *user = graph->instruction(i);
  auto type = cast<MemRefType>(tile.getType());
  std::optional<MemorySpace> space = getMemorySpace(type);
  std::string dtype = dtypeName(type.getElementType());
  if (!space || dtype.empty())
    return user->emitError() << "nisa-to-executable: unsupported tile " << type;
  FailureOr<mlir::neuron::TileAccess> access =
      graph->tileAccess(i, tile, /*write=*/false);
  if (failed(access))
    return failure();
  json ref = {{"space", stringifyMemorySpace(*space).str()},
              {"dtype", dtype},
              {"shape", type.getShape()}};
  if (access->offset.moves())
    ref["iv"] = perLoop(i, access->offset.coeffs);
  if (*space == MemorySpace::hbm) {
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(mlir::neuron::stridesAndOffset(type, strides, offset)))
      return user->emitError()
             << "nisa-to-executable: expected a strided view, found " << type;
    FailureOr<int64_t> param = parameterOf(access->root);
    if (failed(param))
      return failure();
    ref["param"] = *param;
    ref["offset"] = access->offset.constant;
    ref["strides"] = strides;
    return ref;
  }
  if (access->address < 0)
    return user->emitError() << "nisa-to-executable: on-chip tile without an "
                                "address (run nisa-allocate first)";
  ref["partition"] = access->partitionLo;
  ref["offset"] = access->address + access->offset.constant;
  if (!access->freeStrides.empty())
    ref["strides"] = ArrayRef<int64_t>(access->freeStrides);
  if (access->slots > 1)
    ref["slots"] = {{"count", access->slots},
                    {"bytes", access->slotBytes},
                    {"depth", access->allocDepth}};
  return ref;
}

/// Loop levels whose induction variables are all 0 exactly where every one
/// of `restart` (affine in them) is: nullopt when one is never 0.
static FailureOr<std::optional<SmallVector<int64_t>>>
restartLevels(ArrayRef<mlir::neuron::AffineIndex> restart) {
  SmallVector<int64_t> levels;
  for (const mlir::neuron::AffineIndex &f : restart) {
    if (f.constant < 0 ||
        llvm::any_of(f.coeffs, [](int64_t c) { return c < 0; }))
      return failure();
    if (f.constant > 0)
      return std::optional<SmallVector<int64_t>>(); // never 0
    for (auto [level, c] : llvm::enumerate(f.coeffs))
      if (c > 0 && !llvm::is_contained(levels, int64_t(level)))
        levels.push_back(level);
  }
  llvm::sort(levels);
  return std::optional<SmallVector<int64_t>>(levels);
}

LogicalResult KernelEmitter::addRestart(size_t i, MatmulOp op, json &inst) {
  SmallVector<mlir::neuron::AffineIndex> restart;
  for (Value v : op.getRestart()) {
    FailureOr<mlir::neuron::AffineIndex> f = graph->indexOf(i, v);
    if (failed(f))
      return op.emitError() << "nisa-to-executable: expected restart values "
                               "affine in the enclosing loops";
    restart.push_back(*f);
  }
  if (restart.empty())
    return success();
  FailureOr<std::optional<SmallVector<int64_t>>> levels =
      restartLevels(restart);
  if (failed(levels))
    return op.emitError() << "nisa-to-executable: expected restart values "
                             "that are sums of loop induction variables with "
                             "non-negative coefficients and constants";
  if (*levels && !(*levels)->empty())
    inst["restart"] = ArrayRef<int64_t>(**levels);
  else if (*levels)
    inst["accumulate"] = false; // always its first iteration
  return success();
}

FailureOr<json> KernelEmitter::instruction(size_t i) {
  Operation *op = graph->instruction(i);
  auto engine = cast<EngineOpInterface>(op);
  json inst = {{"op", op->getName().stripDialect().str()},
               {"engine", mlir::neuron::stringifyEngineKind(engine.getEngine()).str()}};
  if (int64_t core = mlir::neuron::coreOf(op)) {
    if (core >= cores)
      return op->emitError() << "nisa-to-executable: physical core " << core
                             << " of a kernel of " << cores
                             << " (nisa.cores)";
    inst["core"] = core;
  }
  auto add = [&](StringRef field, Value tile) -> LogicalResult {
    FailureOr<json> ref = tileRef(i, tile);
    if (failed(ref))
      return failure();
    inst[field.str()] = *ref;
    return success();
  };
  // tensor_scalar's and scalar_tensor_tensor's immediate, or their
  // per-partition tile.
  auto addScalar = [&](std::optional<APFloat> scalar,
                       Value scalars) -> LogicalResult {
    if (!scalar)
      return add("scalars", scalars);
    inst["scalar"] = number(scalar->convertToDouble());
    return success();
  };
  LogicalResult result =
      llvm::TypeSwitch<Operation *, LogicalResult>(op)
          .Case([&](DmaCopyOp o) {
            inst["queue"] = o.getQueue();
            if (Value moved = o.getMovedSide()) {
              SmallVector<int64_t> strides;
              int64_t offset;
              if (failed(mlir::neuron::stridesAndOffset(
                      cast<MemRefType>(moved.getType()), strides, offset)) ||
                  failed(add("offset", o.getOffset())))
                return failure();
              inst["offset_moves"] = moved == o.getSrc() ? "src" : "dst";
              inst["offset_stride"] = strides[*o.getMovedDim()];
              inst["offset_limit"] = *o.getLimit();
            }
            return success(succeeded(add("src", o.getSrc())) &&
                           succeeded(add("dst", o.getDst())));
          })
          .Case([&](MatmulOp o) {
            inst["accumulate"] = o.getAccumulate();
            if (o.getDoubleRow())
              inst["double_row"] = true;
            if (failed(addRestart(i, o, inst)))
              return failure();
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
            inst["scale"] = number(o.getScale().convertToDouble());
            if (o.getBias() && failed(add("bias", o.getBias())))
              return failure();
            if (o.getScales() && failed(add("scales", o.getScales())))
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
            return success(succeeded(addScalar(o.getScalar(),
                                               o.getScalars())) &&
                           succeeded(add("src", o.getSrc())) &&
                           succeeded(add("dst", o.getDst())));
          })
          .Case([&](ScalarTensorTensorOp o) {
            inst["alu"] = stringifyAluOp(o.getOp());
            inst["alu1"] = stringifyAluOp(o.getOp1());
            return success(succeeded(addScalar(o.getScalar(),
                                               o.getScalars())) &&
                           succeeded(add("src", o.getSrc())) &&
                           succeeded(add("rhs", o.getRhs())) &&
                           succeeded(add("dst", o.getDst())));
          })
          .Case([&](TensorReduceOp o) {
            inst["alu"] = stringifyAluOp(o.getOp());
            return success(succeeded(add("src", o.getSrc())) &&
                           succeeded(add("dst", o.getDst())));
          })
          .Case([&](MemsetOp o) {
            inst["value"] = number(o.getValue().convertToDouble());
            return add("dst", o.getDst());
          })
          .Case([&](IotaOp o) {
            inst["partition_step"] = o.getPartitionStep();
            return add("dst", o.getDst());
          })
          .Case([&](GatherOp o) {
            return success(succeeded(add("table", o.getTable())) &&
                           succeeded(add("indices", o.getIndices())) &&
                           succeeded(add("dst", o.getDst())));
          })
          .Case([&](SelectOp o) {
            return success(succeeded(add("predicate", o.getPredicate())) &&
                           succeeded(add("on_true", o.getOnTrue())) &&
                           succeeded(add("on_false", o.getOnFalse())) &&
                           succeeded(add("dst", o.getDst())));
          })
          .Default([](Operation *) { return failure(); });
  if (failed(result))
    return failure();
  if (!graph->nestOf(i).empty())
    inst["loop"] = graph->nestOf(i).back();
  addSchedule(i, inst);
  return inst;
}

/// The instruction's predicted times and semaphores (nisa-schedule,
/// nisa-insert-sync), when it has them.
void KernelEmitter::addSchedule(size_t i, json &inst) {
  Operation *op = graph->instruction(i);
  if (auto time = op->getAttrOfType<DenseF64ArrayAttr>(NisaDialect::kTimeNs))
    inst["start_ns"] = time[0], inst["end_ns"] = time[1];
  if (op->hasAttr(NisaDialect::kSignal))
    inst["signal"] = true;
  if (auto waits = op->getAttrOfType<ArrayAttr>(NisaDialect::kWait)) {
    json list = json::array();
    for (auto w : waits.getAsRange<WaitAttr>()) {
      json entry = {{"unit", w.getUnit().str()}, {"count", w.getCount()}};
      if (!w.getPerIteration().empty())
        entry["iv"] = perLoop(i, w.getPerIteration());
      if (!w.getFewerFirst().empty())
        entry["fewer_first"] = w.getFewerFirst();
      list.push_back(std::move(entry));
    }
    inst["wait"] = std::move(list);
  }
}

/// The kernel's `schedule` record from `nisa.schedule`, or null.
static json kernelSchedule(func::FuncOp kernel) {
  auto s = kernel->getAttrOfType<ScheduleAttr>(NisaDialect::kSchedule);
  if (!s)
    return nullptr;
  double predicted = s.getPredictedNs().getValueAsDouble();
  double bound = s.getBoundNs().getValueAsDouble();
  SmallVector<double> busy = llvm::map_to_vector(s.getBusyNs(), [](Attribute t) {
    return cast<FloatAttr>(t).getValueAsDouble();
  });
  return {{"predicted_ns", predicted},
          {"bound_ns", bound},
          {"predicted_over_bound", bound > 0 ? predicted / bound : 1.0},
          {"critical_path_ns", s.getCriticalPathNs().getValueAsDouble()},
          {"serial_ns", s.getSerialNs().getValueAsDouble()},
          {"busy_ns",
           {{"tensor", busy[0]},
            {"vector", busy[1]},
            {"scalar", busy[2]},
            {"gpsimd", busy[3]},
            {"dma", busy[4]}}},
          {"dma_engines", s.getDmaEngines()},
          {"critical_path", s.getCriticalPath().asArrayRef()}};
}

LogicalResult ProgramEmitter::addConstantData(int64_t id, Attribute initial,
                                              Operation *owner) {
  rt::Section section;
  section.name = "const" + std::to_string(id);
  if (auto resource = dyn_cast_if_present<DenseResourceElementsAttr>(initial)) {
    // A blob (as frontends store real weights): its bytes as they are.
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return owner->emitError()
             << "nisa-to-executable: constant " << resource.getType()
             << " refers to resource '" << resource.getRawHandle().getKey()
             << "', which has no data (the exporter elided the weights; "
                "export them, or pass them as function arguments)";
    ArrayRef<char> bytes = blob->getData();
    section.data.assign(bytes.begin(), bytes.end());
  } else if (auto value = dyn_cast_if_present<DenseElementsAttr>(initial)) {
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
  } else {
    return owner->emitError() << "nisa-to-executable: constant has no data "
                                 "(only dense constants and resource blobs "
                                 "are stored)";
  }
  tensors[id]["section"] = section.name;
  sections.push_back(std::move(section));
  return success();
}

FailureOr<json> KernelEmitter::emit() {
  auto limits = kernel->getAttrOfType<LimitsAttr>("nisa.limits");
  if (!limits || !kernel->hasAttr("nisa.num_inputs"))
    return kernel.emitError() << "nisa-to-executable: expected a kernel from "
                                 "convert-neuron-to-nisa (nisa.limits, "
                                 "nisa.num_inputs)";
  // The kernel's arguments come first, so parameter i is argument i.
  for (BlockArgument arg : kernel.getArguments())
    if (failed(parameterOf(arg)))
      return failure();
  FailureOr<mlir::neuron::KernelGraph> built =
      mlir::neuron::KernelGraph::build(kernel);
  if (failed(built))
    return failure();
  graph.emplace(std::move(*built));
  if (auto attr = kernel->getAttrOfType<IntegerAttr>(NisaDialect::kCores))
    cores = attr.getInt();
  json loops = json::array();
  for (const mlir::neuron::LoopInfo &loop : graph->getLoops()) {
    json entry = {{"trips", loop.trips}};
    if (loop.parent >= 0)
      entry["parent"] = loop.parent;
    loops.push_back(std::move(entry));
  }
  json instructions = json::array();
  for (size_t i = 0; i < graph->size(); ++i) {
    FailureOr<json> inst = instruction(i);
    if (failed(inst))
      return failure();
    instructions.push_back(*inst);
  }
  json out = {{"name", kernel.getName().str()},
              {"parameters", roots.size()},
              {"limits",
               {{"partitions", limits.getPartitions()},
                {"sbuf_bytes", limits.getSbufBytes()},
                {"psum_bytes", limits.getPsumBytes()},
                {"psum_bank_bytes", limits.getPsumBankBytes()},
                {"stationary_free", limits.getStationaryFree()},
                {"moving_free", limits.getMovingFree()},
                {"fp8_rows", limits.getFp8Rows()}}},
              {"instructions", instructions}};
  if (!loops.empty())
    out["loops"] = std::move(loops);
  if (cores > 1)
    out["cores"] = cores;
  if (json schedule = kernelSchedule(kernel); !schedule.is_null())
    out["schedule"] = std::move(schedule);
  return out;
}

FailureOr<int64_t> ProgramEmitter::addTensor(Location loc, Type valueType,
                                             StringRef kind,
                                             std::string name) {
  auto type = dyn_cast<ShapedType>(valueType);
  std::string dtype = type ? dtypeName(type.getElementType()) : "";
  if (dtype.empty() || !type.hasStaticShape())
    return emitError(loc) << "nisa-to-executable: cannot store " << valueType
                          << " in an executable (a tensor of static shape and "
                             "supported element type)";
  int64_t id = tensors.size();
  tensors.push_back({{"id", id},
                     {"dtype", dtype},
                     {"shape", type.getShape()},
                     {"kind", kind.str()},
                     {"name", name.empty() ? "t" + std::to_string(id) : name}});
  return id;
}

void ProgramEmitter::bindIo(int64_t id, bool input, int64_t index) {
  std::string name =
      (input ? "input" : "result") + std::to_string(index);
  // A result that is also an input or a constant keeps its kind and name.
  json &tensor = tensors[id];
  if (input || tensor["kind"] == "scratch") {
    tensor["kind"] = input ? "input" : "output";
    tensor["name"] = name;
  }
  (input ? inputs : outputs).push_back({{"tensor", id}, {"name", name}});
}

FailureOr<const EmittedKernel *> ProgramEmitter::kernel(func::FuncOp f) {
  auto it = emitted.find(f.getName());
  if (it != emitted.end())
    return &it->second;
  KernelEmitter emitter(f);
  FailureOr<json> entry = emitter.emit();
  if (failed(entry))
    return failure();
  EmittedKernel result;
  result.name = f.getName().str();
  result.arguments = f.getNumArguments();
  for (Value root : emitter.parameters().drop_front(result.arguments)) {
    auto get = root.getDefiningOp<memref::GetGlobalOp>();
    FailureOr<int64_t> id = addTensor(root.getLoc(),
                                      root.getType(),
                                      get ? "constant" : "scratch");
    if (failed(id))
      return failure();
    if (get) {
      auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
          get, get.getNameAttr());
      if (!global ||
          failed(addConstantData(
              *id, global.getInitialValue().value_or(Attribute()), global)))
        return failure();
    }
    result.internal.push_back(*id);
  }
  kernels.push_back(std::move(*entry));
  return &emitted.try_emplace(result.name, std::move(result)).first->second;
}

LogicalResult ProgramEmitter::emitKernelProgram(func::FuncOp f) {
  int64_t numInputs = 0;
  if (auto attr = f->getAttrOfType<IntegerAttr>("nisa.num_inputs"))
    numInputs = attr.getInt();
  json bindings = json::array();
  for (BlockArgument arg : f.getArguments()) {
    bool input = arg.getArgNumber() < numInputs;
    FailureOr<int64_t> id = addTensor(arg.getLoc(),
                                      arg.getType(),
                                      input ? "input" : "scratch");
    if (failed(id))
      return failure();
    bindIo(*id, input, input ? arg.getArgNumber()
                             : arg.getArgNumber() - numInputs);
    bindings.push_back(*id);
  }
  FailureOr<const EmittedKernel *> k = kernel(f);
  if (failed(k))
    return failure();
  for (int64_t id : (*k)->internal)
    bindings.push_back(id);
  steps.push_back({{"kernel", (*k)->name}, {"bindings", bindings}});
  return success();
}

LogicalResult ProgramEmitter::emitHostCall(
    mlir::neuron::HostCallOp h, const std::string &name, json inputs,
    function_ref<FailureOr<json>(ValueRange)> newTensors) {
  FailureOr<json> results = newTensors(h.getResults());
  if (failed(results))
    return failure();
  std::string text;
  llvm::raw_string_ostream os(text);
  h->print(os, OpPrintingFlags().useLocalScope());
  std::string symbol = "neuron_" + name;
  json step = {{"host_call", name},
               {"inputs", std::move(inputs)},
               {"outputs", *results},
               {"ops", text},
               {"symbol", symbol}};
  // The manifest's reason is optional, and never empty.
  std::optional<StringRef> reason = h.getReason();
  if (reason && !reason->empty())
    step["reason"] = reason->str();
  steps.push_back(std::move(step));
  hostCalls.push_back(h);
  hostSymbols.push_back(symbol);
  return success();
}

LogicalResult ProgramEmitter::emitHostCode(json &manifest) {
  if (hostCalls.empty())
    return success();
  FailureOr<mlir::neuron::HostCode> code =
      mlir::neuron::compileHostCode(hostCalls, hostSymbols);
  if (failed(code))
    return failure();
  rt::Section section;
  section.name = kHostCodeSection;
  section.alignment = 64;
  section.data.assign(code->library.begin(), code->library.end());
  manifest["host_code"] = {{"section", kHostCodeSection},
                           {"triple", code->triple},
                           {"format", "elf-shared-object"}};
  sections.push_back(std::move(section));
  return success();
}

/// `neuron.sharding` as the manifest records it: grid axes per dimension.
static json shardingRecord(ArrayAttr sharding) {
  json dims = json::array();
  for (Attribute d : sharding)
    if (auto axes = dyn_cast<DenseI64ArrayAttr>(d))
      dims.push_back(axes.asArrayRef());
  return dims;
}

LogicalResult ProgramEmitter::emitCollectiveStart(
    Operation *op, Value result, function_ref<int64_t(Value)> idOf,
    function_ref<FailureOr<int64_t>(Value)> outputOf) {
  std::optional<mlir::neuron::CollectiveInfo> c =
      mlir::neuron::getCollectiveInfo(op);
  if (grid && !llvm::equal(*grid, c->grid))
    return op->emitError() << "nisa-to-executable: this collective's grid ["
                           << c->grid << "] differs from the program's ["
                           << *grid << "]; a program runs on one grid";
  grid = llvm::to_vector(c->grid);
  FailureOr<int64_t> output = outputOf(result);
  if (failed(output))
    return failure();
  int64_t id = collectives++;
  started[op] = id;
  json step = {{"collective_start", id},
               {"kind", mlir::neuron::stringifyCollectiveKind(c->kind).str()},
               {"input", idOf(c->input)},
               {"output", *output},
               {"grid", c->grid},
               {"axes", c->axes}};
  if (c->reduction)
    step["reduction"] =
        mlir::neuron::stringifyCollectiveReduction(*c->reduction).str();
  if (c->axis)
    step["axis"] = *c->axis;
  if (c->split)
    step["split_axis"] = *c->split;
  if (c->concat)
    step["concat_axis"] = *c->concat;
  if (auto algorithm = op->getAttrOfType<StringAttr>("algorithm"))
    step["algorithm"] = algorithm.str();
  if (auto chunks = op->getAttrOfType<IntegerAttr>("chunks"))
    step["chunks"] = chunks.getInt();
  if (auto predicted = op->getAttrOfType<FloatAttr>("predicted_ns"))
    step["predicted_ns"] = predicted.getValueAsDouble();
  steps.push_back(std::move(step));
  return success();
}

LogicalResult ProgramEmitter::emitLaunch(mlir::neuron::LaunchOp l,
                                         func::FuncOp f, json step) {
  // The collectives it awaits, by id, among the inputs its kernel reads.
  SmallVector<int64_t> awaited;
  for (int64_t input : l.getAwaits().value_or(ArrayRef<int64_t>()))
    if (!f.getArgument(input).use_empty())
      for (mlir::neuron::CollectiveDoneOp done :
           mlir::neuron::collectiveDonesOf(l.getInputs()[input]))
        awaited.push_back(started.lookup(done.getHandle().getDefiningOp()));
  // Two inputs may view one collective's result.
  llvm::sort(awaited);
  awaited.erase(llvm::unique(awaited), awaited.end());
  if (awaited.empty()) {
    steps.push_back(std::move(step));
    return success();
  }
  // Their dones are among the collective_done steps ending the program so
  // far; they move after the launch.
  size_t tail = steps.size();
  while (tail > 0 && steps[tail - 1].contains("collective_done"))
    --tail;
  json kept = json::array(), after = json::array();
  for (size_t i = tail; i < steps.size(); ++i)
    (llvm::is_contained(awaited, steps[i]["collective_done"].get<int64_t>())
         ? after
         : kept)
        .push_back(steps[i]);
  if (after.size() != awaited.size())
    return l.emitError() << "nisa-to-executable: this launch awaits "
                            "collectives whose dones are not right before "
                            "it (only other collectives' dones may come "
                            "between)";
  steps.erase(steps.begin() + tail, steps.end());
  for (json &done : kept)
    steps.push_back(std::move(done));
  step["awaits"] = awaited;
  steps.push_back(std::move(step));
  for (json &done : after)
    steps.push_back(std::move(done));
  return success();
}

LogicalResult ProgramEmitter::emitProgram(func::FuncOp program) {
  DenseMap<Value, int64_t> ids;
  auto newTensors = [&](ValueRange values) -> FailureOr<json> {
    json list = json::array();
    for (Value v : values) {
      FailureOr<int64_t> id =
          addTensor(v.getLoc(), v.getType(), "scratch");
      if (failed(id))
        return failure();
      ids[v] = *id;
      list.push_back(*id);
    }
    return list;
  };
  auto idsOf = [&](ValueRange values) {
    json list = json::array();
    for (Value v : values)
      list.push_back(ids.lookup(v));
    return list;
  };
  // A view of `type` at element `offset` of tensor `parent`'s root.
  auto addView = [&](Location loc, ShapedType type, int64_t parent,
                     int64_t offset) -> FailureOr<int64_t> {
    if (tensors[parent].contains("view")) {
      offset += tensors[parent]["view"]["offset"].get<int64_t>();
      parent = tensors[parent]["view"]["tensor"].get<int64_t>();
    }
    FailureOr<int64_t> id = addTensor(loc, type, "view");
    if (succeeded(id))
      tensors[*id]["view"] = {{"tensor", parent}, {"offset", offset}};
    return id;
  };
  // The tensor of `v` with its own shape: a reshaped value shares its
  // input's tensor, and a host call, a collective or a program result,
  // unlike a kernel, reads the shape, so it gets a view of the reshaped
  // shape.
  auto shapedIdOf = [&](Value v) -> FailureOr<int64_t> {
    auto type = cast<ShapedType>(v.getType());
    int64_t id = ids.lookup(v);
    if (tensors[id]["shape"] == json(type.getShape()))
      return id;
    return addView(v.getLoc(), type, id, 0);
  };
  auto shapedIdsOf = [&](ValueRange values) -> FailureOr<json> {
    json list = json::array();
    for (Value v : values) {
      FailureOr<int64_t> id = shapedIdOf(v);
      if (failed(id))
        return failure();
      list.push_back(*id);
    }
    return list;
  };
  // For collectives. A view fails only for a dtype the executable cannot
  // hold, which the tensor it views was added with: it does not happen.
  auto collectiveIdOf = [&](Value v) {
    FailureOr<int64_t> id = shapedIdOf(v);
    return succeeded(id) ? *id : ids.lookup(v);
  };
  // A collective's result: a tensor of its own or, when a join kept in the
  // program (neuron-outline-kernels) reads it, a view of the join's tensor
  // at the piece's elements, so the join copies nothing.
  auto collectiveOutputOf = [&](Value result) -> FailureOr<int64_t> {
    auto join = result.hasOneUse()
                    ? dyn_cast<mlir::neuron::ConcatOp>(*result.user_begin())
                    : mlir::neuron::ConcatOp();
    if (!join || !mlir::neuron::joinsCollectiveResults(join)) {
      FailureOr<json> fresh = newTensors(result);
      return failed(fresh) ? FailureOr<int64_t>(failure())
                           : FailureOr<int64_t>((*fresh)[0].get<int64_t>());
    }
    if (!ids.count(join.getResult()) &&
        failed(newTensors(join->getResults())))
      return failure();
    int64_t offset = 0;
    for (Value piece : join.getInputs()) {
      if (piece == result)
        break;
      offset += cast<ShapedType>(piece.getType()).getNumElements();
    }
    FailureOr<int64_t> id = addView(result.getLoc(),
                                    cast<ShapedType>(result.getType()),
                                    ids.lookup(join.getResult()), offset);
    if (succeeded(id))
      ids[result] = *id;
    return id;
  };
  for (BlockArgument arg : program.getArguments()) {
    FailureOr<int64_t> id = addTensor(
        arg.getLoc(), arg.getType(), "input");
    if (failed(id))
      return failure();
    ids[arg] = *id;
    bindIo(*id, /*input=*/true, arg.getArgNumber());
    if (auto sharding = program.getArgAttrOfType<ArrayAttr>(
            arg.getArgNumber(), "neuron.sharding"))
      inputs.back()["sharding"] = shardingRecord(sharding);
  }
  int64_t hostCount = 0;
  for (Operation &op : program.getBody().front()) {
    LogicalResult result =
        llvm::TypeSwitch<Operation *, LogicalResult>(&op)
            .Case([&](mlir::neuron::ConstantOp c) -> LogicalResult {
              FailureOr<int64_t> id =
                  addTensor(c.getLoc(), c.getType(), "constant");
              if (failed(id))
                return failure();
              ids[c] = *id;
              return addConstantData(*id, c.getValue(), c);
            })
            .Case([&](mlir::neuron::SliceOp slice) -> LogicalResult {
              // A contiguous window (neuron-outline-kernels keeps only
              // those here): a view at an element offset of its root.
              int64_t parent = ids.lookup(slice.getInput());
              auto shape =
                  cast<RankedTensorType>(slice.getInput().getType()).getShape();
              int64_t offset = 0, stride = 1;
              for (int64_t d = shape.size() - 1; d >= 0; --d) {
                offset += slice.getOffsets()[d] * stride;
                stride *= shape[d];
              }
              FailureOr<int64_t> id =
                  addView(slice.getLoc(), slice.getType(), parent, offset);
              if (failed(id))
                return failure();
              ids[slice] = *id;
              return success();
            })
            .Case([&](mlir::neuron::ConcatOp join) -> LogicalResult {
              // Its pieces' collectives wrote into its tensor.
              if (ids.count(join.getResult()))
                return success();
              return join.emitError()
                     << "nisa-to-executable: a join in the program must "
                        "join collective results (neuron-outline-kernels "
                        "keeps no other)";
            })
            .Case([&](mlir::neuron::ReshapeOp r) {
              // The same bytes: kernels bind the tensor itself.
              ids[r] = ids.lookup(r.getInput());
              return success();
            })
            .Case([&](tensor::EmptyOp e) {
              return success(succeeded(newTensors(e->getResults())));
            })
            .Case([&](mlir::neuron::LaunchOp l) -> LogicalResult {
              auto f = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                  l, l.getKernelAttr());
              FailureOr<const EmittedKernel *> k =
                  f ? kernel(f) : FailureOr<const EmittedKernel *>(failure());
              if (failed(k))
                return failure();
              json bindings = idsOf(l.getInputs());
              // A result written in place of an input is that input's
              // tensor.
              for (auto [r, result] : llvm::enumerate(l.getResults())) {
                int64_t input = l.getInPlace() ? (*l.getInPlace())[r] : -1;
                if (input >= 0) {
                  ids[result] = ids.lookup(l.getInputs()[input]);
                  bindings.push_back(ids[result]);
                  continue;
                }
                FailureOr<json> fresh = newTensors(result);
                if (failed(fresh))
                  return failure();
                bindings.push_back((*fresh)[0]);
              }
              for (int64_t id : (*k)->internal)
                bindings.push_back(id);
              json step = {{"kernel", (*k)->name}, {"bindings", bindings}};
              return emitLaunch(l, f, std::move(step));
            })
            .Case([&](mlir::neuron::HostCallOp h) -> LogicalResult {
              FailureOr<json> inputs = shapedIdsOf(h.getInputs());
              if (failed(inputs))
                return failure();
              return emitHostCall(h, "host" + std::to_string(hostCount++),
                                  std::move(*inputs), newTensors);
            })
            .Case([&](mlir::neuron::CollectiveStartOp start) {
              auto done = cast<mlir::neuron::CollectiveDoneOp>(
                  *start.getHandle().getUsers().begin());
              return emitCollectiveStart(start, done.getResult(),
                                         collectiveIdOf, collectiveOutputOf);
            })
            .Case([&](mlir::neuron::CollectiveDoneOp done) {
              Operation *start = done.getHandle().getDefiningOp();
              steps.push_back({{"collective_done", started.lookup(start)}});
              return success();
            })
            .Case<mlir::neuron::AllReduceOp, mlir::neuron::AllGatherOp,
                  mlir::neuron::ReduceScatterOp, mlir::neuron::AllToAllOp,
                  mlir::neuron::AllSliceOp>(
                [&](Operation *sync) -> LogicalResult {
                  // Started and done at once.
                  if (failed(emitCollectiveStart(sync, sync->getResult(0),
                                                 collectiveIdOf,
                                                 collectiveOutputOf)))
                    return failure();
                  steps.push_back({{"collective_done", started.lookup(sync)}});
                  return success();
                })
            .Case([&](func::ReturnOp r) -> LogicalResult {
              for (auto [i, v] : llvm::enumerate(r.getOperands())) {
                // A result is read with its shape: a reshaped value gets a
                // view of it.
                FailureOr<int64_t> id = shapedIdOf(v);
                if (failed(id))
                  return failure();
                bindIo(*id, /*input=*/false, i);
                if (auto sharding = program.getResultAttrOfType<ArrayAttr>(
                        i, "neuron.sharding"))
                  outputs.back()["sharding"] = shardingRecord(sharding);
              }
              return success();
            })
            .Default([](Operation *other) {
              return other->emitError()
                     << "nisa-to-executable: '" << other->getName()
                     << "' cannot be a program step (expected launches, "
                        "host calls, collectives, constants, reshapes, "
                        "slices and joins of collective results)";
            });
    if (failed(result))
      return failure();
  }
  return success();
}

void ProgramEmitter::finish(json &manifest,
                            SmallVector<rt::Section> &out) {
  manifest["tensors"] = std::move(tensors);
  manifest["inputs"] = std::move(inputs);
  manifest["outputs"] = std::move(outputs);
  manifest["kernels"] = std::move(kernels);
  manifest["program"] = std::move(steps);
  if (grid)
    manifest["spmd"] = {{"grid", *grid}};
  out = std::move(sections);
}

FailureOr<std::vector<uint8_t>>
mlir::neuron::buildExecutable(ModuleOp module, StringRef entry,
                              const ExecutableInfo &info) {
  // The program function, or else the only kernel.
  func::FuncOp program, lone;
  int64_t candidates = 0;
  for (func::FuncOp f : module.getOps<func::FuncOp>()) {
    if (!entry.empty() && f.getName() != entry)
      continue;
    if (f->hasAttr("neuron.program")) {
      program = f;
      ++candidates;
    } else if (f->hasAttr("nisa.limits") && !f->hasAttr("neuron.kernel")) {
      lone = f;
      ++candidates;
    }
  }
  if (candidates != 1)
    return module.emitError()
           << "nisa-to-executable: expected one program or kernel"
           << (entry.empty() ? "" : (" named '" + entry + "'").str())
           << ", found " << candidates;
  FailureOr<LoadedTarget> target =
      loadTarget(module, "nisa-to-executable", info.targetSpec, "");
  if (failed(target))
    return failure();
  json manifest = {{"schema", "neuron-executable/4"},
                   {"compiler",
                    {{"name", "neuron-mlir"},
                     {"version", NEURON_VERSION},
                     {"git", NEURON_GIT_REVISION},
                     {"mlir", NEURON_MLIR_VERSION}}},
                   {"target", targetRecord(target->target)},
                   {"input_hash", info.inputHash},
                   {"options", {{"text", info.options},
                                {"pipeline", info.pipeline}}}};
  if (!info.coverageTotals.empty()) {
    json totals = json::parse(info.coverageTotals, nullptr, false);
    if (!totals.is_discarded())
      manifest["coverage"] = totals;
  }
  ProgramEmitter emitter;
  if (failed(program ? emitter.emitProgram(program)
                     : emitter.emitKernelProgram(lone)) ||
      failed(emitter.emitHostCode(manifest)))
    return failure();
  SmallVector<rt::Section> sections;
  emitter.finish(manifest, sections);
  rt::ExecutableWriter writer(std::move(manifest));
  for (rt::Section &section : sections)
    writer.addSection(std::move(section));
  absl::StatusOr<std::vector<uint8_t>> bytes = writer.serialize();
  if (!bytes.ok())
    return module.emitError() << "nisa-to-executable: "
                              << std::string(bytes.status().message());
  return *std::move(bytes);
}

LogicalResult
mlir::neuron::translateNisaToExecutable(ModuleOp module, llvm::raw_ostream &os,
                                        StringRef entry,
                                        const ExecutableInfo &info) {
  FailureOr<std::vector<uint8_t>> bytes = buildExecutable(module, entry, info);
  if (failed(bytes))
    return failure();
  os.write(reinterpret_cast<const char *>(bytes->data()), bytes->size());
  return success();
}

void mlir::neuron::registerNisaToExecutableTranslation() {
  static llvm::cl::opt<std::string> entry(
      "entry", llvm::cl::desc("The kernel to make the program of"),
      llvm::cl::init(""));
  static llvm::cl::opt<std::string> target(
      "executable-target",
      llvm::cl::desc("Target recorded in the manifest (default: the "
                     "module's neuron.target, else trn2)"),
      llvm::cl::init(""));
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
        // Host regions hold linalg, arith and math ops.
        registry.insert<NisaDialect, mlir::neuron::NeuronDialect,
                        func::FuncDialect, memref::MemRefDialect,
                        tensor::TensorDialect, linalg::LinalgDialect,
                        arith::ArithDialect, math::MathDialect>();
      });
}
