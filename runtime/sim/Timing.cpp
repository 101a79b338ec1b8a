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
#include "runtime/sim/UnitStream.h"
#include "runtime/support/StatusMacros.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <set>

namespace neuron::rt {

static OperandShape shapeOf(const TileRef &ref) {
  bool onChip = ref.space != MemorySpace::Hbm;
  return operandShapeOf(dtypeName(ref.dtype), elementBytes(ref.dtype),
                        ref.shape.data(), ref.shape.size(),
                        onChip && ref.contiguous() ? nullptr
                                                   : ref.strides.data(),
                        onChip);
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
  case Opcode::Gather:
    source = &inst.dst;
    break;
  case Opcode::DmaCopy:
  case Opcode::Transpose:
  case Opcode::Activation:
  case Opcode::TensorScalar:
  case Opcode::ScalarTensorTensor:
  case Opcode::TensorReduce:
    break;
  }
  // An engine streams at the rate of its widest-stepping operand.
  OperandShape from = shapeOf(*source);
  for (const TileOperand &operand : tileOperandsOf(inst.op))
    if (const TileRef *ref = operandRef(inst, operand.name);
        ref && ref->space != MemorySpace::Hbm)
      from.strideBytes = std::max(from.strideBytes, shapeOf(*ref).strideBytes);
  CostQuery q = costQueryFor(opName(inst.op), shapeOf(inst.dst), from);
  if (inst.doubleRow)
    q.rows = 2;
  return q;
}

double durationNs(const Instruction &inst, const CostModel &model) {
  return model.nanoseconds(costQueryOf(inst));
}

EngineClass classOfUnit(int64_t unit) {
  return isDmaUnit(unit) ? EngineClass::Dma
                         : static_cast<EngineClass>(localUnit(unit));
}

int64_t lanesPerCore(const CostModel &model) {
  return kFirstDmaUnit + model.dmaEngines();
}

int64_t laneOfUnit(int64_t unit, const CostModel &model) {
  int64_t core = coreOfUnit(unit), local = localUnit(unit);
  if (core >= model.physicalCores() || local >= lanesPerCore(model))
    return -1;
  return core * lanesPerCore(model) + local;
}

int64_t unitOfLane(int64_t lane, const CostModel &model) {
  int64_t per = lanesPerCore(model);
  return lane / per * kUnitsPerCore + lane % per;
}

std::string laneName(int64_t lane, const CostModel &model) {
  return unitName(unitOfLane(lane, model));
}

EngineClass classOfLane(int64_t lane, const CostModel &model) {
  return classOfUnit(unitOfLane(lane, model));
}

/// The bytes a dma_copy's streaming phase costs (its payload and its
/// descriptors' overhead).
static double streamBytesOf(const Instruction &inst, const CostModel &model) {
  return model.dmaStreamBytes(costQueryOf(inst));
}

namespace {
/// The event-driven run of one scheduled kernel. Work happens on lanes:
/// each physical core's four engines and DMA engines, each running one
/// instance at a time. A unit starts its stream's instances in order: an
/// engine on its own lane, a DMA queue on any free DMA engine of its core,
/// the core's queues taking them in turn; a queue retires its transfers in
/// order (its semaphore counts retired signalling transfers). Units are
/// indexed as their lanes (laneOfUnit: DMA queue Q as DMA engine Q), and
/// events and transfers are keyed by lane.
class KernelRun {
public:
  KernelRun(const Kernel &kernel, const CostModel &model,
            const TimingOptions &options, KernelTiming &out)
      : kernel(kernel), model(model), options(options), out(out),
        perCore(lanesPerCore(model)), units(kernel.cores * perCore),
        streams(units), queues(kernel.cores), turn(kernel.cores, 0),
        freeDma(kernel.cores), inFlight(units), laneUnit(units, -1),
        laneInst(units, -1),
        laneStart(units, 0), laneRecord(units, 0), laneInstance(units, 0),
        retired(units, 0), semaphore(units, 0),
        blockedOn(units, {-1, 0}) {}

