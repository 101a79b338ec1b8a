//===- ReportFile.cpp - Reports written by passes -------------------------===//

#include "passes/ReportFile.h"

#include "runtime/format/FileIO.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"

namespace mlir::neuron {

LogicalResult writeReportFile(Operation *at, StringRef pass, StringRef what,
                              StringRef path, StringRef text) {
  absl::Status status =
      ::neuron::rt::writeTextFile(path.str(), std::string_view(text),
                                  std::string_view(what));
  if (status.ok())
    return success();
  return at->emitError() << pass << ": " << std::string(status.message());
}

} // namespace mlir::neuron
