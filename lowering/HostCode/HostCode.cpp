//===- HostCode.cpp - Host regions compiled to native code ----------------===//
//
// One module gets a function per host call, taking the region's tensors
// and returning its results. Upstream passes then bufferize it (results
// become output parameters the runtime provides; temporaries are freed),
// lower linalg to loops and everything to the LLVM dialect. Two rewrites of
// our own sit between them: memref.copy becomes linalg.copy (so no copy is
// left to a runtime library), and integer division is guarded so a zero
// divisor gives 0 and the most negative value divided by -1 wraps, as the
// device defines them, instead of trapping. LLVM then optimises, emits an
// object for this machine, and lld links it.
//
//===----------------------------------------------------------------------===//

#include "lowering/HostCode/HostCode.h"
#include "lowering/Passes.h"

#include "dialects/neuron/IR/NeuronOps.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace mlir::neuron;

std::string mlir::neuron::hostTriple() { return llvm::sys::getProcessTriple(); }

/// The interfaces the pipeline needs, whatever the caller registered.
static void registerInterfaces(MLIRContext *ctx) {
  DialectRegistry registry;
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  arith::registerBufferDeallocationOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  cf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  memref::registerAllocationOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  ctx->appendDialectRegistry(registry);
  ctx->loadDialect<arith::ArithDialect, bufferization::BufferizationDialect,
                   func::FuncDialect, linalg::LinalgDialect, LLVM::LLVMDialect,
                   math::MathDialect, memref::MemRefDialect,
                   tensor::TensorDialect>();
}

/// A module with one function per host call, named `<symbol>_impl`.
static OwningOpRef<ModuleOp> buildModule(ArrayRef<HostCallOp> calls,
                                         ArrayRef<std::string> symbols) {
  Location loc = HostCallOp(calls.front()).getLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder b(module->getBodyRegion());
  for (auto [constCall, symbol] : llvm::zip(calls, symbols)) {
    HostCallOp call = constCall;
    auto type =
        b.getFunctionType(call.getInputs().getTypes(), call.getResultTypes());
    auto func = func::FuncOp::create(b, call.getLoc(), symbol + "_impl", type);
    func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  b.getUnitAttr());
    IRMapping mapping;
    call.getBody().cloneInto(&func.getBody(), mapping);
    Operation *yield = func.getBody().front().getTerminator();
    OpBuilder at(yield);
    func::ReturnOp::create(at, yield->getLoc(), yield->getOperands());
    yield->erase();
  }
  return module;
}

/// memref.copy as linalg.copy, which becomes loops rather than a call to
/// upstream's runtime library.
static void copiesAsLinalg(ModuleOp module) {
  SmallVector<memref::CopyOp> copies;
  module.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
  for (memref::CopyOp copy : copies) {
    OpBuilder b(copy);
    linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                           copy.getTarget());
    copy.erase();
  }
}

/// Guards every integer division and remainder: a zero divisor gives 0;
/// the most negative value divided by -1 wraps (its remainder is 0).
static void guardDivisions(ModuleOp module) {
  SmallVector<Operation *> divisions;
  module.walk([&](Operation *op) {
    if (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp>(
            op)) {
      APInt divisor;
      // A constant divisor other than 0 and -1 needs no guard.
      if (matchPattern(op->getOperand(1), m_ConstantInt(&divisor)) &&
          !divisor.isZero() && !divisor.isAllOnes())
        return;
      divisions.push_back(op);
    }
  });
  for (Operation *op : divisions) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    Type type = rhs.getType();
    auto constant = [&](int64_t v) {
      return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
    };
    Value zero = constant(0), one = constant(1);
    Value isZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, zero);
    Value unsafe = isZero;
    if (isa<arith::DivSIOp, arith::RemSIOp>(op)) {
      unsigned bits = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
      Value min = arith::ConstantOp::create(
          b, loc, b.getIntegerAttr(type, APInt::getSignedMinValue(bits)));
      Value overflow = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lhs, min),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs,
                                constant(-1)));
      unsafe = arith::OrIOp::create(b, loc, unsafe, overflow);
    }
    Value divisor = arith::SelectOp::create(b, loc, unsafe, one, rhs);
    op->setOperand(1, divisor);
    b.setInsertionPointAfter(op);
    auto guarded =
        arith::SelectOp::create(b, loc, isZero, zero, op->getResult(0));
    op->getResult(0).replaceAllUsesExcept(guarded, guarded);
  }
}

