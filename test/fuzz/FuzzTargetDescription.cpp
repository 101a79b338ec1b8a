//===- FuzzTargetDescription.cpp - Fuzzes target-description files -------===//
//
// Input: a target description (runtime/target/data/*.json). One that loads
// is resolved under each chip and instance it defines, at each LNC mode,
// and reported (--print-target) and turned into a cost model.
//
//===----------------------------------------------------------------------===//

#include "runtime/target/CostModel.h"
#include "runtime/target/Target.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

using namespace neuron::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  TargetRegistry registry;
  std::string_view text(reinterpret_cast<const char *>(data), size);
  if (!registry.addFromText("fuzz.json", text).ok())
    return 0;
  std::vector<std::string> names = registry.chipNames();
  for (const std::string &instance : registry.instanceNames())
    names.push_back(instance);
  for (const std::string &name : names)
    for (std::string spec : {name, name + ",lnc=1", name + ",lnc=2"}) {
      absl::StatusOr<ResolvedTarget> target = registry.resolve(spec);
      if (!target.ok())
        continue;
      (void)formatTargetReport(*target);
      (void)CostModel::forTarget(*target);
    }
  return 0;
}
