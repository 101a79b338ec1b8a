//===- BindKernels.cpp - user-written nisa kernels in place of graph ops --===//
//
// Finds the user kernels (the module's own and a library directory's),
// decides which graph ops each computes (an attribute on the op, call or
// callee; a kernel implementing a function or an op name), and replaces
// those ops by neuron.custom_kernel launches of private copies of the
// kernels. Verification against the target is convert-neuron-to-nisa's.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "passes/Coverage.h"
#include "passes/KernelLibrary.h"

#include "dialects/neuron/IR/NeuronOps.h"
#include "dialects/nisa/IR/NisaOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SourceMgr.h"

#include <string>
#include <vector>

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONBINDKERNELS
#include "passes/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;

namespace {

/// A kernel the pass may bind: its function (in the module, or in a parsed
/// library file) and where it was written.
struct Kernel {
  func::FuncOp func;
  std::string origin;
};

/// How an op came to be bound: explicitly (an attribute, a function the
/// kernel implements), where a mismatch is an error, or by its op name,
/// where the kernel is only a candidate.
struct Binding {
  Kernel *kernel = nullptr;
  bool explicitly = false;
};

struct BindKernels : mlir::neuron::impl::NeuronBindKernelsBase<BindKernels> {
  using Base::Base;

  void runOnOperation() override;

private:
  LogicalResult bindAll(ModuleOp module);
  LogicalResult addModuleKernels(ModuleOp module);
  LogicalResult bindOps(ModuleOp module, bool calls);
  LogicalResult loadLibrary(std::vector<OwningOpRef<ModuleOp>> &files);
  LogicalResult addKernel(func::FuncOp func, StringRef origin);
  Kernel *kernelNamed(Operation *user, FlatSymbolRefAttr name);
  FailureOr<SmallVector<Binding>> bindingsOf(Operation *op);
  LogicalResult bind(Operation *op);
  FailureOr<func::FuncOp> useKernel(Kernel &kernel, Operation *op,
                                    unsigned numInputs);

  /// Every kernel by name, during a run (some point into library files
  /// parsed for it).
  llvm::StringMap<Kernel> kernels;
};

} // namespace

/// The graph inputs a kernel bound to `op` receives: a linalg op's inputs
/// and the outputs its body reads (an accumulator); any other op's
/// operands.
static SmallVector<Value> kernelInputs(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return llvm::to_vector(op->getOperands());
  SmallVector<Value> inputs = linalgOp.getDpsInputs();
  for (OpOperand &init : linalgOp.getDpsInitsMutable())
    if (linalgOp.payloadUsesValueFromOperand(&init))
      inputs.push_back(init.get());
  return inputs;
}

/// Whether `kernel`'s `nisa.implements` names `op`: its op name, or, for a
/// call, the callee.
static bool implementsOp(func::FuncOp kernel, Operation *op) {
  Attribute implements = kernel->getAttr(nisa::NisaDialect::kImplements);
  if (auto name = dyn_cast_or_null<StringAttr>(implements))
    return name.getValue() == op->getName().getStringRef();
  auto call = dyn_cast<func::CallOp>(op);
  auto callee = dyn_cast_or_null<FlatSymbolRefAttr>(implements);
  return call && callee && callee == call.getCalleeAttr();
}

/// A user kernel: a function with a body on memrefs only.
static bool isKernelFunction(func::FuncOp func) {
  return !func.isDeclaration() && func.getNumResults() == 0 &&
         llvm::all_of(func.getArgumentTypes(), llvm::IsaPred<MemRefType>);
}

/// Why `kernel` cannot compute `op` on `inputs`; nullopt when it can: its
/// signature in nisa form, every buffer in HBM.
static std::optional<std::string> mismatch(func::FuncOp kernel, Operation *op,
                                           ValueRange inputs) {
  auto isTensor = llvm::IsaPred<RankedTensorType>;
  if (!llvm::all_of(inputs.getTypes(), isTensor) ||
      !llvm::all_of(op->getResultTypes(), isTensor))
    return std::string("expected an op on ranked tensors");
  if (std::optional<std::string> why = nisaKernelMismatch(
          kernel.getFunctionType(), inputs.getTypes(), op->getResultTypes()))
    return why;
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    if (nisa::getMemorySpace(cast<MemRefType>(type)) == nisa::MemorySpace::hbm)
      continue;
    std::string why;
    llvm::raw_string_ostream os(why);
    os << "expected argument #" << i << " in HBM (#nisa.memory<hbm>), found "
       << type;
    return why;
  }
  return std::nullopt;
}

