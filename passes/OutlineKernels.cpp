//===- OutlineKernels.cpp - graphs into programs of kernels ---------------===//
//
// A graph becomes a program: constants (but the splats a kernel reads as
// immediates), host calls, collectives, views of values the program holds
// (reshapes, contiguous slices) and joins of collective results stay in
// it; the device ops between host calls and collectives become kernels. The
// cuts follow the graph's repetition (see Passes.td), and kernels that print
// the same are one kernel.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/neuron/IR/NeuronOps.h"
#include "dialects/nisa/IR/NisaDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONOUTLINEKERNELS
#include "passes/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;

/// A kernel result attribute: the input whose buffer it is written into.
static constexpr StringLiteral kInPlace = "neuron.in_place";

/// The input of `kernel` whose buffer its result `r` can be written into,
/// or -1: the result is a dynamic_update_slice of that input, which nothing
/// else in the kernel reads, and the program value passed for it
/// (`programInputs`) is read by the ops becoming the kernel (`inside`)
/// alone and owns its tensor (a program argument or an earlier step's
/// result, not a constant or a view of another value).
static int64_t inPlaceInput(func::FuncOp kernel, unsigned r,
                            ArrayRef<Value> programInputs,
                            const DenseSet<Operation *> &inside) {
  auto ret = cast<func::ReturnOp>(kernel.getBody().front().getTerminator());
  auto update = ret.getOperand(r).getDefiningOp<DynamicUpdateSliceOp>();
  auto dest = update ? dyn_cast<BlockArgument>(update.getDest())
                     : BlockArgument();
  if (!dest || !dest.hasOneUse())
    return -1;
  Value value = programInputs[dest.getArgNumber()];
  Operation *def = value.getDefiningOp();
  bool ownsTensor = !def || isa<LaunchOp, HostCallOp, CustomKernelOp,
                                CollectiveDoneOp>(def);
  bool readHereAlone = llvm::all_of(value.getUsers(), [&](Operation *user) {
    return inside.contains(user);
  });
  return ownsTensor && readHereAlone ? int64_t(dest.getArgNumber()) : -1;
}

namespace {
using Segment = ArrayRef<Operation *>;

/// A repeated stretch of a run of ops: `count` copies of `period` ops from
/// `start`.
struct Repetition {
  size_t start = 0, period = 0, count = 0;
};
} // namespace

/// Ids equal for ops with the same name, attributes and types.
static SmallVector<unsigned> signatures(Segment ops) {
  DenseMap<llvm::hash_code, unsigned> ids;
  SmallVector<unsigned> result;
  for (Operation *op : ops) {
    llvm::hash_code h = llvm::hash_combine(
        op->getName().getAsOpaquePointer(),
        op->getRawDictionaryAttrs().getAsOpaquePointer(),
        op->getPropertiesAsAttribute().getAsOpaquePointer(),
        llvm::hash_combine_range(op->getOperandTypes().begin(),
                                 op->getOperandTypes().end()),
        llvm::hash_combine_range(op->getResultTypes().begin(),
                                 op->getResultTypes().end()));
    result.push_back(ids.try_emplace(h, ids.size()).first->second);
  }
  return result;
}

/// For each cut position c in [0, n], how many values defined before c are
/// used at or after c (uses outside `ops` count as after the end).
static SmallVector<int64_t> liveAcrossCuts(Segment ops) {
  DenseMap<Operation *, size_t> index;
  for (auto [i, op] : llvm::enumerate(ops))
    index[op] = i;
  SmallVector<int64_t> delta(ops.size() + 2, 0);
  for (auto [i, op] : llvm::enumerate(ops))
    for (Value result : op->getResults()) {
      size_t last = i;
      for (Operation *user : result.getUsers()) {
        auto it = index.find(user);
        last = std::max(last, it == index.end() ? ops.size() : it->second);
      }
      if (last > i) {
        ++delta[i + 1];
        --delta[last + 1];
      }
    }
  SmallVector<int64_t> live(ops.size() + 1, 0);
  int64_t running = 0;
  for (size_t c = 0; c <= ops.size(); ++c)
    live[c] = running += delta[c];
  return live;
}

