//===- LinalgToNeuron.h - linalg/tensor/arith to neuron --------*- C++ -*-===//
//
// Pattern sets that raise linalg-on-tensors (and the tensor/arith/math glue
// around it) into the neuron dialect. Each is reusable on its own; the
// `convert-linalg-to-neuron` pass applies all of them.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_LOWERING_LINALGTONEURON_LINALGTONEURON_H
#define NEURON_LOWERING_LINALGTONEURON_LINALGTONEURON_H

namespace mlir {
class RewritePatternSet;

namespace neuron {

/// Contractions to matmul/batch_matmul, convolutions to conv2d, named
/// pooling to pool2d.
void populateContractionPatterns(RewritePatternSet &patterns);

/// Any other linalg op with an elementwise or sum/max/min-reduction body.
void populateStructuredOpPatterns(RewritePatternSet &patterns);

/// tensor reshapes, slices, concatenations, pads, constants and gathers.
void populateTensorOpPatterns(RewritePatternSet &patterns);

/// Slices read or written at a position read at run time (part of the
/// tensor op patterns; neuron-prepare-sharding applies them alone).
void populateDynamicSlicePatterns(RewritePatternSet &patterns);

/// arith/math ops applied to whole tensors.
void populateTensorElementwisePatterns(RewritePatternSet &patterns);

/// All of the above.
void populateLinalgToNeuronPatterns(RewritePatternSet &patterns);

} // namespace neuron
} // namespace mlir

#endif // NEURON_LOWERING_LINALGTONEURON_LINALGTONEURON_H
