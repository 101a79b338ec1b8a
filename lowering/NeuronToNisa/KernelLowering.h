//===- KernelLowering.h - What the neuron-to-nisa patterns share -*- C++ -*-===//
//
// convert-neuron-to-nisa turns each function on tensors into a kernel on HBM
// buffers; one pattern set per op family (Matmul.cpp, Convolution.cpp,
// Elementwise.cpp, Reduction.cpp, DataMovement.cpp) rewrites each neuron op
// into DMA transfers and engine instructions on SBUF/PSUM tiles. This is
// what they share: the target's tile limits, the function being converted
// (where each result is stored), and the builders of tiles, transfers,
// views and tile loops.
//
// Loops: an iteration space is cut into tiles dimension by dimension
// (forEachTile); the full tiles of a dimension run in an `affine.for` and
// a partial last tile after it, so every tile has a static shape and the
// IR follows the program's structure, not its size. Offsets are affine
// functions of the loops' induction variables.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_LOWERING_NEURONTONISA_KERNELLOWERING_H
#define NEURON_LOWERING_NEURONTONISA_KERNELLOWERING_H

#include "dialects/neuron/IR/NeuronOps.h"
#include "dialects/nisa/IR/NisaOps.h"
#include "runtime/target/CostModel.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

#include <functional>

namespace mlir::neuron {

/// What the target allows a tile to be, from its description.
struct TileConfig {
  nisa::LimitsAttr limits;
  int64_t dmaQueues = 1;
  /// Bytes per partition one elementwise tile may take: what a transfer
  /// needs for peak DMA bandwidth (the target's dma.peak_bytes_per_partition)
  /// within an eighth of SBUF, so a large tensor moves as many transfers
  /// that pipeline with the engines.
  int64_t elementwiseBytes = 0;
  /// Bytes per partition a transfer needs for peak DMA bandwidth (the
  /// target's dma.peak_bytes_per_partition).
  int64_t dmaPeakBytes = 2048;
  /// HBM bytes per ns of the logical core, for the remarks' estimates.
  double hbmBytesPerNs = 1;
  /// The target's cost model, which weighs the lowering's choices.
  ::neuron::rt::CostModel cost;
  /// Emit a remark per op saying how it was tiled.
  bool summary = false;
};

/// One dimension of an iteration space cut into tiles: `extent` elements
/// from `start`, `tile` at a time.
struct TiledDim {
  int64_t extent = 1, tile = 1, start = 0;
};

/// Where one tile of an iteration space is: per dimension its offset (an
/// index value affine in the loops, or a constant), its size, and the
/// induction variable of the loop over that dimension (null for the partial
/// tile, or when one tile covers the dimension).
struct TilePosition {
  SmallVector<OpFoldResult> offsets;
  SmallVector<int64_t> sizes;
  SmallVector<Value> ivs;
};

/// The patterns converting one function share one of these.
class KernelLowering {
public:
  KernelLowering(const TileConfig &config, ModuleOp module,
                 DenseMap<Value, unsigned> outputs, unsigned numInputs,
                 DenseMap<unsigned, unsigned> inPlace)
      : config(config), module(module), outputs(std::move(outputs)),
        numInputs(numInputs), inPlace(std::move(inPlace)) {}

  const TileConfig &config;
  int64_t partitions() const { return config.limits.getPartitions(); }

  /// The HBM buffer `result` is written to: the kernel's output argument
  /// when the function returns it (or the input it is written in place
  /// of), else new scratch. A convolution's
  /// result (or its fusion's) that only a pad reads is written into the
  /// interior of the pad's buffer, filled first (paddedInPlace), so the
  /// pad copies nothing.
  Value resultBuffer(OpBuilder &b, Value result);
  /// Of the kernel's `arguments`, the input its output `output` is written
  /// into (neuron.in_place), or null.
  Value inPlaceInput(ValueRange arguments, unsigned output) const;
  /// The buffer a pad's producer already wrote its interior of, or null.
  Value paddedInPlace(PadOp pad) const { return padded.lookup(pad); }
  /// The window of `pad`'s result buffer `buffer` its input fills.
  static Value padInterior(OpBuilder &b, Location loc, PadOp pad,
                           Value buffer);
  /// Fills all of the HBM buffer `out` of `type` with `value`: one filled
  /// tile copied over it as [partitions, E / partitions] (tile by tile, the
  /// last partial) and its last E mod partitions elements as one row, so
  /// no size falls back to narrow transfers. Returns the filled tile.
  Value fill(OpBuilder &b, Location loc, Value out, RankedTensorType type,
             FloatAttr value);
  /// A global holding a constant's value, read where `op` was.
  Value constantBuffer(OpBuilder &b, ConstantOp op);