/// The longest stretch of `ops` that repeats at least twice with a period
/// of at least `minPeriod`, cut where the fewest values are live.
static std::optional<Repetition> findRepetition(Segment ops,
                                                size_t minPeriod) {
  size_t n = ops.size();
  if (n < 2 * minPeriod)
    return std::nullopt;
  SmallVector<unsigned> sig = signatures(ops);
  // The period under which the most signatures coincide.
  size_t period = 0, bestMatches = 0;
  for (size_t p = std::max<size_t>(minPeriod, 1); p <= n / 2; ++p) {
    size_t matches = 0;
    for (size_t i = 0; i + p < n; ++i)
      matches += sig[i] == sig[i + p];
    if (matches > bestMatches) {
      bestMatches = matches;
      period = p;
    }
  }
  if (bestMatches < period || period == 0)
    return std::nullopt;
  // The longest run of coinciding positions: [first, first + length + p) is
  // periodic.
  size_t first = 0, length = 0;
  for (size_t i = 0, runStart = 0; i + period < n; ++i) {
    if (sig[i] != sig[i + period]) {
      runStart = i + 1;
      continue;
    }
    if (i + 1 - runStart > length) {
      length = i + 1 - runStart;
      first = runStart;
    }
  }
  size_t end = first + length + period;
  if (end - first < 2 * period)
    return std::nullopt;
  // The phase with the fewest live values per cut, among phases keeping at
  // least two copies.
  SmallVector<int64_t> live = liveAcrossCuts(ops);
  std::optional<Repetition> best;
  double bestCost = 0;
  for (size_t phase = 0; phase < period; ++phase) {
    size_t start = first + phase, count = (end - start) / period;
    if (count < 2)
      break;
    int64_t total = 0;
    for (size_t k = 0; k <= count; ++k)
      total += live[start + k * period];
    // Ties go to the phase keeping more copies.
    double cost = double(total) / double(count + 1);
    if (!best || cost < bestCost ||
        (cost == bestCost && count > best->count)) {
      best = Repetition{start, period, count};
      bestCost = cost;
    }
  }
  return best;
}

/// Cuts `ops` into kernel segments, appending them to `segments`.
static void cutIntoSegments(Segment ops, size_t minPeriod,
                            SmallVectorImpl<Segment> &segments,
                            std::optional<Repetition> &largest) {
  if (ops.empty())
    return;
  std::optional<Repetition> rep = findRepetition(ops, minPeriod);
  if (!rep) {
    segments.push_back(ops);
    return;
  }
  if (!largest || rep->period * rep->count > largest->period * largest->count)
    largest = rep;
  size_t end = rep->start + rep->period * rep->count;
  cutIntoSegments(ops.take_front(rep->start), minPeriod, segments, largest);
  for (size_t k = 0; k < rep->count; ++k)
    segments.push_back(ops.slice(rep->start + k * rep->period, rep->period));
  cutIntoSegments(ops.drop_front(end), minPeriod, segments, largest);
}

/// Whether `slice` reads one contiguous range of its input: unit strides,
/// and a window that is [1, ..., 1, any, full, ..., full].
static bool isContiguous(SliceOp slice) {
  if (llvm::any_of(slice.getStrides(), [](int64_t s) { return s != 1; }))
    return false;
  ArrayRef<int64_t> in = slice.getInput().getType().getShape();
  ArrayRef<int64_t> out = slice.getType().getShape();
  size_t k = 0;
  while (k < out.size() && out[k] == 1)
    ++k;
  for (size_t j = k + 1; j < out.size(); ++j)
    if (out[j] != in[j])
      return false;
  return true;
}

/// Program steps that split the device ops into separate kernels: host
/// calls, collectives (which move data between cores) and user kernels
/// (kernels already).
static bool isProgramStep(Operation *op) {
  return isa<HostCallOp, CustomKernelOp, AllReduceOp, AllGatherOp,
             ReduceScatterOp, AllToAllOp, AllSliceOp, CollectiveStartOp,
             CollectiveDoneOp>(op);
}

