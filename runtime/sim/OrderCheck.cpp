//===- OrderCheck.cpp - Did a timed run keep program order? ---------------===//

#include "runtime/sim/OrderCheck.h"

#include "runtime/sim/Numerics.h"
#include "runtime/sim/UnitStream.h"
#include "runtime/support/StatusMacros.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <limits>
#include <map>

namespace neuron::rt {
namespace {

constexpr double kNever = -std::numeric_limits<double>::infinity();

/// An instance: its instruction and which of its instances, in program
/// order.
struct Who {
  int64_t instruction = -1, ordinal = 0;
};

/// What shadow memory keeps of one byte (or element): its last write and
/// the latest-ending read since.
struct Cell {
  double writeEnd = kNever, readEnd = kNever;
  Who writer, reader;
};

/// Shadow memory over [0, inf) in runs of bytes (elements) alike, each run
/// holding `width` cells (one per partition, or one).
class Shadow {
public:
  explicit Shadow(int64_t width) : width(width) {}

  /// Calls `f(lo, hi, cells)` on the runs covering [lo, hi), split so
  /// that none straddles either end.
  template <typename F> void visit(int64_t lo, int64_t hi, F &&f) {
    split(lo);
    split(hi);
    int64_t at = lo;
    while (at < hi) {
      auto it = runs.find(at);
      if (it == runs.end()) {
        // A gap up to the next run (or hi): fresh cells.
        auto next = runs.upper_bound(at);
        int64_t end = next == runs.end() ? hi : std::min(hi, next->first);
        it = runs.emplace(at, Run{end, std::vector<Cell>(width)}).first;
      }
      f(it->first, it->second.end, it->second.cells);
      at = it->second.end;
    }
  }

private:
  struct Run {
    int64_t end;
    std::vector<Cell> cells;
  };
  void split(int64_t at) {
    auto it = runs.upper_bound(at);
    if (it == runs.begin())
      return;
    --it;
    if (it->first < at && at < it->second.end) {
      Run tail = it->second;
      it->second.end = at;
      runs.emplace(at, std::move(tail));
    }
  }
  int64_t width;
  std::map<int64_t, Run> runs;
};

/// One operand access of an instance.
struct Access {
  const TileRef *ref;
  bool write;
};

/// `reach` stands for the side a dma_copy's start offset moves, which the
/// check cannot know: every start its limit allows.
std::vector<Access> accessesOf(const Instruction &inst, bool accumulates,
                               const std::optional<TileRef> &reach) {
  auto seen = [&](const TileRef *ref) {
    return reach && ref == &movedSide(inst) ? &*reach : ref;
  };
  std::vector<Access> accesses;
  for (const TileOperand &operand : tileOperandsOf(inst.op))
    if (operand.name != "dst")
      if (const TileRef *ref = operandRef(inst, operand.name))
        accesses.push_back({seen(ref), false});
  if (accumulates)
    accesses.push_back({&inst.dst, false});
  accesses.push_back({seen(&inst.dst), true});
  return accesses;
}

/// Calls `f(lo, hi)` on the contiguous element runs of HBM pattern `ref`
/// starting at element `offset`.
template <typename F>
void forEachRun(const TileRef &ref, int64_t offset, F &&f) {
  size_t rank = ref.shape.size();
  // The innermost dimensions that are contiguous make one run.
  int64_t run = 1;
  size_t outer = rank;
  while (outer > 0 && (ref.shape[outer - 1] == 1 ||
                       ref.strides[outer - 1] == run)) {
    run *= ref.shape[outer - 1];
    --outer;
  }
  std::vector<int64_t> index(outer, 0);
  for (;;) {
    int64_t at = offset;
    for (size_t d = 0; d < outer; ++d)
      at += index[d] * ref.strides[d];
    f(at, at + run);
    size_t d = outer;
    while (d > 0 && ++index[d - 1] == ref.shape[d - 1])
      index[--d] = 0;
    if (d == 0)
      return;
  }
}

class OrderCheck {
public:
  OrderCheck(const Kernel &kernel, const KernelTiming &timing)
      : kernel(kernel), timing(timing),
        sbuf(kernel.cores, Shadow(kernel.limits.partitions)),
        psum(kernel.cores, Shadow(kernel.limits.partitions)) {}

  absl::Status run();

private:
  /// Checks `ref`'s bytes at `offset` against the earlier instances, or
  /// (`record`) records this instance's access of them.
  absl::Status touch(const TileRef &ref, int64_t offset, bool write, Who who,
                     double start, double end, bool record);
  std::string describe(Who who) const;

