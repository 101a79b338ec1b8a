//===- NeuronDialect.h - neuron dialect declaration ------------*- C++ -*-===//
//
// The `neuron` dialect, its enums and attributes. Include NeuronOps.h for the
// operations.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_DIALECTS_NEURON_IR_NEURONDIALECT_H
#define NEURON_DIALECTS_NEURON_IR_NEURONDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"

#include "dialects/neuron/IR/NeuronDialect.h.inc"
#include "dialects/neuron/IR/NeuronEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/neuron/IR/NeuronAttrs.h.inc"

#include "mlir/IR/BuiltinTypes.h"

#define GET_TYPEDEF_CLASSES
#include "dialects/neuron/IR/NeuronTypes.h.inc"

#endif // NEURON_DIALECTS_NEURON_IR_NEURONDIALECT_H
