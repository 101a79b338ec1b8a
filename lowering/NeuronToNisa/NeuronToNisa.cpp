//===- NeuronToNisa.cpp - the convert-neuron-to-nisa pass -----------------===//
//
// Turns each function on tensors into a kernel on HBM buffers: tensors
// become HBM memrefs (arguments; results become output arguments, and an op
// whose result is returned writes straight into its output), and every op
// becomes loops of DMA transfers into [partition][free] tiles of SBUF/PSUM
// and engine instructions on them, by the conversion patterns of its
// family (KernelLowering.h). Tile sizes come from the target description
// the module names, never from constants here; on-chip tiles are
// `memref.alloc`s whose addresses are nisa-allocate's job.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"

#include "lowering/NeuronToNisa/KernelLowering.h"
#include "passes/Decompose.h"
#include "passes/KernelGraph.h"
#include "passes/Passes.h"
#include "passes/TargetLoading.h"
#include "runtime/target/CostModel.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_CONVERTNEURONTONISA
#include "lowering/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
namespace rt = ::neuron::rt;

/// Whether softmax `op` has the on-chip recipe: along the last axis, with a
/// row's input, exponentials and result fitting half of SBUF per partition
/// (the other half double-buffers the next row tile).
static bool hasSoftmaxRecipe(Operation *op, const TileConfig &config) {
  auto softmax = dyn_cast<SoftmaxOp>(op);
  if (!softmax)
    return false;
  auto type = cast<RankedTensorType>(softmax.getType());
  if (!type.hasStaticShape() || softmax.getAxis() != type.getRank() - 1)
    return false;
  int64_t row = type.getDimSize(type.getRank() - 1);
  int64_t bytes = elementBytes(softmax.getInput().getType().getElementType()) +
                  elementBytes(type.getElementType());
  return row * (bytes + 4) <= config.limits.getSbufBytes() / 2;
}

namespace {

/// The function's signature on HBM buffers: its inputs, then one output
/// argument per result, and no results.
struct FuncToKernel : OpConversionPattern<func::FuncOp> {
  FuncToKernel(const TypeConverter &converter, MLIRContext *context,
               const TileConfig &config)
      : OpConversionPattern(converter, context), config(config) {}

  LogicalResult
  matchAndRewrite(func::FuncOp func, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned numInputs = func.getNumArguments();
    TypeConverter::SignatureConversion signature(numInputs);
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
      signature.addInputs(i, getTypeConverter()->convertType(type));
    SmallVector<Type> outputs;
    for (Type type : func.getResultTypes())
      outputs.push_back(getTypeConverter()->convertType(type));
    signature.addInputs(outputs);
    // The output arguments stand for the returned values: located at the
    // return.
    Block &body = func.getBody().front();
    Location returned = body.mightHaveTerminator()
                            ? body.getTerminator()->getLoc()
                            : func.getLoc();
    Block *entry =
        rewriter.applySignatureConversion(&body, signature, getTypeConverter());
    for (BlockArgument out : entry->getArguments().drop_front(numInputs))
      out.setLoc(returned);
    rewriter.modifyOpInPlace(func, [&] {
      func.setType(rewriter.getFunctionType(signature.getConvertedTypes(), {}));
      func->setAttr(nisa::NisaDialect::kLimits, config.limits);
      func->setAttr("nisa.num_inputs", rewriter.getI64IntegerAttr(numInputs));
    });
    return success();
  }

