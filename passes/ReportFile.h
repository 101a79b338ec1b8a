//===- ReportFile.h - Reports written by passes ----------------*- C++ -*-===//
//
// The JSON reports passes write (coverage, collective placement, memory
// timeline) replace their file whole, as the runtime's writers do.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_PASSES_REPORTFILE_H
#define NEURON_PASSES_REPORTFILE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class Operation;
} // namespace mlir

namespace mlir::neuron {

/// Writes `text` to `path` with the runtime's writeTextFile: through a
/// temporary file renamed over it, so a failed or interrupted write leaves
/// the earlier file as it was. On failure emits an error at `at` naming
/// `pass`, the report (`what`), the path and the system's reason.
LogicalResult writeReportFile(Operation *at, StringRef pass, StringRef what,
                              StringRef path, StringRef text);

} // namespace mlir::neuron

#endif // NEURON_PASSES_REPORTFILE_H