LogicalResult BindKernels::addKernel(func::FuncOp func, StringRef origin) {
  auto [it, added] =
      kernels.try_emplace(func.getSymName(), Kernel{func, origin.str()});
  if (added)
    return success();
  InFlightDiagnostic error = func.emitError()
                             << "neuron-bind-kernels: a second kernel named @"
                             << func.getSymName();
  error.attachNote(it->second.func.getLoc()) << "the first is here";
  return failure();
}

/// Parses the library's files into `parsed`, adding their kernels.
LogicalResult
BindKernels::loadLibrary(std::vector<OwningOpRef<ModuleOp>> &parsedFiles) {
  std::vector<std::string> files;
  if (std::error_code ec = kernelLibraryFiles(library, files))
    return getOperation().emitError()
           << "neuron-bind-kernels: cannot read the kernel library '" << library
           << "': " << ec.message();
  for (const std::string &file : files) {
    llvm::SourceMgr sources; // the parser reads a manager's first buffer
    OwningOpRef<ModuleOp> parsed =
        parseSourceFile<ModuleOp>(file, sources, ParserConfig(&getContext()));
    if (!parsed)
      return getOperation().emitError()
             << "neuron-bind-kernels: cannot parse kernel library file '"
             << file << "'";
    for (func::FuncOp func : parsed->getOps<func::FuncOp>()) {
      if (!isKernelFunction(func))
        return func.emitError()
               << "neuron-bind-kernels: expected a kernel (a function on "
                  "memrefs with a body and no results) in the kernel "
                  "library, found @"
               << func.getSymName() << " of type " << func.getFunctionType();
      // Copied into the module by an earlier run: that copy is the kernel.
      auto copied = kernels.find(func.getSymName());
      if (copied != kernels.end() && copied->second.origin == file &&
          copied->second.func->hasAttr(nisa::NisaDialect::kCustom))
        continue;
      if (failed(addKernel(func, file)))
        return failure();
    }
    parsedFiles.push_back(std::move(parsed));
  }
  return success();
}

Kernel *BindKernels::kernelNamed(Operation *user, FlatSymbolRefAttr name) {
  auto it = kernels.find(name.getValue());
  if (it != kernels.end())
    return &it->second;
  if (auto func =
          SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(user, name))
    user->emitError() << "neuron-bind-kernels: " << name
                      << " is not a kernel: expected a function on memrefs "
                         "with a body and no results, found "
                      << func.getFunctionType();
  else
    user->emitError() << "neuron-bind-kernels: no kernel named " << name
                      << " in the module"
                      << (library.empty()
                              ? std::string(" (no kernel library "
                                            "given)")
                              : " or in the kernel library '" + library + "'");
  return nullptr;
}

/// The kernels `op` may be bound to, the explicit one alone when there is
/// one; failure (after an error) when a named kernel does not exist.
FailureOr<SmallVector<Binding>> BindKernels::bindingsOf(Operation *op) {
  auto call = dyn_cast<func::CallOp>(op);
  auto named = op->getAttrOfType<FlatSymbolRefAttr>(
      NeuronDialect::kCustomKernelAttrName);
  if (!named && call)
    if (auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
            op, call.getCalleeAttr()))
      named = callee->getAttrOfType<FlatSymbolRefAttr>(
          NeuronDialect::kCustomKernelAttrName);
  if (named) {
    Kernel *kernel = kernelNamed(op, named);
    if (!kernel)
      return failure();
    return SmallVector<Binding>{{kernel, true}};
  }
  // By a function's name: explicit; by an op name: a candidate.
  SmallVector<Binding> candidates;
  for (auto &entry : kernels)
    if (implementsOp(entry.second.func, op))
      candidates.push_back(
          {&entry.second, isa<FlatSymbolRefAttr>(entry.second.func->getAttr(
                              nisa::NisaDialect::kImplements))});
  // In name order, for the same choice on every run.
  llvm::sort(candidates, [](const Binding &a, const Binding &b) {
    return a.kernel->func.getSymName() < b.kernel->func.getSymName();
  });
  return candidates;
}