  /// A new SBUF or PSUM tile.
  Value tile(OpBuilder &b, Location loc, nisa::MemorySpace space,
             ArrayRef<int64_t> shape, Type element);
  /// A transfer on the next DMA queue (nisa-schedule reassigns them).
  void dma(OpBuilder &b, Location loc, Value src, Value dst);
  void activation(OpBuilder &b, Location loc, Value src, Value dst,
                  nisa::ActivationFunction function, Value bias = {},
                  double scale = 1.0);
  /// `src` copied into `dst` on the vector engine (a tensor_scalar passing
  /// the values through).
  void vectorCopy(OpBuilder &b, Location loc, Value src, Value dst);
  /// Whether the HBM buffer (or view) `buffer` is there when the kernel
  /// starts and nothing in it writes it: an input not written in place
  /// and not arriving later (kInputArrivalsAttr), or a constant.
  bool isReceived(Value buffer) const;
  /// A [partitions, 1] f32 SBUF column filled with `value` here (the
  /// activation's per-partition bias reads it). Made where it is read, not
  /// once per kernel: a column live through the kernel can cost a full
  /// kernel's rotating tiles their slots.
  Value constantColumn(OpBuilder &b, Location loc, double value,
                       int64_t partitions);
  /// Loads the transpose of the HBM window `src` [r, c] into the SBUF tile
  /// `dst` [c, r] (c at most the partitions): by one transfer through the
  /// transposed view, or on the tensor engine (natural loads of up to
  /// `partitions` rows, transposed into a PSUM bank's worth of columns,
  /// which the vector engine copies out, with the scalar engine when the
  /// chunk is two tiles wide or more), whichever the cost model says
  /// keeps the engines busy for less time, unless `onTensorEngine` says
  /// (a caller that has chosen for all its tiles). The transposes go to
  /// `scratch` (a PSUM tile shared by every call of a loop nest) when given,
  /// else to new PSUM tiles. Returns true for the tensor engine.
  bool loadTransposed(OpBuilder &b, Location loc, Value src, Value dst,
                      Value scratch = {},
                      std::optional<bool> onTensorEngine = std::nullopt);
  /// Loads the transposes of the column tiles of the HBM window `src` [r,
  /// w] (r at most a few blocks of partitions) on the tensor engine: each
  /// `partitions` rows in one transfer of all w columns (runs of w
  /// elements, where loadTransposed's loads run one tile wide), then tile
  /// j (columns [j * tileColumns, ...), `width` wide; tileColumns at most
  /// the partitions) transposed into `dstOf(b, j, width)` [width, r] as
  /// loadTransposed does it, into columns of `scratch` of its own where
  /// several tiles' fit side by side (the tensor engine then transposes
  /// them back to back). `afterChunk`, when given, is called after each
  /// PSUM chunk's transposes and copies, with the chunk's columns [c0, c0
  /// + columns) of dstOf's tiles and its column tiles [j0, j0 + tiles) of
  /// `src` (here one tile, j). With `alternate`, the copies out of
  /// PSUM take the vector and scalar engines in turn across the panel's
  /// chunks, not from the vector engine in each. With `interleave` g > 1,
  /// `src` is [partitions, g * w] instead: partition p holding g rows side
  /// by side (rows g * p .. g * p + g - 1 of a matrix, one run per
  /// partition where w is the whole row), loaded in one transfer; column
  /// q * partitions + p of dstOf's tiles is then the transpose of row
  /// g * p + q.
  using ChunkCallback =
      function_ref<void(OpBuilder &, int64_t c0, int64_t columns, int64_t j0,
                        int64_t tiles)>;
  void loadTransposedPanel(
      OpBuilder &b, Location loc, Value src, int64_t tileColumns,
      function_ref<Value(OpBuilder &, int64_t, int64_t)> dstOf, Value scratch,
      ChunkCallback afterChunk = {}, bool alternate = false,
      int64_t interleave = 1);
  /// As loadTransposedPanel (without interleaving), row tile by row tile:
  /// each `partitions` rows of `src` loaded, then their column tiles
  /// transposed, as many side by side in `scratch` as fit (a chunk), into
  /// those rows' columns of dstOf's tiles, the copies out of PSUM taking
  /// the vector and scalar engines in turn; `afterChunk` as there (the
  /// chunk's columns [c0, c0 + columns) are the row tile's). A row tile's
  /// staged rows are free once its own transposes are, not the last row
  /// tile's.
  void loadTransposedPanelByRows(
      OpBuilder &b, Location loc, Value src, int64_t tileColumns,
      function_ref<Value(OpBuilder &, int64_t, int64_t)> dstOf, Value scratch,
      ChunkCallback afterChunk);
  /// Column tiles of `element` one transfer of loadTransposedPanel takes:
  /// enough for a transfer's peak bandwidth per partition (dmaPeakBytes).
  int64_t transposePanelTiles(Type element) const;
  /// Loads the HBM window `src` into a new SBUF tile of its shape. A window
  /// repeating one value along each row (a zero innermost stride: a
  /// broadcast of per-row values, which a transfer would move one element
  /// per descriptor) loads one column and fills the rows on chip
  /// (fillColumn), or with `asColumn` returns that [rows, 1] column
  /// (computeTile reads one as per-partition scalars).
  Value load(OpBuilder &b, Location loc, Value src, bool asColumn = false);
  /// A new [rows, cols] tile of `column`'s [rows, 1] values repeated along
  /// each row: a tile of ones multiplied by each partition's value.
  Value fillColumn(OpBuilder &b, Location loc, Value column, int64_t cols);
  /// Whether loadTransposed takes the tensor engine for a window of type
  /// `src`.
  bool transposesOnTensorEngine(MemRefType src) const;
  /// The engines' time loadTransposed takes on the tensor engine for a
  /// window of type `src`: its loads, transposes and copies out of PSUM.
  double tensorEngineTransposeNs(MemRefType src) const;
  /// Nanoseconds the target's cost model gives instruction `op` (an
  /// executable's op name) writing `to` from `from`.
  double costNs(StringRef op, const ::neuron::rt::OperandShape &to,
                const ::neuron::rt::OperandShape &from) const {
    return config.cost.nanoseconds(::neuron::rt::costQueryFor(op, to, from));
  }
  /// The element type a tensor-engine transpose of `element` writes to
  /// PSUM: in the transpose mode (NeuronCore-v3 on) its own, 16 bits wide
  /// for 1-byte elements (the NKI Trainium2 guide: FP8 transposes write
  /// 16-bit elements); else a matmul's accumulator, f32 (the transpose a
  /// matmul with the identity).
  Type transposedType(Type element) const;
  /// The columns of transposed `element`s one PSUM bank holds (at least a
  /// tile's partitions): how many transposed rows one copy out of PSUM
  /// takes.
  int64_t transposeChunk(Type element) const;
  /// Records how `op` was tiled on its first tile (for people reading IR).
  void markTiling(Value firstTile, Operation *op, StringRef partition,
                  ArrayRef<int64_t> tileShape);

