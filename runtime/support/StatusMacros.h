//===- StatusMacros.h - absl::Status propagation in the runtime -*- C++ -*-===//
//
// The two macros every runtime library uses to pass errors up: shared here
// so each library does not keep its own copy.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SUPPORT_STATUSMACROS_H
#define NEURON_RUNTIME_SUPPORT_STATUSMACROS_H

#include "absl/status/status.h"
#include "absl/status/statusor.h"

/// Returns the status of `expr` from the enclosing function when it fails.
#define NEURON_RETURN_IF_ERROR(expr)                                           \
  do {                                                                         \
    absl::Status status_ = (expr);                                             \
    if (!status_.ok())                                                         \
      return status_;                                                          \
  } while (false)

/// Declares `auto &name` bound to the value of the StatusOr `expr`, or returns
/// its status from the enclosing function when it failed.
#define NEURON_ASSIGN_OR_RETURN(name, expr)                                    \
  auto name##OrError = (expr);                                                 \
  if (!name##OrError.ok())                                                     \
    return name##OrError.status();                                             \
  auto &name = *name##OrError

#endif // NEURON_RUNTIME_SUPPORT_STATUSMACROS_H
