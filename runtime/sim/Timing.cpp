//===- Timing.cpp - Event-driven timing of a program ----------------------===//
//
// One pass over a kernel's events in time order. Engine instructions and the
// fixed phase of each DMA transfer end at known times (a heap of events); a
// transfer's byte phase is processor-shared: every transfer in flight moves
// at min(queue rate, HBM rate / transfers in flight), so all progress
// equally and the one with the fewest bytes left ends first. Tracking the
// bytes each in-flight transfer has moved since time 0 ("virtual bytes")
// turns every rate change into one multiplication, and the next DMA end
// into a heap lookup: O(n log n) for n instructions.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/Timing.h"

#include "runtime/sim/Spmd.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <queue>
#include <set>

namespace neuron::rt {

static OperandShape shapeOf(const TileRef &ref) {
  OperandShape s;
  s.dtype = dtypeName(ref.dtype);
  s.elementBytes = elementBytes(ref.dtype);
  s.partitions = ref.shape.empty() ? 1 : ref.shape[0];
  s.elements = ref.elements;
  return s;
}

CostQuery costQueryOf(const Instruction &inst) {
  const TileRef *source = &inst.src;
  switch (inst.op) {
  case Opcode::Matmul:
    source = &inst.moving;
    break;
  case Opcode::TensorTensor:
    source = &inst.lhs;
    break;
  case Opcode::Select:
    source = &inst.onTrue;
    break;
  case Opcode::Memset:
  case Opcode::Iota:
  case Opcode::DmaCopy:
  case Opcode::Gather:
    source = &inst.dst;
    break;
  case Opcode::Transpose:
  case Opcode::Activation:
  case Opcode::TensorScalar:
  case Opcode::TensorReduce:
    break;
  }
  return costQueryFor(opName(inst.op), shapeOf(inst.dst), shapeOf(*source));
}

double durationNs(const Instruction &inst, const CostModel &model) {
  return model.nanoseconds(costQueryOf(inst));
}

EngineClass classOfUnit(int64_t unit) {
  return unit >= kFirstDmaUnit ? EngineClass::Dma
                               : static_cast<EngineClass>(unit);
}

/// Bytes a dma_copy moves.
static double bytesOf(const Instruction &inst) {
  return static_cast<double>(costQueryOf(inst).bytes);
}

namespace {
/// The event-driven run of one scheduled kernel.
class KernelRun {
public:
  KernelRun(const Kernel &kernel, const CostModel &model, KernelTiming &out)
      : kernel(kernel), model(model), out(out),
        units(kFirstDmaUnit + model.dmaQueues()), queues(units), head(units),
        semaphore(units), busy(units) {}

  absl::Status run();

private:
  struct Event {
    double time;
    int64_t inst;
    /// A DMA transfer's fixed phase ends (its byte phase begins).
    bool fixedPhase;
    bool operator>(const Event &o) const {
      return time != o.time ? time > o.time : inst > o.inst;
    }
  };
  struct Transfer {
    double endTag;
    int64_t inst;
    bool operator>(const Transfer &o) const {
      return endTag != o.endTag ? endTag > o.endTag : inst > o.inst;
    }
  };

  bool ready(const Instruction &inst) const;
  void tryStart(int64_t unit);
  void complete(int64_t inst);
  double dmaRate() const;
  /// Moves the clock to `time`, advancing the in-flight transfers.
  void advance(double time);
  absl::Status deadlock() const;