  /// A window of `memref` at `offsets` of `sizes`, stepping `steps`
  /// elements along each dimension (unit steps when empty).
  static Value view(OpBuilder &b, Location loc, Value memref,
                    ArrayRef<OpFoldResult> offsets, ArrayRef<int64_t> sizes,
                    ArrayRef<int64_t> steps = {});
  /// The contiguous buffer `memref` seen with another shape.
  static Value reinterpret(OpBuilder &b, Location loc, Value memref,
                           ArrayRef<int64_t> shape);
  /// An access pattern into the contiguous `buffer`: `sizes` and element
  /// `strides` from element `offset`.
  static Value stridedView(OpBuilder &b, Location loc, Value buffer,
                           OpFoldResult offset, ArrayRef<int64_t> sizes,
                           ArrayRef<int64_t> strides);
  /// The [sizes] window at `offsets` of a matrix `buffer`, or of batch
  /// `batch` of a [batch, rows, columns] one (rank-reduced to the matrix).
  static Value matrixView(OpBuilder &b, Location loc, Value buffer,
                          OpFoldResult batch, ArrayRef<OpFoldResult> offsets,
                          ArrayRef<int64_t> sizes);
  /// `buffer` with its dimensions permuted.
  static Value permutedView(OpBuilder &b, Location loc, Value buffer,
                            ArrayRef<int64_t> perm);
  /// An operand that is a view (a transpose read only by contractions and
  /// convolutions' filters, TransposeOp::isOperandView) reaches their
  /// patterns cast to the tensor's contiguous buffer type: the view
  /// itself, else `buffer`.
  static Value operandView(Value buffer);
  /// The contiguous `buffer` (of type `input`) seen as `result`, input
  /// dimension i at result dimension dims[i], the rest repeated (stride 0).
  static Value broadcastView(OpBuilder &b, Location loc, Value buffer,
                             RankedTensorType input, RankedTensorType result,
                             ArrayRef<int64_t> dims);