  absl::Status run();

private:
  struct Event {
    double time;
    /// -1: a release time passes (units re-check what they can start).
    int64_t lane;
    /// A DMA transfer's fixed phase ends (its byte phase begins).
    bool fixedPhase;
    bool operator>(const Event &o) const {
      return time != o.time ? time > o.time : lane > o.lane;
    }
  };
  struct Transfer {
    double endTag;
    int64_t lane;
    bool operator>(const Transfer &o) const {
      return endTag != o.endTag ? endTag > o.endTag : lane > o.lane;
    }
  };
  /// An instance a unit has started and not yet retired.
  struct Flight {
    int64_t instruction;
    bool done = false;
  };

  /// Whether the next instance of `unit` has every count it waits for and
  /// its release time has come.
  bool ready(int64_t unit);
  /// Tries every unit again at `time`.
  void wakeAt(double time);
  /// Starts what engine `unit` can.
  void tryStartEngine(int64_t unit);
  /// Gives free DMA engines to the queues with a ready transfer, in turn,
  /// on every physical core.
  void tryStartDma();
  void tryStartDma(int64_t core);
  /// Tries every engine of every physical core.
  void tryStartEngines();
  bool isDma(int64_t unit) const { return unit % perCore >= kFirstDmaUnit; }
  /// Starts the next instance of `unit` on `lane`.
  void start(int64_t unit, int64_t lane);
  void complete(int64_t lane);
  double dmaRate() const;
  /// Moves the clock to `time`, advancing the in-flight transfers.
  void advance(double time);
  absl::Status deadlock() const;

  const Kernel &kernel;
  const CostModel &model;
  const TimingOptions &options;
  KernelTiming &out;
  int64_t perCore, units;
  std::vector<UnitStream> streams;
  /// Per physical core: its DMA queues with instructions, and the next to
  /// take a free DMA engine (an index into them).
  std::vector<std::vector<int64_t>> queues;
  std::vector<size_t> turn;
  /// Per physical core: its free DMA engines.
  std::vector<std::vector<int64_t>> freeDma;
  /// Per unit: its started, unretired instances, oldest first, and how
  /// many it has retired.
  std::vector<std::deque<Flight>> inFlight;
  /// Per lane: the unit and instruction it runs (-1 when idle), since
  /// when, and which of its unit's flights (by retirement number) it is.
  std::vector<int64_t> laneUnit;
  std::vector<int64_t> laneInst;
  std::vector<double> laneStart;
  std::vector<int64_t> laneRecord;
  /// Per lane: which instance of its instruction it runs.
  std::vector<int64_t> laneInstance;
  std::vector<int64_t> retired;
  std::vector<int64_t> semaphore;
  /// Per unit: the semaphore and count its next instance last found short.
  std::vector<std::pair<int64_t, int64_t>> blockedOn;
  /// Release times a wake-up is already queued for.
  std::set<double> wakes;
  std::vector<double> duration, bytes;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
  std::priority_queue<Transfer, std::vector<Transfer>, std::greater<>>
      transfers;
  double now = 0;
  /// Bytes every in-flight transfer has moved since time 0 had it been in
  /// flight all along.
  double virtualBytes = 0;
  int64_t done = 0, total = 0;
};
} // namespace

/// The count `w` waits for at induction variables `iv`.
static int64_t waitCount(const UnitWait &w, const int64_t *iv) {
  int64_t count = w.count;
  for (size_t l = 0; l < w.ivCounts.size(); ++l)
    count += w.ivCounts[l] * iv[l];
  if (w.fewer && iv[w.loop] < w.iterations)
    count -= w.fewer;
  return count;
}

bool KernelRun::ready(int64_t unit) {
  // Still short of the count it last stopped at: nothing to re-evaluate.
  auto [on, count] = blockedOn[unit];
  if (on >= 0 && semaphore[on] < count)
    return false;
  const UnitStream &s = streams[unit];
  if (!options.releaseNs.empty() && options.releaseNs[s.instruction()] > now) {
    wakeAt(options.releaseNs[s.instruction()]);
    return false;
  }
  const int64_t *iv = s.inductionVariables();
  for (const UnitWait &w : kernel.instructions[s.instruction()].waits) {
    int64_t on = laneOfUnit(w.unit, model);
    if (on < 0 || on >= units)
      return false;
    if (int64_t needed = waitCount(w, iv); semaphore[on] < needed) {
      blockedOn[unit] = {on, needed};
      return false;
    }
  }
  blockedOn[unit] = {-1, 0};
  return true;
}