/// Whether `op` stays in the program: program steps, constants, views
/// of program values (reshapes, contiguous slices) or of the results of
/// kernels cut earlier (`earlier`), which name bytes the program already
/// holds, and joins of collective results. Slicing weights out of one flat
/// parameter in the program keeps the layers' kernels identical, and so
/// does slicing row chunks out of an earlier kernel's result.
static bool staysInProgram(Operation *op, const DenseSet<Operation *> &program,
                           const DenseSet<Operation *> &earlier) {
  if (isProgramStep(op) || isa<ConstantOp, tensor::EmptyOp>(op))
    return true;
  if (auto concat = dyn_cast<ConcatOp>(op))
    return joinsCollectiveResults(concat);
  auto slice = dyn_cast<SliceOp>(op);
  if (!isa<ReshapeOp>(op) && !(slice && isContiguous(slice)))
    return false;
  Operation *def = op->getOperand(0).getDefiningOp();
  return !def || program.contains(def) || (slice && earlier.contains(def));
}

/// Reorders `block` so that ops come in a depth-first post-order of the
/// results' dependencies, operands in order: a layer is then laid out the
/// same way wherever it occurs, whatever order the frontend emitted its
/// independent ops in. Ops the results do not depend on keep their order
/// at the end.
static void canonicalOrder(Block &block) {
  Operation *terminator = block.getTerminator();
  DenseSet<Operation *> placed;
  SmallVector<Operation *> order;
  // (op, next operand to visit)
  SmallVector<std::pair<Operation *, unsigned>> stack;
  auto visit = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (def && def->getBlock() == &block && !placed.contains(def)) {
      placed.insert(def);
      stack.push_back({def, 0});
    }
  };
  for (Value v : terminator->getOperands()) {
    visit(v);
    while (!stack.empty()) {
      auto &[op, next] = stack.back();
      if (next < op->getNumOperands()) {
        visit(op->getOperand(next++));
        continue;
      }
      order.push_back(op);
      stack.pop_back();
    }
  }
  for (Operation &op : block.without_terminator())
    if (!placed.contains(&op))
      order.push_back(&op);
  for (Operation *op : order)
    op->moveBefore(terminator);
}

