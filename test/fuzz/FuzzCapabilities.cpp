//===- FuzzCapabilities.cpp - Fuzzes capability tables -------------------===//
//
// Input: a capability table (runtime/target/data/capabilities/*.json). One
// that loads is queried for every op it lists and rendered as the coverage
// documentation renders it.
//
//===----------------------------------------------------------------------===//

#include "runtime/target/Capabilities.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

using namespace neuron::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  CapabilityRegistry registry;
  std::string_view text(reinterpret_cast<const char *>(data), size);
  if (!registry.addFromText("fuzz.json", text).ok())
    return 0;
  for (const std::string &generation : registry.generations()) {
    const CapabilityTable *table = registry.forGeneration(generation);
    std::vector<std::string> ops;
    for (const OpCapability &op : table->ops) {
      (void)registry.generationsWithOp(op.op);
      (void)table->find(op.op);
      (void)op.allowsDtype("f32");
      (void)op.allowsResultDtype("bf16");
      for (const AttributeRule &rule : op.attributes)
        (void)op.rule(rule.name);
      ops.push_back(op.op);
    }
    ops.push_back("neuron.matmul");
    (void)formatCapabilityMarkdown(*table, ops);
  }
  return 0;
}