/// Copies `kernel` into the module the first time it is used, marked as a
/// kernel of `numInputs` inputs; the copy.
FailureOr<func::FuncOp> BindKernels::useKernel(Kernel &kernel, Operation *op,
                                               unsigned numInputs) {
  ModuleOp module = getOperation();
  func::FuncOp func = kernel.func;
  if (func->getParentOp() != module) {
    if (auto existing = module.lookupSymbol(func.getSymName())) {
      if (existing->hasAttr(nisa::NisaDialect::kCustom))
        func = cast<func::FuncOp>(existing);
      else {
        InFlightDiagnostic error =
            existing->emitError()
            << "neuron-bind-kernels: @" << func.getSymName()
            << " of the graph has the name of a kernel in the library";
        error.attachNote(func.getLoc()) << "the library's kernel";
        return failure();
      }
    } else {
      func = cast<func::FuncOp>(func->clone());
      module.push_back(func);
    }
    // Later uses find the copy without looking it up.
    kernel.func = func;
  }
  Builder b(&getContext());
  if (auto marked = func->getAttrOfType<IntegerAttr>("nisa.num_inputs");
      marked && marked.getInt() != numInputs) {
    InFlightDiagnostic error =
        op->emitError() << "neuron-bind-kernels: kernel @" << func.getSymName()
                        << " takes " << numInputs << " inputs here and "
                        << marked.getInt() << " elsewhere";
    error.attachNote(func.getLoc()) << "the kernel";
    return failure();
  }
  func.setPrivate();
  func->setAttr("neuron.kernel", b.getUnitAttr());
  func->setAttr(nisa::NisaDialect::kCustom, b.getStringAttr(kernel.origin));
  func->setAttr("nisa.num_inputs", b.getI64IntegerAttr(numInputs));
  return func;
}

LogicalResult BindKernels::bind(Operation *op) {
  FailureOr<SmallVector<Binding>> bindings = bindingsOf(op);
  if (failed(bindings))
    return failure();
  if (bindings->empty())
    return success();
  SmallVector<Value> inputs = kernelInputs(op);
  // The first that fits: several kernels may implement one op or function
  // for different shapes.
  const Binding *chosen = nullptr;
  SmallVector<std::pair<const Binding *, std::string>> misfits;
  for (const Binding &binding : *bindings) {
    std::optional<std::string> misfit =
        mismatch(binding.kernel->func, op, inputs);
    if (!misfit) {
      chosen = &binding;
      break;
    }
    misfits.emplace_back(&binding, *misfit);
  }
  if (!chosen && bindings->front().explicitly) {
    if (misfits.size() == 1) {
      auto [binding, why] = misfits.front();
      InFlightDiagnostic error = op->emitError()
                                 << "neuron-bind-kernels: kernel @"
                                 << binding->kernel->func.getSymName()
                                 << " does not fit this op: " << why;
      error.attachNote(binding->kernel->func.getLoc()) << "the kernel";
      return failure();
    }
    InFlightDiagnostic error =
        op->emitError() << "neuron-bind-kernels: none of the " << misfits.size()
                        << " kernels bound to this op fits it";
    for (auto [binding, why] : misfits)
      error.attachNote(binding->kernel->func.getLoc())
          << "@" << binding->kernel->func.getSymName() << ": " << why;
    return failure();
  }
  if (!chosen) {
    std::string why;
    for (auto [binding, misfit] : misfits)
      why += (why.empty() ? "@" : "; @") +
             binding->kernel->func.getSymName().str() + ": " + misfit;
    op->emitRemark() << "neuron-bind-kernels: no kernel implementing '"
                     << op->getName() << "' fits this op (" << why
                     << "); the compiler tiles it";
    return success();
  }
  FailureOr<func::FuncOp> kernel =
      useKernel(*chosen->kernel, op, inputs.size());
  if (failed(kernel))
    return failure();
  std::string replaced = op->getName().getStringRef().str();
  if (auto call = dyn_cast<func::CallOp>(op))
    replaced = "@" + call.getCallee().str();
  OpBuilder b(op);
  auto custom = CustomKernelOp::create(b, op->getLoc(), op->getResultTypes(),
                                       kernel->getSymName(), replaced, inputs);
  op->replaceAllUsesWith(custom.getResults());
  op->erase();
  ++numBound;
  return success();
}

void BindKernels::runOnOperation() {
  LogicalResult result = bindAll(getOperation());
  kernels.clear(); // some point into library files freed by now
  if (failed(result))
    signalPassFailure();
}