  const Kernel &kernel;
  const KernelTiming &timing;
  /// Per physical core: its own SBUF and PSUM.
  std::vector<Shadow> sbuf, psum;
  /// By parameter, of those some instruction writes (reading the others
  /// orders nothing).
  std::map<int64_t, Shadow> hbm;
  /// Per instruction: the start and end of each instance, in program order.
  std::vector<std::vector<std::pair<double, double>>> times;
};

std::string OrderCheck::describe(Who who) const {
  const Instruction &inst = kernel.instructions[who.instruction];
  std::string text = absl::StrFormat("instruction %d (%s)", who.instruction,
                                     opName(inst.op));
  std::vector<int64_t> nest = kernel.nestOf(who.instruction);
  if (nest.empty())
    return text;
  std::vector<int64_t> iv(nest.size());
  int64_t rest = who.ordinal;
  for (size_t l = nest.size(); l-- > 0;) {
    iv[l] = rest % kernel.loops[nest[l]].trips;
    rest /= kernel.loops[nest[l]].trips;
  }
  return text + absl::StrFormat(" at iteration [%s]", absl::StrJoin(iv, ", "));
}

absl::Status OrderCheck::touch(const TileRef &ref, int64_t offset, bool write,
                               Who who, double start, double end,
                               bool record) {
  std::string_view hazardName;
  Who earlier;
  double earlierEnd = 0;
  std::string where;
  auto check = [&](const Cell &c) {
    if (record)
      return true;
    if (c.writeEnd > start) {
      hazardName = write ? "write-after-write" : "read-after-write";
      earlier = c.writer;
      earlierEnd = c.writeEnd;
      return false;
    }
    if (write && c.readEnd > start) {
      hazardName = "write-after-read";
      earlier = c.reader;
      earlierEnd = c.readEnd;
      return false;
    }
    return true;
  };
  auto update = [&](Cell &c) {
    if (!record)
      return;
    if (write) {
      c = Cell{end, kNever, who, {}};
    } else if (end > c.readEnd) {
      c.readEnd = end;
      c.reader = who;
    }
  };
  bool ok = true;
  if (ref.space == MemorySpace::Hbm) {
    auto tracked = hbm.find(ref.param);
    if (tracked == hbm.end())
      return absl::OkStatus();
    Shadow &shadow = tracked->second;
    forEachRun(ref, offset, [&](int64_t lo, int64_t hi) {
      if (!ok)
        return;
      shadow.visit(lo, hi, [&](int64_t runLo, int64_t runHi,
                               std::vector<Cell> &cells) {
        if (!ok)
          return;
        if (!check(cells[0])) {
          ok = false;
          where = absl::StrFormat("HBM parameter %d elements [%d, %d)",
                                  ref.param, runLo, runHi);
          return;
        }
        update(cells[0]);
      });
    });
  } else {
    int64_t core = kernel.instructions[who.instruction].core;
    Shadow &shadow = ref.space == MemorySpace::Sbuf ? sbuf[core] : psum[core];
    // A strided tile is checked over the bytes it spans.
    int64_t bytes = ref.freeSpan() * elementBytes(ref.dtype);
    int64_t first = ref.partition, last = first + ref.partitionCount();
    shadow.visit(offset, offset + bytes, [&](int64_t lo, int64_t hi,
                                             std::vector<Cell> &cells) {
      for (int64_t p = first; ok && p < last; ++p) {
        if (!check(cells[p])) {
          ok = false;
          where = absl::StrFormat("%s partition %d bytes [%d, %d)",
                                  ref.space == MemorySpace::Sbuf ? "SBUF"
                                                                 : "PSUM",
                                  p, lo, hi);
        }
      }
      if (ok)
        for (int64_t p = first; p < last; ++p)
          update(cells[p]);
    });
  }
  if (ok)
    return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrFormat(
      "kernel \"%s\": %s started at %.1f ns, before %s, earlier in program "
      "order, ended at %.1f ns: %s on %s",
      kernel.name, describe(who), start, describe(earlier), earlierEnd,
      hazardName, where));
}

absl::Status OrderCheck::run() {
  size_t n = kernel.instructions.size();
  if (timing.unrecorded > 0 || timing.instances.size() != n)
    return absl::InvalidArgumentError(absl::StrFormat(
        "kernel \"%s\": the order check needs every instance's times; %d "
        "went unrecorded",
        kernel.name, timing.unrecorded));
  times.resize(n);
  for (size_t i = 0; i < n; ++i)
    times[i].resize(timing.instances[i]);
  for (const TimedInstance &x : timing.recorded)
    times[x.instruction][x.instance] = {x.startNs, x.endNs};

  for (const Instruction &inst : kernel.instructions)
    if (inst.dst.space == MemorySpace::Hbm)
      hbm.try_emplace(inst.dst.param, 1);
  std::vector<std::vector<int64_t>> trips(n);
  for (size_t i = 0; i < n; ++i)
    for (int64_t l : kernel.nestOf(int64_t(i)))
      trips[i].push_back(kernel.loops[l].trips);
  std::vector<std::optional<TileRef>> reaches(n);
  for (size_t i = 0; i < n; ++i)
    if (kernel.instructions[i].offset)
      reaches[i] = reachOf(kernel.instructions[i]);
  std::vector<int64_t> seen(n, 0);
  UnitStream all(kernel, kAllUnits);
  while (all.next()) {
    int64_t i = all.instruction();
    const int64_t *iv = all.inductionVariables();
    const Instruction &inst = kernel.instructions[i];
    Who who{i, seen[i]++};
    auto [start, end] = times[i][who.ordinal];
    bool accumulates =
        inst.accumulate &&
        (inst.restart.empty() ||
         std::any_of(inst.restart.begin(), inst.restart.end(),
                     [&](int64_t level) { return iv[level] != 0; }));
    std::vector<Access> accesses = accessesOf(inst, accumulates, reaches[i]);
    // Every access is checked against the instances before this one, and
    // only then recorded (reads before writes): an instance reading and
    // writing a byte follows the earlier ones alone.
    for (bool record : {false, true})
      for (bool write : {false, true})
        for (const Access &a : accesses)
          if (a.write == write)
            NEURON_RETURN_IF_ERROR(
                touch(*a.ref, offsetAt(*a.ref, iv, trips[i].data()), write,
                      who, start, end, record));
  }
  return absl::OkStatus();
}

} // namespace

absl::Status checkProgramOrder(const Kernel &kernel,
                               const KernelTiming &timing) {
  return OrderCheck(kernel, timing).run();
}

} // namespace neuron::rt
