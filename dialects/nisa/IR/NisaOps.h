//===- NisaOps.h - nisa engine instructions --------------------*- C++ -*-===//

#ifndef NEURON_DIALECTS_NISA_IR_NISAOPS_H
#define NEURON_DIALECTS_NISA_IR_NISAOPS_H

#include "dialects/neuron/IR/NeuronDialect.h"
#include "dialects/nisa/IR/NisaDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/nisa/IR/NisaInterfaces.h.inc"

namespace mlir::nisa {
/// The memory effects of an engine instruction: it reads its read tiles and
/// writes its written tile.
void addTileEffects(
    EngineOpInterface op,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects);
} // namespace mlir::nisa

#define GET_OP_CLASSES
#include "dialects/nisa/IR/NisaOps.h.inc"

#endif // NEURON_DIALECTS_NISA_IR_NISAOPS_H