  const Kernel &kernel;
  const CostModel &model;
  KernelTiming &out;
  int64_t units;
  std::vector<std::vector<int64_t>> queues;
  std::vector<size_t> head;
  std::vector<int64_t> semaphore;
  std::vector<bool> busy;
  std::vector<double> duration;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
  std::priority_queue<Transfer, std::vector<Transfer>, std::greater<>>
      transfers;
  double now = 0;
  /// Bytes every in-flight transfer has moved since time 0 had it been in
  /// flight all along.
  double virtualBytes = 0;
  int64_t done = 0;
};
} // namespace

bool KernelRun::ready(const Instruction &inst) const {
  for (const UnitWait &w : inst.waits)
    if (w.unit >= units || semaphore[w.unit] < w.count)
      return false;
  return true;
}

void KernelRun::tryStart(int64_t unit) {
  if (busy[unit] || head[unit] == queues[unit].size())
    return;
  int64_t i = queues[unit][head[unit]];
  const Instruction &inst = kernel.instructions[i];
  if (!ready(inst))
    return;
  ++head[unit];
  busy[unit] = true;
  out.startNs[i] = now;
  bool dma = inst.op == Opcode::DmaCopy;
  events.push({now + (dma ? model.dmaFixedNs() : duration[i]), i, dma});
}

void KernelRun::complete(int64_t i) {
  const Instruction &inst = kernel.instructions[i];
  int64_t unit = unitOf(inst);
  out.endNs[i] = now;
  out.unitBusyNs[unit] += now - out.startNs[i];
  busy[unit] = false;
  ++done;
  if (!inst.signal) {
    tryStart(unit);
    return;
  }
  ++semaphore[unit];
  for (int64_t u = 0; u < units; ++u)
    tryStart(u);
}

double KernelRun::dmaRate() const {
  return std::min(model.dmaQueueBytesPerNs(),
                  model.hbmBytesPerNs() / double(transfers.size()));
}

void KernelRun::advance(double time) {
  if (!transfers.empty())
    virtualBytes += dmaRate() * (time - now);
  now = time;
}

absl::Status KernelRun::deadlock() const {
  std::vector<std::string> blocked;
  for (int64_t u = 0; u < units; ++u) {
    if (head[u] == queues[u].size())
      continue;
    int64_t i = queues[u][head[u]];
    const Instruction &inst = kernel.instructions[i];
    std::vector<std::string> waits;
    for (const UnitWait &w : inst.waits)
      if (w.unit >= units || semaphore[w.unit] < w.count)
        waits.push_back(
            absl::StrFormat("%s to reach %d (it is at %d)", unitName(w.unit),
                            w.count, w.unit < units ? semaphore[w.unit] : 0));
    blocked.push_back(absl::StrFormat("%s: instruction %d (%s) waits for %s",
                                      unitName(u), i, opName(inst.op),
                                      absl::StrJoin(waits, " and ")));
  }
  return absl::FailedPreconditionError(absl::StrFormat(
      "kernel \"%s\": deadlock at %.1f ns with %d of %d instructions done; "
      "%s",
      kernel.name, now, done, kernel.instructions.size(),
      absl::StrJoin(blocked, "; ")));
}

absl::Status KernelRun::run() {
  int64_t n = int64_t(kernel.instructions.size());
  duration.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    const Instruction &inst = kernel.instructions[i];
    queues[unitOf(inst)].push_back(i);
    if (inst.op != Opcode::DmaCopy)
      duration[i] = durationNs(inst, model);
  }
  for (int64_t u = 0; u < units; ++u)
    tryStart(u);
  constexpr double kNever = std::numeric_limits<double>::infinity();
  while (done < n) {
    double eventTime = events.empty() ? kNever : events.top().time;
    double transferTime =
        transfers.empty()
            ? kNever
            : now + std::max(0.0, transfers.top().endTag - virtualBytes) /
                        dmaRate();
    if (eventTime == kNever && transferTime == kNever)
      return deadlock();
    if (transferTime < eventTime) {
      advance(transferTime);
      Transfer t = transfers.top();
      transfers.pop();
      virtualBytes = std::max(virtualBytes, t.endTag);
      complete(t.inst);
      continue;
    }
    advance(eventTime);
    Event e = events.top();
    events.pop();
    double bytes = e.fixedPhase ? bytesOf(kernel.instructions[e.inst]) : 0;
    if (bytes > 0)
      transfers.push({virtualBytes + bytes, e.inst});
    else
      complete(e.inst);
  }
  return absl::OkStatus();
}

