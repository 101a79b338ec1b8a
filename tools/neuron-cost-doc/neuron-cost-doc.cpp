//===- neuron-cost-doc.cpp - The DMA model's curve from the targets -------===//
//
// neuron-cost-doc --out=FILE writes a Markdown page of what the cost model
// (runtime/target/CostModel.h) makes of DMA transfers on every built-in
// target: the share of an engine's bandwidth by contiguous run, beside the
// words of the NKI DMA bandwidth guide, which publishes no numbers; a
// 128-partition transfer over all of a core's engines by bytes per
// partition; and a transposed tile by each route.
//
//===----------------------------------------------------------------------===//

#include "runtime/target/CostModel.h"

#include "absl/strings/str_format.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace neuron::rt;

namespace {

struct Chip {
  std::string name;
  CostModel model;
};

/// The guide's words for runs of `bytes` per partition.
const char *published(int64_t bytes) {
  if (bytes < 256)
    return "severely overhead-bound: a small fraction of peak";
  if (bytes < 2048)
    return "improving, below peak";
  if (bytes < 4096)
    return "the recommended minimum: approaching peak";
  return "full saturation";
}

/// A table's header: `first` (aligned `align`), a column per chip named
/// with `unit`, and `last` (left-aligned) when not empty.
std::string header(const char *first, const char *align,
                   const std::vector<Chip> &chips, const char *unit,
                   const char *last = "") {
  std::string out = absl::StrFormat("| %s |", first);
  for (const Chip &c : chips)
    out += absl::StrFormat(" %s%s |", c.name, unit);
  if (*last)
    out += absl::StrFormat(" %s |", last);
  out += absl::StrFormat("\n|%s|", align);
  for (size_t i = 0; i < chips.size(); ++i)
    out += "---:|";
  if (*last)
    out += "---|";
  return out + "\n";
}

std::string runs(const std::vector<Chip> &chips) {
  std::string out =
      header("bytes per run", "---:", chips, "", "NKI DMA guide");
  for (int64_t bytes = 2; bytes <= 32768; bytes *= 2) {
    out += absl::StrFormat("| %d |", bytes);
    for (const Chip &c : chips)
      out += absl::StrFormat(" %.1f%% |", 100 * c.model.dmaEfficiency(bytes));
    out += absl::StrFormat(" %s |\n", published(bytes));
  }
  return out;
}

/// A [128, F] transfer of 2-byte elements cut into one piece per engine
/// (128 / engines partitions each), every engine moving its piece at once:
/// the bytes over the time of one piece, at most the core's HBM share.
std::string tiles(const std::vector<Chip> &chips) {
  std::string out = header("bytes per partition", "---:", chips, " GB/s");
  for (int64_t bytes = 64; bytes <= 32768; bytes *= 2) {
    out += absl::StrFormat("| %d |", bytes);
    for (const Chip &c : chips) {
      int64_t engines = c.model.dmaEngines();
      int64_t rows = std::max<int64_t>(1, 128 / engines);
      OperandShape piece{"bf16", 2, rows, rows * bytes / 2};
      double ns = c.model.nanoseconds(costQueryFor("dma_copy", piece, piece));
      double rate = std::min(128.0 * bytes / ns, c.model.hbmBytesPerNs());
      out += absl::StrFormat(" %.0f |", rate);
    }
    out += "\n";
  }
  return out;
}

/// A [128, 128] bf16 tile loaded transposed: element by element, by DMA
/// transpose, or as rows (before the tensor engine transposes them).
std::string transposes(const std::vector<Chip> &chips) {
  std::string out = header("route, one engine", "---", chips, " ns");
  OperandShape tile{"bf16", 2, 128, 128 * 128}, strided = tile, rows = tile;
  strided.run = 1;
  strided.transposed = true;
  rows.run = 128;
  CostQuery elementwise = costQueryFor("dma_copy", tile, strided);
  CostQuery transpose = elementwise;
  elementwise.transposes = false;
  CostQuery natural = costQueryFor("dma_copy", tile, rows);
  for (auto [name, q] : {std::pair{"a descriptor per element", elementwise},
                         std::pair{"DMA transpose (where the generation has it)",
                                   transpose},
                         std::pair{"rows as they lie (256 B runs)", natural}}) {
    out += absl::StrFormat("| %s |", name);
    for (const Chip &c : chips)
      out += absl::StrFormat(" %.0f |", c.model.nanoseconds(q));
    out += "\n";
  }
  return out;
}

} // namespace

int main(int argc, char **argv) {
  std::string out;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--out=", 0) == 0)
      out = arg.substr(6);
    else {
      std::fprintf(stderr, "usage: neuron-cost-doc --out=FILE\n");
      return 1;
    }
  }
  if (out.empty()) {
    std::fprintf(stderr, "usage: neuron-cost-doc --out=FILE\n");
    return 1;
  }
  absl::StatusOr<TargetRegistry> registry = TargetRegistry::loadBuiltin();
  if (!registry.ok()) {
    std::fprintf(stderr, "neuron-cost-doc: %s\n",
                 std::string(registry.status().message()).c_str());
    return 1;
  }
  std::vector<Chip> chips;
  for (const char *name : {"trn1", "inf2", "trn2", "trn3"}) {
    absl::StatusOr<ResolvedTarget> target =
        registry->resolve(std::string(name) + ",lnc=1");
    absl::StatusOr<CostModel> model =
        target.ok() ? CostModel::forTarget(*target)
                    : absl::StatusOr<CostModel>(target.status());
    if (!model.ok()) {
      std::fprintf(stderr, "neuron-cost-doc: %s: %s\n", name,
                   std::string(model.status().message()).c_str());
      return 1;
    }
    chips.push_back({name, *model});
  }
  std::error_code ec;
  std::filesystem::path parent = std::filesystem::path(out).parent_path();
  if (!parent.empty())
    std::filesystem::create_directories(parent, ec);
  std::ofstream file(out);
  file << "# The DMA cost model by transfer shape\n\n"
       << "Generated by `neuron-cost-doc` from the built-in target "
          "descriptions through the cost model `nisa-schedule` and the "
          "simulator share (`runtime/target/CostModel.h`); one physical "
          "core (lnc=1).\n\n"
       << "A transfer costs its DMA engine a fixed time, then its bytes "
          "plus `dma.descriptor_overhead` bytes per contiguous run (one "
          "descriptor) at the engine's bandwidth. A 2-D transpose of 2-byte "
          "elements (two FP8 elements side by side moving as one) moves at "
          "`dma.transpose_bandwidth` where the target gives one. The NKI DMA "
          "bandwidth guide "
          "(`nki/deep-dives/nki-dma-bandwidth-guide.rst`) describes the "
          "curve in words only; the overhead is calibrated to them.\n\n"
       << "## One engine, by contiguous run\n\n"
       << runs(chips)
       << "\n## A 128-partition transfer over all of a core's engines\n\n"
       << "The transfer cut into one piece per engine, each including the "
          "fixed cost; at most the core's share of HBM.\n\n"
       << tiles(chips)
       << "\n## A [128, 128] bf16 tile loaded transposed\n\n"
       << transposes(chips);
  if (!file) {
    std::fprintf(stderr, "neuron-cost-doc: cannot write %s\n", out.c_str());
    return 1;
  }
  return 0;
}