  /// sum(terms[i].first * terms[i].second) + constant, folded to a constant
  /// or an affine.apply of the loops' induction variables.
  static OpFoldResult affineSum(OpBuilder &b, Location loc,
                                ArrayRef<std::pair<OpFoldResult, int64_t>> terms,
                                int64_t constant = 0);

  /// Calls `body` once per tile of the iteration space `dims`, the full
  /// tiles of each dimension in a loop and its partial tile after it.
  static void forEachTile(OpBuilder &b, Location loc, ArrayRef<TiledDim> dims,
                          function_ref<void(OpBuilder &, const TilePosition &)>
                              body);

  /// The index of the tile at `at` along dimension `d` cut into tiles of
  /// `tile`: its loop's induction variable, or the constant index of a
  /// partial or only tile.
  static OpFoldResult tileIndex(OpBuilder &b, const TilePosition &at,
                                unsigned d, int64_t tile);

  /// How a matmul at `at` accumulates over the reduction dimensions
  /// `reduction` (indices into `at`): never (the first tile of every one:
  /// it starts the sum), always (a later tile of one), or restarting where
  /// the induction variables it returns are all 0.
  struct Accumulation {
    bool accumulate = false;
    SmallVector<Value> restart;
  };
  static Accumulation accumulation(const TilePosition &at,
                                   ArrayRef<unsigned> reduction);

private:
  /// `src` copied into `dst` by the vector engine on even turns, the scalar
  /// engine (an identity activation) on odd ones: copies out of PSUM taking
  /// the two in turn.
  void copyInTurn(OpBuilder &b, Location loc, Value src, Value dst,
                  int64_t turn);
  /// Transposes the [r, c] matrix whose rows [r0, r0 + rows) `rowsAt`
  /// gives as an SBUF tile (at most `partitions` rows) into the SBUF tile
  /// `dst` [c, r] on the tensor engine, a PSUM bank's worth of columns at a
  /// time (in `scratch` when given), each tile's columns copied out by the
  /// vector and scalar engines in turn (from the vector engine in each
  /// chunk, or where `copies` counts the copies so far, continuing it).
  /// `afterChunk` is called after each chunk [c0, c0 + width) of dst's
  /// columns is copied out.
  void transposeThroughPsum(
      OpBuilder &b, Location loc, function_ref<Value(int64_t, int64_t)> rowsAt,
      int64_t r, int64_t c, Type element, Value dst, Value scratch,
      function_ref<void(int64_t c0, int64_t width)> afterChunk = {},
      int64_t *copies = nullptr);