void KernelRun::wakeAt(double time) {
  if (wakes.insert(time).second)
    events.push({time, -1, false});
}

void KernelRun::start(int64_t unit, int64_t lane) {
  int64_t i = streams[unit].instruction();
  streams[unit].next();
  laneUnit[lane] = unit;
  laneInst[lane] = i;
  laneStart[lane] = now;
  laneRecord[lane] = retired[unit] + int64_t(inFlight[unit].size());
  laneInstance[lane] = out.instances[i];
  inFlight[unit].push_back({i});
  if (out.instances[i]++ == 0)
    out.startNs[i] = now;
  bool dma = isDma(unit);
  events.push({now + (dma ? model.dmaFixedNs() : duration[i]), lane, dma});
}

void KernelRun::tryStartEngine(int64_t unit) {
  if (laneInst[unit] < 0 && streams[unit].instruction() >= 0 && ready(unit))
    start(unit, unit);
}

void KernelRun::tryStartEngines() {
  for (int64_t core = 0; core < kernel.cores; ++core)
    for (int64_t e = 0; e < kFirstDmaUnit; ++e)
      tryStartEngine(core * perCore + e);
}

void KernelRun::tryStartDma() {
  for (int64_t core = 0; core < kernel.cores; ++core)
    tryStartDma(core);
}

void KernelRun::tryStartDma(int64_t core) {
  // Each pass over the queues starts at most one transfer per queue; the
  // next pass begins after the last queue served.
  const std::vector<int64_t> &served = queues[core];
  std::vector<int64_t> &free = freeDma[core];
  size_t &next = turn[core], idle = 0;
  while (!free.empty() && idle < served.size()) {
    int64_t unit = served[next];
    next = (next + 1) % served.size();
    if (streams[unit].instruction() < 0 || !ready(unit)) {
      ++idle;
      continue;
    }
    idle = 0;
    int64_t lane = free.back();
    free.pop_back();
    start(unit, lane);
  }
}

void KernelRun::complete(int64_t lane) {
  int64_t i = laneInst[lane], unit = laneUnit[lane];
  double begin = laneStart[lane];
  out.endNs[i] = now;
  out.instructionBusyNs[i] += now - begin;
  out.unitBusyNs[lane] += now - begin;
  if (int64_t(out.recorded.size()) < options.recordInstances)
    out.recorded.push_back({i, begin, now, lane, laneInstance[lane]});
  else
    ++out.unrecorded;
  laneInst[lane] = -1;
  ++done;
  inFlight[unit][laneRecord[lane] - retired[unit]].done = true;
  // Retire in order: the semaphore counts a prefix of the stream.
  bool signalled = false;
  while (!inFlight[unit].empty() && inFlight[unit].front().done) {
    bool signal =
        kernel.instructions[inFlight[unit].front().instruction].signal;
    signalled |= signal;
    semaphore[unit] += signal;
    inFlight[unit].pop_front();
    ++retired[unit];
  }
  if (isDma(unit))
    freeDma[unit / perCore].push_back(lane);
  if (signalled)
    tryStartEngines();
  else if (!isDma(unit))
    tryStartEngine(unit);
  if (signalled)
    tryStartDma();
  else if (isDma(unit))
    tryStartDma(unit / perCore);
}

double KernelRun::dmaRate() const {
  return std::min(model.dmaEngineBytesPerNs(),
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
    const UnitStream &s = streams[u];
    if (s.instruction() < 0)
      continue;
    const Instruction &inst = kernel.instructions[s.instruction()];
    const int64_t *iv = s.inductionVariables();
    std::vector<std::string> waits;
    for (const UnitWait &w : inst.waits) {
      int64_t on = laneOfUnit(w.unit, model);
      bool known = on >= 0 && on < units;
      if (!known || semaphore[on] < waitCount(w, iv))
        waits.push_back(absl::StrFormat("%s to reach %d (it is at %d)",
                                        unitName(w.unit), waitCount(w, iv),
                                        known ? semaphore[on] : 0));
    }
    std::string at =
        inst.depth ? absl::StrFormat(" at iteration [%s]",
                                     absl::StrJoin(iv, iv + inst.depth, ", "))
                   : std::string();
    blocked.push_back(absl::StrFormat("%s: instruction %d (%s)%s waits for %s",
                                      unitName(unitOfLane(u, model)), s.instruction(),
                                      opName(inst.op), at,
                                      absl::StrJoin(waits, " and ")));
  }
  return absl::FailedPreconditionError(absl::StrFormat(
      "kernel \"%s\": deadlock at %.1f ns with %d of %d instructions done; "
      "%s",
      kernel.name, now, done, total, absl::StrJoin(blocked, "; ")));
}