  const TileConfig &config;
};

/// Returned buffers that are not their output already (arguments,
/// constants, views, repeats) are copied out.
struct ReturnToCopies : NisaPattern<func::ReturnOp> {
  using NisaPattern::NisaPattern;
  LogicalResult
  matchAndRewrite(func::ReturnOp ret, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto kernel = ret->getParentOfType<func::FuncOp>();
    unsigned outputs = adaptor.getOperands().size();
    unsigned first = kernel.getNumArguments() - outputs;
    for (auto [i, buffer] : llvm::enumerate(adaptor.getOperands())) {
      Value out = kernel.getArgument(first + i);
      // In place, the output and the input are one tensor.
      if (buffer != out && buffer != k.inPlaceInput(kernel.getArguments(), i))
        k.dma(rewriter, ret.getLoc(), buffer, out);
    }
    rewriter.replaceOpWithNewOp<func::ReturnOp>(ret);
    return success();
  }
};

struct ConvertNeuronToNisa
    : mlir::neuron::impl::ConvertNeuronToNisaBase<ConvertNeuronToNisa> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<TileConfig> config = loadConfig(module);
    if (!config)
      return signalPassFailure();
    // Composite ops without an on-chip recipe yet become reductions and
    // elementwise ops first.
    RewritePatternSet expansions(&getContext());
    populateCompositeExpansionPatterns(expansions, [&](Operation *op) {
      return hasSoftmaxRecipe(op, *config);
    });
    if (failed(applyPatternsGreedily(module, std::move(expansions))))
      return signalPassFailure();
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    // A program (neuron-outline-kernels) stays on tensors; its kernels and
    // any other function become kernels.
    for (func::FuncOp func : funcs) {
      if (func.isDeclaration() || func->hasAttr("neuron.program"))
        continue;
      if (func->hasAttr(nisa::NisaDialect::kCustom)) {
        if (failed(verifyCustom(func, *config)))
          return signalPassFailure();
        continue;
      }
      if (!tuningCache.empty() &&
          failed(tuneMatmuls(func.getBody().front(), *config,
                             {tuningCache, target, targetDir, buffers})))
        return signalPassFailure();
      if (failed(convert(func, *config)))
        return signalPassFailure();
    }
  }

  /// A user kernel is already nisa: it is checked against the target's
  /// limits (partitions, bytes per partition, operand sizes), which its
  /// instructions' verifiers read from `nisa.limits`, for the structure
  /// the kernel passes read (affine loops, views of whole partitions), and
  /// for writing each of its results.
  LogicalResult verifyCustom(func::FuncOp kernel, const TileConfig &config) {
    kernel->setAttr(nisa::NisaDialect::kLimits, config.limits);
    auto origin = kernel->getAttrOfType<StringAttr>(nisa::NisaDialect::kCustom);
    auto fail = [&] {
      return kernel.emitError()
             << "convert-neuron-to-nisa: user kernel @" << kernel.getSymName()
             << " (" << origin.getValue()
             << ") cannot be compiled for this target";
    };
    if (failed(verify(kernel)))
      return fail();
    FailureOr<KernelGraph> graph = KernelGraph::build(kernel);
    if (failed(graph))
      return fail();
    llvm::SmallPtrSet<Value, 4> written;
    for (size_t i = 0; i < graph->size(); ++i)
      for (const TileAccess &access : graph->accessesOf(i))
        if (access.write)
          written.insert(access.root);
    auto attr = kernel->getAttrOfType<IntegerAttr>("nisa.num_inputs");
    int64_t inputs = attr ? attr.getInt() : 0;
    for (BlockArgument out : kernel.getArguments().drop_front(inputs))
      if (!written.contains(out))
        return kernel.emitError()
               << "convert-neuron-to-nisa: user kernel @"
               << kernel.getSymName() << " never writes its result #"
               << out.getArgNumber() - inputs << " (argument #"
               << out.getArgNumber() << "), which would be left undefined";
    return success();
  }

  /// The tile limits of the target option, from its description.
  std::optional<TileConfig> loadConfig(ModuleOp module) {
    FailureOr<LoadedTarget> t =
        loadTarget(module, "convert-neuron-to-nisa", target, targetDir);
    if (failed(t))
      return std::nullopt;
    const rt::ResolvedTarget &resolved = t->target;
    TileConfig config;
    // The systolic array is partitions x partitions, so the stationary
    // operand has at most `partitions` columns; the moving one fills a PSUM
    // bank of fp32.
    FailureOr<rt::CostModel> model =
        loadCostModel(module, "convert-neuron-to-nisa", resolved);
    if (failed(model))
      return std::nullopt;
    int64_t partitions = resolved.sbufPartitions();
    config.limits = nisa::LimitsAttr::get(
        module.getContext(), partitions, resolved.sbufBytesPerPartition(),
        resolved.psumBytesPerPartition(), resolved.psumBankBytes(), partitions,
        resolved.psumBankBytes() / 4, model->fp8PeakRows());
    config.summary = summary;
    // A queue per DMA engine of a physical core.
    config.dmaQueues = model->dmaEngines();
    config.hbmBytesPerNs = model->hbmBytesPerNs();
    config.cost = *model;
    // Streaming tiles are as large as a transfer needs for peak DMA
    // bandwidth, within an eighth of SBUF (the rotating slots of a few
    // tiles share it).
    config.elementwiseBytes = std::min(resolved.sbufBytesPerPartition() / 8,
                                       resolved.dmaPeakBytesPerPartition());
    config.dmaPeakBytes = resolved.dmaPeakBytesPerPartition();
    return config;
  }

  /// Converts `func` into its kernel; leaves the module failing (after a
  /// diagnostic) when an op cannot be tiled.
  LogicalResult convert(func::FuncOp func, const TileConfig &config) {
    for (Type t : llvm::concat<const Type>(func.getArgumentTypes(),
                                           func.getResultTypes()))
      if (auto tensor = dyn_cast<RankedTensorType>(t);
          !tensor || !tensor.hasStaticShape())
        return func.emitError() << "convert-neuron-to-nisa: expected static "
                                   "tensors in the signature, found "
                                << t;
    for (Operation &op : func.getBody().front().without_terminator())
      for (Type t : op.getResultTypes())
        if (auto tensor = dyn_cast<RankedTensorType>(t);
            !tensor || !tensor.hasStaticShape())
          return op.emitError() << "convert-neuron-to-nisa: expected static "
                                   "tensors, found "
                                << t;
    // An op whose result is returned writes straight into the output (the
    // first return of it; constants and views are copied).
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    DenseMap<Value, unsigned> outputs;
    for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
      Operation *def = value.getDefiningOp();
      if (def && !isa<ConstantOp, ReshapeOp>(def))
        outputs.try_emplace(value, i);
    }
    // Results neuron-outline-kernels writes into an input's buffer.
    DenseMap<unsigned, unsigned> inPlace;
    for (unsigned r = 0; r < func.getNumResults(); ++r)
      if (auto input =
              func.getResultAttrOfType<IntegerAttr>(r, "neuron.in_place")) {
        int64_t i = input.getInt();
        if (i < 0 || i >= int64_t(func.getNumArguments()) ||
            func.getArgumentTypes()[i] != func.getResultTypes()[r]) {
          return func.emitError()
                 << "convert-neuron-to-nisa: result " << r
                 << " is marked in place of input " << i
                 << ", which is not an input of its type";
        }
        inPlace[r] = i;
      }
    KernelLowering lowering(config, getOperation(), std::move(outputs),
                            func.getNumArguments(), std::move(inPlace));

    TypeConverter converter;
    converter.addConversion([](Type t) { return t; });
    converter.addConversion([](RankedTensorType t) -> Type {
      return t.hasStaticShape() ? Type(hbmType(t)) : Type();
    });
    ConversionTarget target(getContext());
    target.addLegalDialect<nisa::NisaDialect, memref::MemRefDialect,
                           affine::AffineDialect, arith::ArithDialect>();
    target.addIllegalDialect<NeuronDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp f) {
      return f != func || f->hasAttr("nisa.num_inputs");
    });
    target.addDynamicallyLegalOp<func::ReturnOp>(
        [](func::ReturnOp r) { return r.getNumOperands() == 0; });
    RewritePatternSet patterns(&getContext());
    patterns.add<FuncToKernel>(converter, &getContext(), config);
    patterns.add<ReturnToCopies>(converter, &getContext(), lowering);
    populateDataMovementPatterns(patterns, converter, lowering);
    populateElementwisePatterns(patterns, converter, lowering);
    populateReductionPatterns(patterns, converter, lowering);
    populateMatmulPatterns(patterns, converter, lowering);
    populateConvolutionPatterns(patterns, converter, lowering);

    // A pattern that cannot tile its op says why; an op no pattern takes
    // is named as not tiled yet, instead of the framework's message.
    bool reported = false;
    ScopedDiagnosticHandler handler(&getContext(), [&](Diagnostic &d) {
      if (d.getSeverity() != DiagnosticSeverity::Error)
        return failure();
      std::string message = d.str();
      StringRef prefix = "failed to legalize operation '";
      if (!StringRef(message).starts_with(prefix)) {
        reported = true;
        return failure(); // to the next handler
      }
      if (reported)
        return success(); // already explained
      reported = true;
      StringRef name = StringRef(message).drop_front(prefix.size());
      emitError(d.getLocation())
          << "convert-neuron-to-nisa: '" << name.take_until([](char c) {
               return c == '\'';
             })
          << "' is not tiled yet";
      return success();
    });
    ConversionConfig conversion;
    conversion.buildMaterializations = false;
    if (failed(applyPartialConversion(func, target, std::move(patterns),
                                      conversion)))
      return failure();
    if (func->hasAttr("neuron.kernel"))
      func->setAttr("neuron.kernel", UnitAttr::get(&getContext()));
    return success();
  }
};

} // namespace

void mlir::neuron::addTilingPasses(OpPassManager &pm,
                                   const ConvertNeuronToNisaOptions &convert) {
  pm.addPass(createConvertNeuronToNisa(convert));
  NisaSplitCoresOptions cores;
  cores.target = convert.target;
  cores.targetDir = convert.targetDir;
  cores.summary = convert.summary;
  pm.addPass(createNisaSplitCores(cores));
  NisaAllocateOptions allocate;
  allocate.buffers = convert.buffers;
  pm.addPass(createNisaAllocate(allocate));
  NisaScheduleOptions schedule;
  schedule.target = convert.target;
  schedule.targetDir = convert.targetDir;
  pm.addPass(createNisaSchedule(schedule));
}