/// Ops that compute several linalg ops' worth (linalg.softmax), as those.
static LogicalResult decomposeAggregates(ModuleOp module) {
  SmallVector<linalg::AggregatedOpInterface> aggregates;
  module.walk(
      [&](linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
  for (linalg::AggregatedOpInterface op : aggregates) {
    OpBuilder b(op);
    FailureOr<SmallVector<Value>> values = op.decomposeOperation(b);
    if (failed(values))
      return op->emitError()
             << "host code: '" << op->getName() << "' could not be decomposed";
    op->replaceAllUsesWith(*values);
    op->erase();
  }
  return success();
}

/// Fails at the first op that `allowed` rejects: an op the pipeline left
/// behind, named where the graph has it.
static LogicalResult checkLowered(ModuleOp module, StringRef stage,
                                  function_ref<bool(Operation *)> allowed) {
  WalkResult result = module.walk([&](Operation *op) {
    if (op == module.getOperation() || allowed(op))
      return WalkResult::advance();
    InFlightDiagnostic diag = op->emitError();
    // What is left of an fp8 conversion, which upstream does not expand.
    auto fp8 = llvm::find_if(op->getResultTypes(), [](Type t) {
      return isa<Float8E4M3FNType, Float8E5M2Type>(getElementTypeOrSelf(t));
    });
    if (fp8 != op->getResultTypes().end())
      diag << "host code: " << getElementTypeOrSelf(*fp8)
           << " arithmetic is not compiled for the host (upstream MLIR "
              "cannot convert it to and from f32 on the CPU); convert to "
              "bf16 or f32 before the op the target cannot run";
    else
      diag << "host code: upstream MLIR's CPU pipeline cannot lower '"
           << op->getName() << "' " << stage;
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// Lowers `module` to the LLVM dialect; diagnostics go to the context.
static LogicalResult lowerToLLVMDialect(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  if (failed(lowerNeuronOpsToLinalg(module)) ||
      failed(decomposeAggregates(module)))
    return failure();

  PassManager bufferize(ctx);
  bufferize.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  bufferization::OneShotBufferizePassOptions oneShot;
  oneShot.bufferizeFunctionBoundaries = true;
  oneShot.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  bufferize.addPass(bufferization::createOneShotBufferizePass(oneShot));
  // Results are written where the runtime says, the entry points being
  // public.
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.modifyPublicFunctions = true;
  outParams.hoistStaticAllocs = true;
  bufferize.addPass(
      bufferization::createBufferResultsToOutParamsPass(outParams));
  bufferization::buildBufferDeallocationPipeline(bufferize);
  bufferize.addPass(createConvertBufferizationToMemRefPass());
  if (failed(bufferize.run(module)))
    return failure();
  copiesAsLinalg(module);

  PassManager loops(ctx);
  loops.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // complex arithmetic as arith/math on the parts (complex.create, re and im
  // become LLVM structs below).
  loops.addPass(createConvertComplexToStandardPass());
  loops.addPass(createLowerAffinePass());
  loops.addPass(createSCFToControlFlowPass());
  loops.addPass(memref::createExpandStridedMetadataPass());
  loops.addPass(createLowerAffinePass());
  // bf16 and f16 arithmetic in f32, rounded back after each op; bf16
  // conversions as integer arithmetic.
  loops.addPass(math::createMathExtendToSupportedTypes());
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16", "f16"};
  loops.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  loops.addPass(arith::createArithExpandOpsPass(expand));
  if (failed(loops.run(module)) ||
      failed(checkLowered(module, "to loops", [](Operation *op) {
        return isa<arith::ArithDialect, cf::ControlFlowDialect,
                   complex::ComplexDialect, func::FuncDialect,
                   LLVM::LLVMDialect, math::MathDialect,
                   memref::MemRefDialect>(op->getDialect());
      })))
    return failure();
  guardDivisions(module);

  PassManager llvm(ctx);
  llvm.addPass(createConvertMathToFuncs());
  // LLVM's intrinsics first; libm for what has none (erf).
  llvm.addPass(createConvertMathToLLVMPass());
  llvm.addPass(createConvertMathToLibmPass());
  llvm.addPass(createConvertComplexToLLVMPass());
  llvm.addPass(createFinalizeMemRefToLLVMConversionPass());
  llvm.addPass(createConvertFuncToLLVMPass());
  llvm.addPass(createArithToLLVMConversionPass());
  llvm.addPass(createConvertIndexToLLVMPass());
  llvm.addPass(createConvertControlFlowToLLVMPass());
  llvm.addPass(createReconcileUnrealizedCastsPass());
  return failure(
      failed(llvm.run(module)) ||
      failed(checkLowered(module, "to the LLVM dialect", [](Operation *op) {
        return isa<LLVM::LLVMDialect>(op->getDialect());
      })));
}

/// `void symbol(void **args)` calling `_mlir_ciface_<symbol>_impl` with
/// args[0], args[1], ...
static void addPackedEntry(llvm::Module &module, const std::string &symbol) {
  llvm::Function *impl = module.getFunction("_mlir_ciface_" + symbol + "_impl");
  llvm::LLVMContext &ctx = module.getContext();
  auto *ptr = llvm::PointerType::getUnqual(ctx);
  auto *entry = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false),
      llvm::GlobalValue::ExternalLinkage, symbol, module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", entry));
  SmallVector<llvm::Value *> args;
  for (unsigned i = 0; i < impl->arg_size(); ++i)
    args.push_back(
        b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, entry->getArg(0), i)));
  b.CreateCall(impl, args);
  b.CreateRetVoid();
}

/// `module` optimised and compiled to a relocatable object for this machine.
static FailureOr<std::vector<char>> emitObject(llvm::Module &module,
                                               Location loc) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(hostTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return emitError(loc) << "host code: no LLVM target for " << triple.str()
                          << ": " << error;
  // The baseline of the architecture: the executable may run on another
  // machine of it.
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, "generic", "", llvm::TargetOptions(), llvm::Reloc::PIC_));
  module.setDataLayout(machine->createDataLayout());
  module.setTargetTriple(triple);
  if (llvm::Error e = makeOptimizingTransformer(2, 0, machine.get())(&module))
    return emitError(loc) << "host code: LLVM's optimiser failed: "
                          << llvm::toString(std::move(e));
  SmallVector<char> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return emitError(loc) << "host code: LLVM cannot emit an object for "
                          << triple.str();
  codegen.run(module);
  return std::vector<char>(object.begin(), object.end());
}

FailureOr<HostCode>
mlir::neuron::compileHostCode(ArrayRef<HostCallOp> calls,
                              ArrayRef<std::string> symbols) {
  Location loc = HostCallOp(calls.front()).getLoc();
  MLIRContext *ctx = loc.getContext();
  registerInterfaces(ctx);
  OwningOpRef<ModuleOp> module = buildModule(calls, symbols);
  if (failed(lowerToLLVMDialect(*module)))
    return emitError(loc) << "host code: upstream MLIR's CPU pipeline could "
                             "not compile the host calls (see above)";
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext, "neuron_host_code");
  if (!llvmModule)
    return emitError(loc) << "host code: translation to LLVM IR failed";
  for (const std::string &symbol : symbols)
    addPackedEntry(*llvmModule, symbol);
  FailureOr<std::vector<char>> object = emitObject(*llvmModule, loc);
  if (failed(object))
    return failure();
  FailureOr<std::vector<char>> library = linkSharedLibrary(*object, loc);
  if (failed(library))
    return failure();
  return HostCode{hostTriple(), std::move(*library)};
}
