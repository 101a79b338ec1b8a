//===- ManifestText.h - Bounds and texts of the manifest readers -*- C++ -*-===//
//
// Shared by the program reader (Program.cpp) and the host-call reference
// reader (HostReader.cpp): the file name errors cite, the bounds that keep
// every product and sum of extents below 2^63, and how shapes and found
// strings appear in messages. Internal to runtime/sim.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SIM_MANIFESTTEXT_H
#define NEURON_RUNTIME_SIM_MANIFESTTEXT_H

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::rt {

inline constexpr std::string_view kFile = "manifest";
inline constexpr int64_t kMaxRank = 16;
inline constexpr int64_t kMaxExtent = int64_t(1) << 40;
inline constexpr int64_t kMaxElements = int64_t(1) << 40;

/// "[4, 8]".
inline std::string formatShape(const std::vector<int64_t> &shape) {
  return "[" + absl::StrJoin(shape, ", ") + "]";
}

/// The "found" text for a string value.
inline std::string foundString(std::string_view s) {
  return absl::StrFormat("a string \"%s\"", s);
}

} // namespace neuron::rt

#endif // NEURON_RUNTIME_SIM_MANIFESTTEXT_H