absl::Status KernelRun::run() {
  int64_t n = int64_t(kernel.instructions.size());
  duration.resize(n);
  bytes.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    const Instruction &inst = kernel.instructions[i];
    if (inst.op == Opcode::DmaCopy)
      bytes[i] = streamBytesOf(inst, model);
    else
      duration[i] = durationNs(inst, model);
  }
  total = kernel.dynamicInstructions();
  // The units with instructions (a stream per unit used).
  std::vector<bool> used(units, false);
  for (const Instruction &inst : kernel.instructions)
    used[laneOfUnit(unitOf(inst), model)] = true;
  for (int64_t u = 0; u < units; ++u) {
    if (!used[u])
      continue;
    streams[u] = UnitStream(kernel, unitOfLane(u, model));
    streams[u].next();
    if (isDma(u) && streams[u].instruction() >= 0)
      queues[u / perCore].push_back(u);
  }
  // Lowest engines first.
  for (int64_t core = 0; core < kernel.cores; ++core)
    for (int64_t lane = (core + 1) * perCore;
         lane-- > core * perCore + kFirstDmaUnit;)
      freeDma[core].push_back(lane);
  tryStartEngines();
  tryStartDma();
  constexpr double kNever = std::numeric_limits<double>::infinity();
  while (done < total) {
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
      complete(t.lane);
      continue;
    }
    advance(eventTime);
    Event e = events.top();
    events.pop();
    if (e.lane < 0) {
      tryStartEngines();
      tryStartDma();
      continue;
    }
    double moved = e.fixedPhase ? bytes[laneInst[e.lane]] : 0;
    if (moved > 0)
      transfers.push({virtualBytes + moved, e.lane});
    else
      complete(e.lane);
  }
  out.dynamicInstructions = total;
  return absl::OkStatus();
}

/// Each instance after the previous one in program order, whatever its
/// unit.
static void runSerially(const Kernel &kernel, const CostModel &model,
                        const TimingOptions &options, KernelTiming &out) {
  double aloneRate =
      std::min(model.dmaEngineBytesPerNs(), model.hbmBytesPerNs());
  std::vector<double> time(kernel.instructions.size());
  for (size_t i = 0; i < kernel.instructions.size(); ++i) {
    const Instruction &inst = kernel.instructions[i];
    time[i] = inst.op == Opcode::DmaCopy
                  ? model.dmaFixedNs() + streamBytesOf(inst, model) / aloneRate
                  : durationNs(inst, model);
  }
  double now = 0;
  UnitStream all(kernel, kAllUnits);
  while (all.next()) {
    int64_t i = all.instruction();
    const Instruction &inst = kernel.instructions[i];
    if (!options.releaseNs.empty())
      now = std::max(now, options.releaseNs[i]);
    int64_t instance = out.instances[i]++;
    if (instance == 0)
      out.startNs[i] = now;
    if (int64_t(out.recorded.size()) < options.recordInstances)
      out.recorded.push_back(
          {i, now, now + time[i], laneOfUnit(unitOf(inst), model), instance});
    else
      ++out.unrecorded;
    now += time[i];
    out.endNs[i] = now;
    out.instructionBusyNs[i] += time[i];
    out.unitBusyNs[laneOfUnit(unitOf(inst), model)] += time[i];
    ++out.dynamicInstructions;
  }
}