namespace {
struct OutlineKernels
    : mlir::neuron::impl::NeuronOutlineKernelsBase<OutlineKernels> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    byBody.clear();
    customKernels.clear();
    nextKernel = 0;
    // Graphs: not kernels, programs, or user kernels nothing bound.
    SmallVector<func::FuncOp> graphs;
    for (func::FuncOp f : module.getOps<func::FuncOp>())
      if (!f.isDeclaration() && !f->hasAttr("neuron.kernel") &&
          !f->hasAttr("neuron.program") &&
          !f->hasAttr(nisa::NisaDialect::kImplements))
        graphs.push_back(f);
    for (func::FuncOp f : graphs)
      outline(f);
  }

  void outline(func::FuncOp graph) {
    Block &body = graph.getBody().front();
    canonicalOrder(body);
    // The device ops between host calls, in block order.
    DenseSet<Operation *> program, earlier;
    SmallVector<SmallVector<Operation *>> runs(1);
    for (Operation &op : body.without_terminator()) {
      if (!staysInProgram(&op, program, earlier)) {
        runs.back().push_back(&op);
        continue;
      }
      program.insert(&op);
      if (isProgramStep(&op) && !runs.back().empty()) {
        earlier.insert(runs.back().begin(), runs.back().end());
        runs.emplace_back();
      }
    }
    SmallVector<Segment> segments;
    std::optional<Repetition> largest;
    for (const SmallVector<Operation *> &run : runs)
      cutIntoSegments(run, std::max<int64_t>(1, minLayerOps), segments,
                      largest);

    graph->setAttr("neuron.program", UnitAttr::get(&getContext()));
    int64_t launches = 0;
    for (Segment segment : segments)
      launch(graph, segment), ++launches;
    // A user kernel is launched as it is.
    graph.walk([&](CustomKernelOp custom) {
      OpBuilder b(custom);
      auto step =
          LaunchOp::create(b, custom.getLoc(), custom.getResultTypes(),
                           custom.getKernel(), custom.getInputs());
      custom.replaceAllUsesWith(step.getResults());
      customKernels.insert(custom.getKernel());
      custom.erase();
      ++launches;
    });
    if (summary) {
      InFlightDiagnostic remark = graph.emitRemark()
                                  << "neuron-outline-kernels: " << launches
                                  << " launches of "
                                  << byBody.size() + customKernels.size()
                                  << " kernels";
      if (!customKernels.empty())
        remark << " (" << customKernels.size() << " written by the user)";
      if (largest)
        remark << "; a layer of " << largest->period << " ops repeats "
               << largest->count << " times";
    }
  }

  /// Replaces `segment` by a launch of its kernel, creating the kernel
  /// unless one with the same body exists.
  void launch(func::FuncOp graph, Segment segment) {
    DenseSet<Operation *> inside(segment.begin(), segment.end());
    llvm::SetVector<Value> inputs;
    // Splat constants the kernel reads only as immediates: its own.
    llvm::SetVector<Operation *> immediates;
    SmallVector<Value> outputs;
    for (Operation *op : segment) {
      for (OpOperand &use : op->getOpOperands()) {
        Operation *def = use.get().getDefiningOp();
        if (def && inside.contains(def))
          continue;
        if (isa_and_present<ConstantOp>(def) &&
            readAsImmediates(use.get(), [&](Operation *reader) {
              return inside.contains(reader);
            }))
          immediates.insert(def);
        else
          inputs.insert(use.get());
      }
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              return !inside.contains(user);
            }))
          outputs.push_back(result);
    }

    OpBuilder b(graph);
    auto type = b.getFunctionType(
        llvm::to_vector(llvm::map_range(inputs, [](Value v) { return v.getType(); })),
        llvm::to_vector(llvm::map_range(outputs, [](Value v) { return v.getType(); })));
    auto kernel =
        func::FuncOp::create(b, graph.getLoc(), "__neuron_candidate", type);
    kernel.setPrivate();
    kernel->setAttr("neuron.kernel", b.getUnitAttr());
    Block *entry = kernel.addEntryBlock();
    IRMapping mapping;
    mapping.map(inputs.getArrayRef(), entry->getArguments());
    b.setInsertionPointToStart(entry);
    for (Operation *op : llvm::concat<Operation *const>(immediates, segment))
      b.clone(*op, mapping);
    func::ReturnOp::create(
        b, graph.getLoc(),
        llvm::to_vector(llvm::map_range(
            outputs, [&](Value v) { return mapping.lookup(v); })));

    // Results written into an input's buffer, marked before the kernel is
    // printed: kernels in place and not are different kernels.
    SmallVector<int64_t> inPlace;
    for (unsigned r = 0; r < outputs.size(); ++r) {
      inPlace.push_back(inPlaceInput(kernel, r, inputs.getArrayRef(), inside));
      if (inPlace.back() >= 0)
        kernel.setResultAttr(r, kInPlace, b.getI64IntegerAttr(inPlace.back()));
    }

    // The same body is the same kernel.
    std::string text;
    llvm::raw_string_ostream os(text);
    kernel.print(os, OpPrintingFlags().useLocalScope());
    auto [it, inserted] = byBody.try_emplace(text, kernel);
    if (inserted) {
      // Unique among the module's symbols (a user kernel may hold one).
      std::string name;
      do
        name = (graph.getName() + "_kernel" + std::to_string(nextKernel++))
                   .str();
      while (SymbolTable::lookupSymbolIn(getOperation(), name));
      kernel.setName(name);
    } else {
      kernel.erase();
      kernel = it->second;
    }

    b.setInsertionPointAfter(segment.back());
    auto step = LaunchOp::create(b, segment.front()->getLoc(),
                                 type.getResults(), kernel.getName(),
                                 inputs.getArrayRef());
    if (llvm::any_of(inPlace, [](int64_t input) { return input >= 0; }))
      step.setInPlace(inPlace);
    for (auto [from, to] : llvm::zip(outputs, step.getResults()))
      from.replaceAllUsesWith(to);
    for (Operation *op : llvm::reverse(segment))
      op->erase();
    for (Operation *constant : immediates)
      if (constant->use_empty())
        constant->erase();
  }

  /// Kernels by their printed body.
  llvm::StringMap<func::FuncOp> byBody;
  /// The user kernels launched.
  llvm::StringSet<> customKernels;
  /// The number the next kernel's name takes.
  int64_t nextKernel = 0;
};
} // namespace