  ModuleOp module;
  DenseMap<Value, unsigned> outputs;
  DenseMap<Operation *, Value> padded;
  unsigned numInputs;
  /// Output index -> the input it is written in place of.
  DenseMap<unsigned, unsigned> inPlace;
  int64_t nextQueue = 0, nextGlobal = 0;
};

/// Bytes of one element of `element` (a byte for i1 and fp8).
int64_t elementBytes(Type element);

/// How the cost model sees a contiguous on-chip tile of `partitions`
/// holding the elements of `natural` (an operand's shape in HBM).
::neuron::rt::OperandShape onChipShape(::neuron::rt::OperandShape natural,
                                       int64_t partitions);

/// The HBM memref type of a tensor type.
MemRefType hbmType(RankedTensorType type);

/// The scalar-engine function of a unary neuron op (casts convert on store).
std::optional<nisa::ActivationFunction> activationOf(Operation *op);
/// The vector-engine operation of a binary neuron op.
std::optional<nisa::AluOp> aluOf(Operation *op);
/// Computes one elementwise neuron op (unary, binary, compare, select) on
/// tiles; an operand read as an immediate (neuron::immediateOf) has a null
/// tile.
void computeTile(OpBuilder &b, KernelLowering &k, Location loc, Operation *op,
                 ArrayRef<Value> operands, Value result);
/// Elementwise ops see every operand as the same 2-D view: [P, E/P] when
/// the E elements split evenly over the P partitions, else [rows, last dim].
std::pair<int64_t, int64_t> elementwiseView(RankedTensorType type, int64_t p);
/// The view of elementwiseView for a loop nest over operands of at most
/// `widestBits` per element, moving `transfers` tiles and computing `ops`
/// per tile, on fewer partitions when the cost model times it shorter: a
/// tensor of one tile spread over every partition moves a descriptor per
/// partition for a few bytes each.
std::pair<int64_t, int64_t> elementwiseView(const KernelLowering &k,
                                            RankedTensorType type,
                                            int64_t widestBits,
                                            int64_t transfers, int64_t ops);

/// Ops computed on each output tile after a producer, and the HBM buffers
/// some of their values are stored to (a fusion's results).
struct Epilogue {
  SmallVector<Operation *> ops;
  DenseMap<Value, Value> stores;
  /// HBM buffers of the fusion's inputs, by block argument.
  DenseMap<Value, Value> inputs;
};

/// Computes `epilogue`'s ops on one tile. `tiles` holds the tiles already
/// on chip; other operands are loaded from HBM through `window`, which maps
/// a buffer of the group's shape to this tile's part of it (a broadcast is
/// read through its zero-stride view, never materialised), and results
/// stored through it. A producer whose window is not of the tile's shape
/// (a depthwise convolution's blocks of channels beside blocks of rows)
/// gives `load`, which makes a tile of `buffer`'s part, and `store`, which
/// writes a tile into `buffer`'s part; with both, `window` may be null.
/// A run of two or more ops one activation computes (ScaledActivation) from
/// a tile on chip is that one instruction.
void applyEpilogue(OpBuilder &b, KernelLowering &k, Location loc,
                   const Epilogue &epilogue, DenseMap<Value, Value> &tiles,
                   ArrayRef<int64_t> tileShape,
                   function_ref<Value(Value)> window,
                   function_ref<Value(Value)> load = nullptr,
                   function_ref<void(Value, Value)> store = nullptr);

/// Epilogue ops the scalar engine computes as one activation,
/// function(x * scale + bias): a multiply by an immediate, an add (or
/// subtraction) of one, then an activation, each optional, in that order,
/// each reading the value before it, which nothing else reads or stores.
struct ScaledActivation {
  SmallVector<Operation *, 3> ops;
  nisa::ActivationFunction function = nisa::ActivationFunction::identity;
  double scale = 1.0;
  std::optional<double> bias;
  /// The value the activation computes: the last op's result (of a run
  /// with ops).
  Value result() const { return ops.back()->getResult(0); }
};
/// The longest such run of `epilogue`'s ops starting at ops[first], which
/// reads `input` (no ops when ops[first] does not start one).
ScaledActivation scaledActivationAt(const Epilogue &epilogue, size_t first,
                                    Value input);
/// The epilogue's leading run the scalar engine computes while evacuating
/// `result` from PSUM: none when anything else reads the raw `result` (it
/// is stored to `out`, or has another user).
ScaledActivation evacuationOf(Value result, Value out,
                              const Epilogue *epilogue);
/// Emits `run` (an identity without ops) from `src`, the tile holding
/// `value`, into `dst`, and records in `tiles` what `dst` holds: `value`
/// when the run has no ops, else every op of the run (applyEpilogue skips
/// them; only the last one's value is read).
void emitScaledActivation(OpBuilder &b, KernelLowering &k, Location loc,
                          const ScaledActivation &run, Value value, Value src,
                          Value dst, DenseMap<Value, Value> &tiles);

/// Tiles matmul or batch_matmul `op` whose operands live in `lhs` and
/// `rhs`, storing its result to `out` (null in a fusion that does not
/// return it) and, in a fusion, computing `epilogue` on each output tile
/// (Matmul.cpp).
LogicalResult lowerMatmul(OpBuilder &b, KernelLowering &k, Operation *op,
                          Value lhs, Value rhs, Value out,
                          const Epilogue *epilogue, Operation *fusion);

/// Tiles conv2d `op` (nchw_fchw, float, no bias or padding, not depthwise)
/// on the tensor engine, its operands in `image` and `filter`, storing its
/// result to `out` (null in a fusion that does not return it) and, in a
/// fusion, computing `epilogue` on each output tile (Convolution.cpp).
LogicalResult lowerConv2D(OpBuilder &b, KernelLowering &k, Conv2DOp op,
                          Value image, Value filter, Value out,
                          const Epilogue *epilogue, Operation *fusion);
/// Whether lowerConv2D takes `op`: the tensor engine's convolutions.
bool isTensorEngineConv(const KernelLowering &k, Conv2DOp op);
/// Tiles depthwise conv2d `op` on the vector engine (Convolution.cpp), as
/// lowerConv2D does the others.
LogicalResult lowerDepthwise(OpBuilder &b, KernelLowering &k, Conv2DOp op,
                             Value image, Value filter, Value out,
                             const Epilogue *epilogue, Operation *fusion);
/// Whether lowerDepthwise takes `op`.
bool isVectorEngineConv(const KernelLowering &k, Conv2DOp op);

/// How a matmul is tiled: with `block` > 0, `block` tiles of one operand
/// (rhs when `rhsResident`, else lhs) stay in SBUF for all of K while the
/// other operand's tiles stream past them; with `block` = 0 both stream.
/// `trafficBytes` are what it reads from HBM (per batch), `ns` its
/// estimated time.
struct MatmulPlan {
  bool rhsResident = false;
  int64_t block = 0;
  int64_t trafficBytes = 0;
  double ns = 0;
  /// Its estimate is its transfers' time (HBM or DMA engines), not its
  /// tensor-engine work.
  bool memoryBound = false;
  /// The busiest physical core's share of its tensor-engine work, as
  /// nisa-split-cores shares its nests out (1 on one physical core).
  double share = 1;
};

/// Which matmul operands load transposed on the tensor engine.
struct MatmulTransposes {
  bool lhs = false, rhs = false;
};

/// What matmul plans are timed with: the logical core's HBM bandwidth, the
/// time of writing the result to HBM at it (the same for every plan), all
/// the matmuls' tensor-engine time, and one tile's transpose and copy out
/// of PSUM.
struct MatmulCosts {
  double hbmBytesPerNs = 1, storeNs = 0, matmulNs = 0, transposeNs = 0,
         copyNs = 0;
  /// The logical core's DMA engines' time per byte of lhs as it loads and
  /// of rhs loaded in transfers of `columns` columns per row, and their
  /// time storing the result (descriptors and fixed costs included).
  double lhsDmaNsPerByte = 0, storeDmaNs = 0;
  std::function<double(int64_t columns)> rhsDmaNsPerByte;
  /// Bytes per partition a transfer needs for peak DMA bandwidth: how many
  /// N tiles a streamed rhs transfer spreads over.
  int64_t dmaPeakBytes = 0;
  /// The logical core's physical cores, which nisa-split-cores shares the
  /// plan's loop nests between.
  int64_t physicalCores = 1;
};

/// The plans for `batches` of [m, k] x [k, n] of `elementBytes`-byte
/// elements under `limits`, each output tile taking `finishBytes` per
/// partition to finish, lhs tiles the tensor engine transposes loaded
/// `lhsPanel` K tiles at a time (KernelLowering::loadTransposedPanel; 0
/// when it transposes none), a PSUM bank kept for the `transposes`, and
/// whether a held lhs block's transfers all sum in one set of accumulators
/// (`sharedSums`), the shortest under `costs` first (never empty:
/// streaming both always fits).
/// `early` names the operand (rhs when true) the kernel receives while it
/// awaits or computes the other: a block of it held for the other's single
/// tile is then a plan too, and the shortest such plan comes first (its
/// loads and transposes issue before the other operand's).
SmallVector<MatmulPlan> matmulPlans(int64_t m, int64_t k, int64_t n,
                                    int64_t batches, int64_t elementBytes,
                                    int64_t finishBytes,
                                    int64_t lhsPanel,
                                    MatmulTransposes transposes,
                                    bool sharedSums,
                                    const MatmulCosts &costs,
                                    nisa::LimitsAttr limits,
                                    std::optional<bool> early = std::nullopt);
/// "lhs resident in blocks of 4 M tiles", for remarks.
std::string describe(const MatmulPlan &plan);

/// A matmul's tuned plan, on the op (or its fusion): its rank among the
/// plans matmulPlans orders, and, from a tuning record, the plan that rank
/// was (lowerMatmul warns and takes the first plan when they differ). A
/// kernel records the plans its matmuls took in kTunedPlans.
inline constexpr llvm::StringLiteral kPlanRank = "neuron.plan_rank";
inline constexpr llvm::StringLiteral kPlanExpected = "neuron.plan_expected";
inline constexpr llvm::StringLiteral kTunedPlans = "neuron.matmul_plans";

/// Where convert-neuron-to-nisa's plan search keeps its records, and the
/// options its probes compile with.
struct TuningOptions {
  std::string cacheDir, target, targetDir;
  int64_t buffers = 16;
};

/// Chooses the plan of every matmul and batch_matmul of a function `body`, alone or
/// fused, by compiling and scheduling the op alone with each of its best
/// few plans (convert-neuron-to-nisa, nisa-allocate, nisa-schedule) and
/// keeping the fastest, or reads the choice from the tuning record of the
/// op's signature and target in `options.cacheDir`, and writes the record
/// after a search. A corrupt or stale record is a warning and searched
/// again (MatmulTuning.cpp).
LogicalResult tuneMatmuls(Block &body, const TileConfig &config,
                          const TuningOptions &options);

/// The time nisa-schedule predicts for `anchor` (a matmul or batch_matmul,
/// or a fusion of one) compiled alone into a kernel of its own with the
/// plan the compile takes without a tuning cache, as the tuning probes it;
/// fails when it does not compile.
FailureOr<double> scheduledAloneNs(Operation *anchor,
                                   const TuningOptions &options);

/// The first on-chip tile allocated after `before` in `block` (at its start
/// when null), loops included: the tile a lowering marks with its tiling.
Value firstTileAfter(Block *block, Operation *before);

/// The pattern sets, one per op family; each pattern uses `lowering`.
void populateDataMovementPatterns(RewritePatternSet &patterns,
                                  const TypeConverter &converter,
                                  KernelLowering &lowering);
void populateElementwisePatterns(RewritePatternSet &patterns,
                                 const TypeConverter &converter,
                                 KernelLowering &lowering);
void populateReductionPatterns(RewritePatternSet &patterns,
                               const TypeConverter &converter,
                               KernelLowering &lowering);
void populateMatmulPatterns(RewritePatternSet &patterns,
                            const TypeConverter &converter,
                            KernelLowering &lowering);
void populateConvolutionPatterns(RewritePatternSet &patterns,
                                 const TypeConverter &converter,
                                 KernelLowering &lowering);

/// Base of the patterns: a neuron op with the shared lowering.
template <typename Op>
class NisaPattern : public OpConversionPattern<Op> {
public:
  NisaPattern(const TypeConverter &converter, MLIRContext *context,
              KernelLowering &lowering)
      : OpConversionPattern<Op>(converter, context), k(lowering) {}

protected:
  KernelLowering &k;
};

} // namespace mlir::neuron

#endif // NEURON_LOWERING_NEURONTONISA_KERNELLOWERING_H
