//===- NisaDialect.h - nisa dialect declaration ----------------*- C++ -*-===//

#ifndef NEURON_DIALECTS_NISA_IR_NISADIALECT_H
#define NEURON_DIALECTS_NISA_IR_NISADIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"

#include "dialects/nisa/IR/NisaDialect.h.inc"
#include "dialects/nisa/IR/NisaEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/nisa/IR/NisaAttrs.h.inc"

namespace mlir::nisa {

/// The memory space of a tile type, if it is a memref in a nisa space.
std::optional<MemorySpace> getMemorySpace(Type type);

/// The limits the enclosing function declares (`nisa.limits`), if any.
LimitsAttr getLimits(Operation *op);

} // namespace mlir::nisa

#endif // NEURON_DIALECTS_NISA_IR_NISADIALECT_H
