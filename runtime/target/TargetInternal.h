//===- TargetInternal.h - Shared internals of NeuronRuntimeTarget -*- C++ -*-//
//
// Not part of the public API: the JSON reader entry point and small helpers
// shared by the library's source files.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_TARGET_TARGETINTERNAL_H
#define NEURON_RUNTIME_TARGET_TARGETINTERNAL_H

#include "runtime/target/Capabilities.h"
#include "runtime/target/Target.h"
#include "runtime/support/StatusMacros.h"


namespace neuron::rt {

/// One validated description file: its chip and the instances built from it.
struct ParsedTargetFile {
  std::unique_ptr<ChipDesc> chip;
  /// Each points at `chip`.
  std::vector<std::unique_ptr<InstanceDesc>> instances;
};

/// Parses and validates `text`. Errors are InvalidArgument and read
/// "FILE: json.path: expected ..., found ...".
absl::StatusOr<ParsedTargetFile> parseTargetFile(std::string_view fileName,
                                                 std::string_view text);

/// Parses and validates one capability table, with errors like
/// parseTargetFile's. Cross-file checks (unique generations) are the
/// registry's.
absl::StatusOr<CapabilityTable> parseCapabilityFile(std::string_view fileName,
                                                    std::string_view text);

/// (path, text) of every *.json file directly in `dir`, sorted by path; an
/// error names `what` ("target description") when none is there.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>>
readJsonDirectory(const std::string &dir, std::string_view what);

/// `f` in the canonical unit of `q`; 0 when the unit does not fit (loading
/// has already rejected such figures).
double canonicalValue(const Figure &f, Quantity q);

/// A short decimal rendering: no trailing zeros, at most 3 significant
/// decimals below 1 ("0.88", "83.4", "1536").
std::string formatNumber(double v);

/// "lnc=1, lnc=2 (default)": the modes `chip` offers.
std::string formatLncModes(const ChipDesc &chip);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_TARGET_TARGETINTERNAL_H