/// Each instruction after the previous one, whatever its unit.
static void runSerially(const Kernel &kernel, const CostModel &model,
                        KernelTiming &out) {
  double now = 0;
  double aloneRate =
      std::min(model.dmaQueueBytesPerNs(), model.hbmBytesPerNs());
  for (size_t i = 0; i < kernel.instructions.size(); ++i) {
    const Instruction &inst = kernel.instructions[i];
    double time = inst.op == Opcode::DmaCopy
                      ? model.dmaFixedNs() + bytesOf(inst) / aloneRate
                      : durationNs(inst, model);
    out.startNs[i] = now;
    now += time;
    out.endNs[i] = now;
    out.unitBusyNs[unitOf(inst)] += time;
  }
}

absl::StatusOr<KernelTiming> simulateKernelTiming(const Kernel &kernel,
                                                  const CostModel &model) {
  int64_t n = int64_t(kernel.instructions.size());
  for (int64_t i = 0; i < n; ++i) {
    const Instruction &inst = kernel.instructions[i];
    if (inst.engine == Engine::Dma && inst.queue >= model.dmaQueues())
      return absl::InvalidArgumentError(absl::StrFormat(
          "kernel \"%s\": instruction %d (%s) uses DMA queue %d; the target "
          "has %d queues (0..%d)",
          kernel.name, i, opName(inst.op), inst.queue, model.dmaQueues(),
          model.dmaQueues() - 1));
  }
  KernelTiming out;
  out.startNs.assign(n, 0);
  out.endNs.assign(n, 0);
  out.unitBusyNs.assign(kFirstDmaUnit + model.dmaQueues(), 0);
  if (kernel.schedule) {
    KernelRun run(kernel, model, out);
    if (absl::Status s = run.run(); !s.ok())
      return s;
  } else {
    runSerially(kernel, model, out);
  }
  for (size_t u = 0; u < out.unitBusyNs.size(); ++u)
    out.busyNs[int(classOfUnit(u))] += out.unitBusyNs[u];
  for (double end : out.endNs)
    out.observedNs = std::max(out.observedNs, end);
  return out;
}

/// The query, algorithm and time of collective `c`.
static CollectiveTiming timeCollective(const Program &program,
                                       const Collective &c,
                                       const CollectiveLinks &links) {
  CollectiveTiming t;
  const TensorDesc &whole =
      program.tensors[c.op == CollectiveOp::AllGather ? c.output : c.input];
  t.query.op = c.op;
  t.query.bytes = double(whole.elements * elementBytes(whole.dtype));
  t.query.cores = int(c.groupSize);
  t.query.chips = chipsSpanned(c.grid, c.axes, links.logicalCoresPerChip);
  double given = c.algorithm ? links.model.ns(t.query, *c.algorithm,
                                              int(c.chunks.value_or(1)))
                             : std::numeric_limits<double>::infinity();
  if (std::isfinite(given)) {
    t.algorithm = *c.algorithm;
    t.chunks = int(c.chunks.value_or(1));
    t.ns = given;
    return t;
  }
  CollectiveChoice choice = links.model.choose(t.query);
  t.algorithm = choice.algorithm;
  t.chunks = choice.chunks;
  t.ns = choice.ns;
  return t;
}

