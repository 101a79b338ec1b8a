//===- ShardToNeuron.h - upstream shard collectives to neuron --*- C++ -*-===//
//
// The pattern set behind `convert-shard-to-neuron`, and the check that says,
// with a location, why an op cannot be converted.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_LOWERING_SHARDTONEURON_SHARDTONEURON_H
#define NEURON_LOWERING_SHARDTONEURON_SHARDTONEURON_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class ConversionTarget;
class DialectRegistry;
class Operation;
class RewritePatternSet;
class SymbolTableCollection;

namespace neuron {

/// shard.all_reduce / all_gather / reduce_scatter / all_to_all to the neuron
/// collectives, and shard.all_reduce + shard.all_slice to
/// neuron.reduce_scatter. `symbolTables` resolves the grids and must outlive
/// the patterns.
void populateShardToNeuronPatterns(RewritePatternSet &patterns,
                                   SymbolTableCollection &symbolTables);

/// Marks every upstream shard collective illegal and neuron legal.
void configureShardToNeuronTarget(ConversionTarget &target);

/// Emits an error on `op` and fails if it is a shard collective the patterns
/// cannot convert (no neuron counterpart, unsupported reduction, dynamic
/// grid, element type the neuron collectives do not carry).
LogicalResult
checkShardCollectiveConvertible(Operation *op,
                                SymbolTableCollection &symbolTables);

/// Sharding rules upstream shard lacks: tensor.expand_shape and
/// collapse_shape (a collapsed dimension is split as the first dimension of
/// its group is, so heads reshaped out of a split projection stay split),
/// and tensor.extract_slice and insert_slice (a dimension stays split only
/// where the slice takes all of it, so halving each head keeps the heads
/// split).
void registerTensorShardingModels(DialectRegistry &registry);

} // namespace neuron
} // namespace mlir

#endif // NEURON_LOWERING_SHARDTONEURON_SHARDTONEURON_H
