//===- neuron-capability-doc.cpp - Coverage pages from capability tables --===//
//
// neuron-capability-doc --out-dir=DIR --ops=FILE [--capability-dir=DIR]
// writes DIR/coverage-<generation>.md for every capability table (the
// built-in ones unless --capability-dir is given). FILE lists every neuron
// dialect op, one full name a line; a table naming an op not in it is an
// error, so a misspelt op cannot silently stay out of the coverage pass.
//
//===----------------------------------------------------------------------===//

#include "runtime/target/Capabilities.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace neuron::rt;

static int fail(const std::string &message) {
  std::fprintf(stderr, "neuron-capability-doc: %s\n", message.c_str());
  return 1;
}

/// The value of `--name=VALUE` in `arg`, if that is what `arg` is.
static bool option(const std::string &arg, const std::string &name,
                   std::string &value) {
  std::string prefix = "--" + name + "=";
  if (arg.compare(0, prefix.size(), prefix) != 0)
    return false;
  value = arg.substr(prefix.size());
  return true;
}

/// The op names of `path`: one a line; blank lines and '#' comments skipped.
static bool readOps(const std::string &path, std::vector<std::string> &ops) {
  std::ifstream in(path);
  if (!in)
    return false;
  for (std::string line; std::getline(in, line);) {
    size_t begin = line.find_first_not_of(" \t\r");
    if (begin == std::string::npos || line[begin] == '#')
      continue;
    ops.push_back(
        line.substr(begin, line.find_last_not_of(" \t\r") + 1 - begin));
  }
  return true;
}

int main(int argc, char **argv) {
  std::string outDir, opsFile, capabilityDir;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!option(arg, "out-dir", outDir) && !option(arg, "ops", opsFile) &&
        !option(arg, "capability-dir", capabilityDir))
      return fail("unknown argument '" + arg +
                  "'; usage: neuron-capability-doc --out-dir=DIR --ops=FILE "
                  "[--capability-dir=DIR]");
  }
  if (outDir.empty() || opsFile.empty())
    return fail("--out-dir=DIR and --ops=FILE are required");

  std::vector<std::string> allOps;
  if (!readOps(opsFile, allOps) || allOps.empty())
    return fail("cannot read op names from '" + opsFile + "'");
  absl::StatusOr<CapabilityRegistry> registry =
      capabilityDir.empty() ? CapabilityRegistry::loadBuiltin()
                            : CapabilityRegistry::loadDirectory(capabilityDir);
  if (!registry.ok())
    return fail(std::string(registry.status().message()));

  std::error_code ec;
  std::filesystem::create_directories(outDir, ec);
  if (ec)
    return fail("cannot create '" + outDir + "': " + ec.message());
  for (const std::string &generation : registry->generations()) {
    const CapabilityTable &table = *registry->forGeneration(generation);
    for (const OpCapability &cap : table.ops)
      if (std::find(allOps.begin(), allOps.end(), cap.op) == allOps.end())
        return fail(table.fileName + ": ops[\"" + cap.op +
                    "\"]: not an op of the neuron dialect (per " + opsFile +
                    ")");
    std::string path = outDir + "/coverage-" + generation + ".md";
    std::ofstream out(path, std::ios::binary);
    out << formatCapabilityMarkdown(table, allOps);
    if (!out.flush())
      return fail("cannot write '" + path + "'");
  }
  return 0;
}