/// Lays the steps out on every rank's clock; with `serialise`, each
/// collective's done comes right after its start. Fills `out.rankSteps`,
/// the per-rank fields of `out.collectives` and returns the latest end.
static double layOut(const Program &program, ProgramTiming &out,
                     bool serialise) {
  int64_t ranks = program.ranks();
  std::vector<double> clock(ranks, 0), engineFree(ranks, 0);
  out.rankSteps.assign(ranks, std::vector<StepTiming>(program.steps.size()));
  std::map<int64_t, CollectiveTiming *> byStart;
  for (CollectiveTiming &c : out.collectives) {
    byStart[c.startStep] = &c;
    for (std::vector<double> *v :
         {&c.startNs, &c.finishNs, &c.exposedNs, &c.overlapNs})
      v->assign(ranks, 0);
  }
  // Rank r waits at a done (or, serialised, at the start) for collective c.
  auto wait = [&](CollectiveTiming &c, int64_t r, StepTiming &step) {
    double before = clock[r];
    step = {before, std::max(0.0, c.finishNs[r] - before)};
    c.exposedNs[r] = step.durationNs;
    c.overlapNs[r] =
        std::max(0.0, std::min(c.finishNs[r], before) - c.startNs[r]);
    clock[r] = std::max(before, c.finishNs[r]);
  };
  for (size_t s = 0; s < program.steps.size(); ++s) {
    const Step &step = program.steps[s];
    switch (step.kind) {
    case StepKind::Kernel:
    case StepKind::HostCall: {
      double d = step.isKernel() ? out.kernels[step.kernel].observedNs : 0.0;
      for (int64_t r = 0; r < ranks; ++r) {
        out.rankSteps[r][s] = {clock[r], d};
        clock[r] += d;
      }
      break;
    }
    case StepKind::CollectiveStart: {
      CollectiveTiming &c = *byStart[int64_t(s)];
      std::vector<bool> started(ranks, false);
      for (int64_t r = 0; r < ranks; ++r) {
        if (started[r])
          continue;
        std::vector<int64_t> group =
            groupOf(step.collective.grid, step.collective.axes, r);
        double begin = 0;
        for (int64_t m : group)
          begin = std::max({begin, clock[m], engineFree[m]});
        for (int64_t m : group) {
          c.startNs[m] = begin;
          c.finishNs[m] = engineFree[m] = begin + c.ns;
          started[m] = true;
        }
      }
      for (int64_t r = 0; r < ranks; ++r) {
        out.rankSteps[r][s] = {clock[r], 0};
        if (serialise)
          wait(c, r, out.rankSteps[r][s]);
      }
      break;
    }
    case StepKind::CollectiveDone: {
      CollectiveTiming &c = *byStart[step.partner];
      for (int64_t r = 0; r < ranks; ++r) {
        out.rankSteps[r][s] = {clock[r], 0};
        if (!serialise)
          wait(c, r, out.rankSteps[r][s]);
      }
      break;
    }
    }
  }
  return *std::max_element(clock.begin(), clock.end());
}

absl::StatusOr<ProgramTiming>
simulateProgramTiming(const Program &program, const CostModel &model,
                      const std::optional<CollectiveLinks> &links) {
  ProgramTiming out;
  out.kernels.resize(program.kernels.size());
  std::vector<bool> simulated(program.kernels.size(), false);
  for (size_t s = 0; s < program.steps.size(); ++s) {
    const Step &step = program.steps[s];
    if (step.kind == StepKind::CollectiveStart) {
      if (!links)
        return absl::FailedPreconditionError(absl::StrFormat(
            "program[%d]: timing collective %d needs the target's links "
            "(a collective model)",
            s, step.collective.id));
      CollectiveTiming c = timeCollective(program, step.collective, *links);
      c.startStep = int64_t(s);
      c.doneStep = step.partner;
      out.collectives.push_back(std::move(c));
    }
    if (!step.isKernel() || simulated[step.kernel])
      continue;
    absl::StatusOr<KernelTiming> timing =
        simulateKernelTiming(program.kernels[step.kernel], model);
    if (!timing.ok())
      return timing.status();
    out.kernels[step.kernel] = *std::move(timing);
    simulated[step.kernel] = true;
  }
  // The observed layout comes last: it leaves the per-rank fields.
  out.serialisedNs = layOut(program, out, /*serialise=*/true);
  out.totalNs = layOut(program, out, /*serialise=*/false);
  out.steps = out.rankSteps[0];
  return out;
}

} // namespace neuron::rt