/// Adds the module's kernels: bound ones from an earlier run, ones naming
/// what they implement, and ones an attribute names.
LogicalResult BindKernels::addModuleKernels(ModuleOp module) {
  llvm::StringSet<> named;
  module.walk([&](Operation *op) {
    if (auto name = op->getAttrOfType<FlatSymbolRefAttr>(
            NeuronDialect::kCustomKernelAttrName))
      named.insert(name.getValue());
  });
  for (func::FuncOp func : module.getOps<func::FuncOp>()) {
    bool custom = func->hasAttr(nisa::NisaDialect::kCustom);
    bool implements = func->hasAttr(nisa::NisaDialect::kImplements);
    if (!custom && !implements && !named.contains(func.getSymName()))
      continue;
    if (!isKernelFunction(func)) {
      if (!implements)
        continue; // named by an attribute: an error where it is used
      return func.emitError()
             << "neuron-bind-kernels: expected a kernel (a function on "
                "memrefs with a body and no results) to carry '"
             << nisa::NisaDialect::kImplements << "', found "
             << func.getFunctionType();
    }
    // Until bound, a kernel stays public: the inliner between two runs
    // would drop a private one that nothing calls.
    if (implements && !custom)
      func.setPublic();
    std::string origin = "the graph";
    if (auto file = func->getAttrOfType<StringAttr>(nisa::NisaDialect::kCustom))
      origin = file.str();
    else if (auto loc = dyn_cast<FileLineColLoc>(func.getLoc()))
      origin = loc.getFilename().str();
    if (failed(addKernel(func, origin)))
      return failure();
  }
  return success();
}

/// Binds the calls (`calls`), or the other ops, of the module's functions
/// that coverage judges, outside kernels.
LogicalResult BindKernels::bindOps(ModuleOp module, bool calls) {
  SmallVector<Operation *> candidates;
  for (func::FuncOp func : module.getOps<func::FuncOp>()) {
    if (func.isDeclaration() || isKernelFunction(func))
      continue;
    func.walk([&](Operation *op) {
      if (CoverageChecker::isJudged(op) && !isa<CustomKernelOp, LaunchOp>(op) &&
          isa<func::CallOp>(op) == calls)
        candidates.push_back(op);
    });
  }
  for (Operation *op : candidates)
    if (failed(bind(op)))
      return failure();
  return success();
}

LogicalResult BindKernels::bindAll(ModuleOp module) {
  kernels.clear();
  if (failed(addModuleKernels(module)))
    return failure();
  // The library's kernels live in their parsed files until copied in.
  std::vector<OwningOpRef<ModuleOp>> libraryFiles;
  if (!library.empty() && failed(loadLibrary(libraryFiles)))
    return failure();

  // Calls first. Every call of a function a kernel implements is bound
  // then: the kernel stops naming it, and a private function whose calls
  // all became kernels goes, with its ops (it was the reference for the
  // oracle), before the other ops are bound.
  llvm::SetVector<Operation *> callees;
  module.walk([&](func::CallOp call) {
    if (auto callee = module.lookupSymbol<func::FuncOp>(call.getCalleeAttr()))
      callees.insert(callee);
  });
  if (failed(bindOps(module, /*calls=*/true)))
    return failure();
  for (func::FuncOp func : module.getOps<func::FuncOp>())
    if (isa_and_present<FlatSymbolRefAttr>(
            func->getAttr(nisa::NisaDialect::kImplements)))
      func->removeAttr(nisa::NisaDialect::kImplements);
  for (Operation *callee : callees)
    if (SymbolTable::getSymbolVisibility(callee) ==
            SymbolTable::Visibility::Private &&
        SymbolTable::symbolKnownUseEmpty(callee, module))
      callee->erase();
  if (failed(bindOps(module, /*calls=*/false)))
    return failure();

  // An attribute left is on an op no kernel can replace.
  WalkResult left = module.walk([&](Operation *op) {
    auto name = op->getAttrOfType<FlatSymbolRefAttr>(
        NeuronDialect::kCustomKernelAttrName);
    if (!name || isa<func::FuncOp>(op))
      return WalkResult::advance();
    op->emitError() << "neuron-bind-kernels: cannot replace this op by " << name
                    << ": a kernel computes an op or call on tensors in a "
                       "graph function (not a constant, tensor.empty or an "
                       "op inside a linalg or host_call body)";
    return WalkResult::interrupt();
  });
  return failure(left.wasInterrupted());
}
