//===- NeuronOps.h - neuron operations -------------------------*- C++ -*-===//

#ifndef NEURON_DIALECTS_NEURON_IR_NEURONOPS_H
#define NEURON_DIALECTS_NEURON_IR_NEURONOPS_H

#include "dialects/neuron/IR/NeuronDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dialects/neuron/IR/NeuronOps.h.inc"

#endif // NEURON_DIALECTS_NEURON_IR_NEURONOPS_H