absl::StatusOr<KernelTiming>
simulateKernelTiming(const Kernel &kernel, const CostModel &model,
                     const TimingOptions &options) {
  int64_t n = int64_t(kernel.instructions.size());
  if (kernel.cores > model.physicalCores())
    return absl::InvalidArgumentError(absl::StrFormat(
        "kernel \"%s\" runs on %d physical cores; the target's logical core "
        "has %d (compile for its lnc, or run with the lnc it was compiled "
        "for)",
        kernel.name, kernel.cores, model.physicalCores()));
  for (int64_t i = 0; i < n; ++i) {
    const Instruction &inst = kernel.instructions[i];
    if (inst.engine == Engine::Dma && inst.queue >= model.dmaEngines())
      return absl::InvalidArgumentError(absl::StrFormat(
          "kernel \"%s\": instruction %d (%s) uses DMA queue %d; the target "
          "has %d queues (0..%d)",
          kernel.name, i, opName(inst.op), inst.queue, model.dmaEngines(),
          model.dmaEngines() - 1));
  }
  if (!options.releaseNs.empty() && int64_t(options.releaseNs.size()) != n)
    return absl::InvalidArgumentError(absl::StrFormat(
        "kernel \"%s\": %d release times for %d instructions", kernel.name,
        options.releaseNs.size(), n));
  KernelTiming out;
  out.startNs.assign(n, 0);
  out.endNs.assign(n, 0);
  out.instances.assign(n, 0);
  out.instructionBusyNs.assign(n, 0);
  out.unitBusyNs.assign(kernel.cores * lanesPerCore(model), 0);
  if (kernel.schedule) {
    KernelRun run(kernel, model, options, out);
    if (absl::Status s = run.run(); !s.ok())
      return s;
  } else {
    runSerially(kernel, model, options, out);
  }
  for (size_t lane = 0; lane < out.unitBusyNs.size(); ++lane)
    out.busyNs[int(classOfLane(int64_t(lane), model))] += out.unitBusyNs[lane];
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
  t.query.bytes = double(whole.bytes());
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

/// The duration of kernel step `step` on rank `rank` when its awaited
/// collectives finish `gateNs` (one per Step::awaits) after it starts.
using AwaitedLaunchNs = std::function<absl::StatusOr<double>(
    size_t step, int64_t rank, const std::vector<double> &gateNs)>;

/// Lays the steps out on every rank's clock; with `serialise`, each
/// collective's done comes right after its start. Fills `out.rankSteps`,
/// the per-rank fields of `out.collectives` and returns the latest end.
/// A launch that awaits a collective inside starts before it finishes; the
/// time the launch takes beyond its own (waiting inside) is the
/// collective's exposed time, like a wait at its done.
static absl::StatusOr<double> layOut(const Program &program,
                                     ProgramTiming &out, bool serialise,
                                     const AwaitedLaunchNs &awaitedNs) {
  int64_t ranks = program.ranks();
  std::vector<double> clock(ranks, 0), engineFree(ranks, 0);
  std::map<size_t, double> hostNs;
  for (const HostCallTiming &h : out.hostCalls)
    hostNs[size_t(h.step)] = h.ns();
  out.rankSteps.assign(ranks, std::vector<StepTiming>(program.steps.size()));
  std::map<int64_t, CollectiveTiming *> byStart;
  for (CollectiveTiming &c : out.collectives) {
    byStart[c.startStep] = &c;
    for (std::vector<double> *v :
         {&c.startNs, &c.finishNs, &c.exposedNs, &c.overlapNs})
      v->assign(ranks, 0);
  }
  // Rank r waits at a done (or, serialised, at the start) for collective c,
  // after `c.exposedNs[r]` waited inside launches that await it.
  auto wait = [&](CollectiveTiming &c, int64_t r, StepTiming &step) {
    double before = clock[r], inside = c.exposedNs[r];
    step = {before, std::max(0.0, c.finishNs[r] - before)};
    c.exposedNs[r] = inside + step.durationNs;
    c.overlapNs[r] = std::max(
        0.0, std::min(c.finishNs[r], before) - c.startNs[r] - inside);
    clock[r] = std::max(before, c.finishNs[r]);
  };
  // How long kernel step s takes on rank r: its own time, or longer when a
  // collective it awaits finishes after it starts.
  auto launchNs = [&](size_t s, int64_t r) -> absl::StatusOr<double> {
    const Step &step = program.steps[s];
    double own = out.kernels[step.kernel].observedNs;
    std::vector<double> gates;
    CollectiveTiming *last = nullptr;
    for (int64_t startStep : step.awaits) {
      CollectiveTiming &c = *byStart.at(startStep);
      gates.push_back(c.finishNs[r] - clock[r]);
      if (!last || c.finishNs[r] > last->finishNs[r])
        last = &c;
    }
    if (!last || last->finishNs[r] <= clock[r])
      return own;
    NEURON_ASSIGN_OR_RETURN(gated, awaitedNs(s, r, gates));
    // The wait is charged to the collective that finishes last (the
    // others' results were there before it).
    last->exposedNs[r] += std::max(0.0, gated - own);
    return gated;
  };
  for (size_t s = 0; s < program.steps.size(); ++s) {
    const Step &step = program.steps[s];
    switch (step.kind) {
    case StepKind::Kernel:
    case StepKind::HostCall: {
      for (int64_t r = 0; r < ranks; ++r) {
        double d = 0;
        if (step.isKernel()) {
          NEURON_ASSIGN_OR_RETURN(ns, launchNs(s, r));
          d = ns;
        } else {
          d = hostNs.at(s);
        }
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
                      const std::optional<CollectiveLinks> &links,
                      const TimingOptions &options) {
  ProgramTiming out;
  out.kernels.resize(program.kernels.size());
  std::vector<bool> simulated(program.kernels.size(), false);
  // A kernel's own time: no release times (those are per launch).
  TimingOptions own = options;
  own.releaseNs.clear();
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
        simulateKernelTiming(program.kernels[step.kernel], model, own);
    if (!timing.ok())
      return timing.status();
    out.kernels[step.kernel] = *std::move(timing);
    simulated[step.kernel] = true;
  }
  // Host calls: their tensors over the host link, and their compute when a
  // functional run measured it.
  for (size_t s = 0; s < program.steps.size(); ++s) {
    const Step &step = program.steps[s];
    if (!step.isHostCall())
      continue;
    HostCallTiming h;
    h.step = int64_t(s);
    for (const std::vector<int64_t> *ids : {&step.inputs, &step.outputs})
      for (int64_t id : *ids)
        h.bytes += program.tensors[id].bytes();
    if (model.hostLinkBytesPerNs() > 0)
      h.transferNs = double(h.bytes) / model.hostLinkBytesPerNs();
    if (auto it = options.hostComputeNs.find(s);
        it != options.hostComputeNs.end())
      h.computeNs = it->second;
    out.hostCalls.push_back(h);
  }
  // Launches that await collectives inside, timed once per step and gates
  // (ranks usually share them); rank 0 times its own (first, in each
  // layout), kept for reports.
  std::map<std::pair<size_t, std::vector<double>>, double> awaited;
  AwaitedLaunchNs awaitedNs = [&](size_t s, int64_t rank,
                                  const std::vector<double> &gates)
      -> absl::StatusOr<double> {
    auto key = std::make_pair(s, gates);
    if (auto it = awaited.find(key); it != awaited.end() && rank != 0)
      return it->second;
    const Step &step = program.steps[s];
    const Kernel &kernel = program.kernels[step.kernel];
    TimingOptions gated = options;
    gated.releaseNs.assign(kernel.instructions.size(), 0.0);
    for (size_t a = 0; a < step.awaits.size(); ++a) {
      int64_t output = program.steps[step.awaits[a]].collective.output;
      for (size_t i = 0; i < kernel.instructions.size(); ++i)
        if (readsTensor(program, step, kernel.instructions[i], output))
          gated.releaseNs[i] = std::max(gated.releaseNs[i], gates[a]);
    }
    NEURON_ASSIGN_OR_RETURN(timing, simulateKernelTiming(kernel, model, gated));
    double ns = awaited[key] = timing.observedNs;
    if (rank == 0)
      out.awaitedLaunches[int64_t(s)] = std::move(timing);
    return ns;
  };
  // The observed layout comes last: it leaves the per-rank fields.
  NEURON_ASSIGN_OR_RETURN(serialised,
                          layOut(program, out, /*serialise=*/true, awaitedNs));
  NEURON_ASSIGN_OR_RETURN(overlapped,
                          layOut(program, out, /*serialise=*/false, awaitedNs));
  out.serialisedNs = serialised;
  out.totalNs = overlapped;
  out.steps = out.rankSteps[0];
  return out;
}

} // namespace neuron::rt
