//===- Profile.cpp - Reports of a program's timing ------------------------===//

#include "runtime/sim/Profile.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>

namespace neuron::rt {

using json = nlohmann::json;

static constexpr EngineClass kClasses[] = {
    EngineClass::Tensor, EngineClass::Vector, EngineClass::Scalar,
    EngineClass::GpSimd, EngineClass::Dma};

/// A number, or null when absent.
static json orNull(std::optional<double> v) {
  return v ? json(*v) : json(nullptr);
}

/// Where each step starts on the observed and the predicted clocks. A
/// step's predicted time is its kernel's `predicted_ns`, or what was
/// observed when the kernel has no schedule (host calls take 0 ns on both).
namespace {
struct StepClock {
  std::vector<double> observedStart, predictedStart;
  double observedTotal = 0, predictedTotal = 0;
};
} // namespace

static StepClock stepClock(const Program &program,
                           const ProgramTiming &timing) {
  StepClock c;
  for (size_t s = 0; s < program.steps.size(); ++s) {
    const Step &step = program.steps[s];
    c.observedStart.push_back(timing.steps[s].startNs);
    c.predictedStart.push_back(c.predictedTotal);
    // A host call takes the same time on both clocks (the host link and
    // its measured compute).
    if (step.isHostCall())
      c.predictedTotal += timing.steps[s].durationNs;
    if (!step.isKernel())
      continue;
    const Kernel &kernel = program.kernels[step.kernel];
    c.predictedTotal += kernel.schedule ? kernel.schedule->predictedNs
                                        : timing.steps[s].durationNs;
  }
  c.observedTotal = timing.totalNs;
  return c;
}

/// Where collective `c` runs on the predicted clock, when the compiler
/// predicted its time: from the predicted start of its start step for its
/// `predicted_ns`. Collective steps take 0 ns on that clock, so this is
/// also where the step after the start begins; the clock does not wait at
/// the done, so a collective may outlast its done step there.
static std::optional<std::pair<double, double>>
predictedSpan(const Program &program, const StepClock &clock,
              const CollectiveTiming &c) {
  const Collective &spec = program.steps[c.startStep].collective;
  if (!spec.predictedNs)
    return std::nullopt;
  double start = clock.predictedStart[c.startStep];
  return std::pair(start, start + *spec.predictedNs);
}

/// Per row of `model`'s lanes (each physical core's engines, then its DMA
/// engines): whether an instance ran on it, or a launched kernel's
/// instruction names it (predicted rows put a transfer on the row of its
/// queue's number).
static std::vector<bool> unitsUsed(const Program &program,
                                   const ProgramTiming &timing,
                                   const CostModel &model) {
  std::vector<bool> used(model.physicalCores() * lanesPerCore(model), false);
  for (const Step &step : program.steps)
    if (step.isKernel()) {
      for (const Instruction &inst : program.kernels[step.kernel].instructions)
        if (int64_t lane = laneOfUnit(unitOf(inst), model); lane >= 0)
          used[lane] = true;
      for (const TimedInstance &x : timing.kernels[step.kernel].recorded)
        used[x.lane] = true;
    }
  return used;
}

//===----------------------------------------------------------------------===//
// Profile
//===----------------------------------------------------------------------===//

static json kernelProfile(const Program &program, const ProgramTiming &timing,
                          const CostModel &model, size_t stepIndex) {
  const Step &step = program.steps[stepIndex];
  const Kernel &kernel = program.kernels[step.kernel];
  const KernelTiming &t = timing.launch(program, int64_t(stepIndex));
  const std::optional<KernelSchedule> &s = kernel.schedule;
  json k = {{"step", stepIndex},
            {"kernel", kernel.name},
            {"instructions", kernel.instructions.size()},
            {"dynamic_instructions", t.dynamicInstructions},
            {"observed_ns", t.observedNs}};
  k["predicted_ns"] = orNull(s ? std::optional(s->predictedNs) : std::nullopt);
  k["bound_ns"] = orNull(s ? std::optional(s->boundNs) : std::nullopt);
  k["critical_path_ns"] =
      orNull(s ? std::optional(s->criticalPathNs) : std::nullopt);
  k["serial_ns"] = orNull(s ? std::optional(s->serialNs) : std::nullopt);
  bool timed = t.observedNs > 0;
  k["observed_over_bound"] =
      orNull(s && s->boundNs > 0 ? std::optional(t.observedNs / s->boundNs)
                                 : std::nullopt);
  k["predicted_vs_observed"] = orNull(
      s && timed ? std::optional((s->predictedNs - t.observedNs) / t.observedNs)
                 : std::nullopt);
  json busy = json::object(), utilisation = json::object();
  for (EngineClass c : kClasses) {
    std::string name(engineClassName(c));
    double b = t.busyNs[int(c)];
    double capacity = t.observedNs * double(kernel.cores) *
                      (c == EngineClass::Dma ? model.dmaEngines() : 1);
    busy[name] = b;
    utilisation[name] = capacity > 0 ? b / capacity : 0.0;
  }
  k["busy_ns"] = std::move(busy);
  k["utilisation"] = std::move(utilisation);
  json path = json::array();
  if (s)
    for (int64_t i : s->criticalPath) {
      const Instruction &inst = kernel.instructions[i];
      path.push_back({{"index", i},
                      {"op", opName(inst.op)},
                      {"unit", unitName(unitOf(inst))}});
    }
  k["critical_path"] = std::move(path);
  return k;
}

/// The target's core counts: what a rank (a logical core) is.
static json coresJson(const ResolvedTarget &t) {
  return {
      {"spec", t.spec()},
      {"chips", t.chips()},
      {"physical_cores_per_chip", t.physicalCoresPerChip()},
      {"lnc", t.lnc.lnc},
      {"physical_cores_per_logical_core", t.lnc.physicalCoresPerLogicalCore},
      {"logical_cores_per_chip", t.logicalCoresPerChip()},
      {"logical_cores", t.logicalCoresPerInstance()},
      {"lnc_definition", t.lnc.definition}};
}

/// The time rank `r`'s last step ends.
static double rankEnd(const ProgramTiming &timing, size_t r) {
  const std::vector<StepTiming> &steps = timing.rankSteps[r];
  return steps.empty() ? 0.0 : steps.back().startNs + steps.back().durationNs;
}

static json collectiveJson(const Program &program, const CollectiveTiming &c) {
  const Collective &spec = program.steps[c.startStep].collective;
  json perRank = json::array();
  for (size_t r = 0; r < c.startNs.size(); ++r)
    perRank.push_back({{"rank", r},
                       {"start_ns", c.startNs[r]},
                       {"finish_ns", c.finishNs[r]},
                       {"exposed_ns", c.exposedNs[r]},
                       {"overlap_ns", c.overlapNs[r]}});
  return {
      {"id", spec.id},
      {"kind", collectiveOpName(spec.op)},
      {"start_step", c.startStep},
      {"done_step", c.doneStep},
      {"bytes", c.query.bytes},
      {"group", c.query.cores},
      {"chips", c.query.chips},
      {"predicted_algorithm",
       spec.algorithm ? json(algorithmName(*spec.algorithm)) : json(nullptr)},
      {"algorithm", algorithmName(c.algorithm)},
      {"chunks", c.chunks},
      {"predicted_ns", orNull(spec.predictedNs)},
      {"observed_ns", c.ns},
      {"exposed_ns", *std::max_element(c.exposedNs.begin(), c.exposedNs.end())},
      {"overlap_ns", *std::min_element(c.overlapNs.begin(), c.overlapNs.end())},
      {"per_rank", std::move(perRank)}};
}

static json spmdJson(const Program &program, const ProgramTiming &timing) {
  json ranks = json::array();
  for (size_t r = 0; r < timing.rankSteps.size(); ++r) {
    double waiting = 0;
    for (const CollectiveTiming &c : timing.collectives)
      waiting += c.exposedNs[r];
    ranks.push_back({{"rank", r},
                     {"observed_ns", rankEnd(timing, r)},
                     {"waiting_ns", waiting}});
  }
  json collectives = json::array();
  for (const CollectiveTiming &c : timing.collectives)
    collectives.push_back(collectiveJson(program, c));
  return {{"grid", program.grid},
          {"ranks", program.ranks()},
          {"observed_ns", timing.totalNs},
          {"serialised_ns", timing.serialisedNs},
          {"note", "observed: each collective overlaps the steps between its "
                   "start and done; serialised: every done right after its "
                   "start. A collective's observed_ns is the collective "
                   "model's time of the algorithm the compiler chose "
                   "(predicted_algorithm; the model's own choice when none "
                   "applies), exposed_ns the longest any rank waits for it, "
                   "overlap_ns the least of it any rank hides"},
          {"per_rank", std::move(ranks)},
          {"collectives", std::move(collectives)}};
}

json profileJson(const Program &program, const ProgramTiming &timing,
                 const CostModel &model, const json &target,
                 const ResolvedTarget *resolved) {
  json kernels = json::array();
  std::optional<double> predicted, bound;
  int64_t hostCalls = 0;
  for (size_t i = 0; i < program.steps.size(); ++i) {
    const Step &step = program.steps[i];
    hostCalls += step.isHostCall();
    if (!step.isKernel())
      continue;
    kernels.push_back(kernelProfile(program, timing, model, i));
    if (const auto &s = program.kernels[step.kernel].schedule) {
      predicted = predicted.value_or(0) + s->predictedNs;
      bound = bound.value_or(0) + s->boundNs;
    }
  }
  json lines = json::array();
  std::vector<std::string> assumptions =
      absl::StrSplit(model.assumptions(), '\n', absl::SkipEmpty());
  for (std::string &line : assumptions)
    lines.push_back(std::move(line));
  json programJson = {{"observed_ns", timing.totalNs},
                      {"predicted_ns", orNull(predicted)},
                      {"bound_ns", orNull(bound)},
                      {"steps", program.steps.size()},
                      {"host_calls", hostCalls}};
  if (hostCalls)
    programJson["note"] = "predicted_ns and bound_ns sum the scheduled "
                          "kernel steps; observed_ns also has the host calls "
                          "(host_calls: their tensors over the host link, "
                          "and their host compute as a functional run "
                          "measured it, null when none did)";
  else
    programJson["note"] = "predicted_ns and bound_ns sum the scheduled "
                          "kernel steps";
  json hostCallsJson = json::array();
  for (const HostCallTiming &h : timing.hostCalls)
    hostCallsJson.push_back(
        {{"step", h.step},
         {"name", program.steps[h.step].hostCall},
         {"bytes", h.bytes},
         {"transfer_ns", h.transferNs},
         {"compute_ns", h.computeNs ? json(*h.computeNs) : json(nullptr)},
         {"ns", h.ns()}});
  json doc = {{"schema", "neuron-profile/1"},
              {"target", target},
              {"cost_model", std::move(lines)},
              {"program", std::move(programJson)},
              {"kernels", std::move(kernels)}};
  if (!timing.hostCalls.empty())
    doc["host_calls"] = std::move(hostCallsJson);
  if (resolved)
    doc["cores"] = coresJson(*resolved);
  if (program.isSpmd())
    doc["spmd"] = spmdJson(program, timing);
  return doc;
}

//===----------------------------------------------------------------------===//
// Chrome trace
//===----------------------------------------------------------------------===//

json traceJson(const Program &program, const ProgramTiming &timing,
               const CostModel &model) {
  StepClock clock = stepClock(program, timing);
  json events = json::array();
  std::vector<bool> used = unitsUsed(program, timing, model);
  int64_t units = used.size();
  int64_t ranks = int64_t(timing.rankSteps.size());
  // Observed: one process per rank; then predicted; then the links.
  std::vector<std::pair<int64_t, std::string>> processes;
  for (int64_t r = 0; r < ranks; ++r)
    processes.emplace_back(r + 1, program.isSpmd()
                                      ? absl::StrFormat("observed rank %d", r)
                                      : std::string("observed"));
  int64_t predictedPid = ranks + 1, linksPid = ranks + 2;
  processes.emplace_back(predictedPid, "predicted");
  auto meta = [&](int64_t pid, std::optional<int64_t> tid, const char *what,
                  json args) {
    json e = {{"ph", "M"}, {"pid", pid}, {"name", what}, {"args", args}};
    if (tid)
      e["tid"] = *tid;
    events.push_back(std::move(e));
  };
  for (const auto &[pid, name] : processes) {
    meta(pid, std::nullopt, "process_name", {{"name", name}});
    meta(pid, std::nullopt, "process_sort_index", {{"sort_index", pid}});
    for (int64_t u = 0; u < units; ++u) {
      if (!used[u])
        continue;
      meta(pid, u, "thread_name", {{"name", laneName(u, model)}});
      meta(pid, u, "thread_sort_index", {{"sort_index", u}});
    }
  }
  auto event = [&](int64_t pid, int64_t unit, std::string_view op, double start,
                   double end, const std::string &kernel, size_t step,
                   size_t index) {
    events.push_back(
        {{"ph", "X"},
         {"pid", pid},
         {"tid", unit},
         {"name", op},
         {"ts", start * 1e-3},
         {"dur", (end - start) * 1e-3},
         {"args", {{"kernel", kernel}, {"step", step}, {"index", index}}}});
  };
  for (size_t s = 0; s < program.steps.size(); ++s) {
    const Step &step = program.steps[s];
    if (!step.isKernel())
      continue;
    const Kernel &kernel = program.kernels[step.kernel];
    const KernelTiming &t = timing.launch(program, int64_t(s));
    for (const TimedInstance &x : t.recorded) {
      const Instruction &inst = kernel.instructions[x.instruction];
      for (int64_t r = 0; r < ranks; ++r) {
        double base = timing.rankSteps[r][s].startNs;
        event(r + 1, x.lane, opName(inst.op), base + x.startNs,
              base + x.endNs, kernel.name, s, x.instruction);
      }
    }
    for (size_t i = 0; i < kernel.instructions.size(); ++i) {
      const Instruction &inst = kernel.instructions[i];
      int64_t lane = laneOfUnit(unitOf(inst), model);
      if (kernel.schedule && inst.startNs && inst.endNs && lane >= 0)
        event(predictedPid, lane, opName(inst.op),
              clock.predictedStart[s] + *inst.startNs,
              clock.predictedStart[s] + *inst.endNs, kernel.name, s, i);
    }
  }
  // Host calls, on a "host" thread of each observed rank and of the
  // predicted clock, after the units and the collective thread.
  if (!timing.hostCalls.empty()) {
    int64_t hostTid = units + 1;
    for (int64_t pid = 1; pid <= ranks + 1; ++pid)
      meta(pid, hostTid, "thread_name", {{"name", "host"}});
    for (const HostCallTiming &h : timing.hostCalls) {
      json args = {{"step", h.step},
                   {"bytes", h.bytes},
                   {"transfer_ns", h.transferNs},
                   {"compute_ns", h.computeNs ? json(*h.computeNs)
                                              : json(nullptr)}};
      auto add = [&](int64_t pid, double start) {
        events.push_back({{"ph", "X"},
                          {"pid", pid},
                          {"tid", hostTid},
                          {"name", "host_call " + program.steps[h.step].hostCall},
                          {"ts", start * 1e-3},
                          {"dur", h.ns() * 1e-3},
                          {"args", args}});
      };
      for (int64_t r = 0; r < ranks; ++r)
        add(r + 1, timing.rankSteps[r][h.step].startNs);
      add(predictedPid, clock.predictedStart[h.step]);
    }
  }
  if (timing.collectives.empty())
    return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
  // The predicted collectives, on a thread after the units.
  int64_t collectiveTid = units;
  meta(predictedPid, collectiveTid, "thread_name", {{"name", "collective"}});
  meta(predictedPid, collectiveTid, "thread_sort_index",
       {{"sort_index", collectiveTid}});
  for (const CollectiveTiming &c : timing.collectives) {
    const Collective &spec = program.steps[c.startStep].collective;
    std::optional<std::pair<double, double>> span =
        predictedSpan(program, clock, c);
    if (!span)
      continue;
    events.push_back(
        {{"ph", "X"},
         {"pid", predictedPid},
         {"tid", collectiveTid},
         {"name", collectiveOpName(spec.op)},
         {"ts", span->first * 1e-3},
         {"dur", (span->second - span->first) * 1e-3},
         {"args",
          {{"id", spec.id},
           {"start_step", c.startStep},
           {"done_step", c.doneStep},
           {"predicted_ns", *spec.predictedNs},
           {"algorithm", spec.algorithm ? json(algorithmName(*spec.algorithm))
                                        : json(nullptr)}}}});
  }
  meta(linksPid, std::nullopt, "process_name", {{"name", "links"}});
  meta(linksPid, std::nullopt, "process_sort_index",
       {{"sort_index", linksPid}});
  for (int64_t r = 0; r < ranks; ++r)
    meta(linksPid, r, "thread_name", {{"name", absl::StrFormat("rank %d", r)}});
  for (const CollectiveTiming &c : timing.collectives) {
    const Collective &spec = program.steps[c.startStep].collective;
    for (int64_t r = 0; r < ranks; ++r)
      events.push_back(
          {{"ph", "X"},
           {"pid", linksPid},
           {"tid", r},
           {"name",
            absl::StrFormat("%s #%d", collectiveOpName(spec.op), spec.id)},
           {"ts", c.startNs[r] * 1e-3},
           {"dur", (c.finishNs[r] - c.startNs[r]) * 1e-3},
           {"args",
            {{"start_step", c.startStep},
             {"done_step", c.doneStep},
             {"algorithm", algorithmName(c.algorithm)},
             {"bytes", c.query.bytes},
             {"predicted_ns", orNull(spec.predictedNs)},
             {"exposed_ns", c.exposedNs[r]},
             {"overlap_ns", c.overlapNs[r]}}}});
  }
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
}

//===----------------------------------------------------------------------===//
// SVG timeline
//===----------------------------------------------------------------------===//

namespace {
/// Rectangles of one row, merged when narrower than a pixel.
class Row {
public:
  /// `label(first)` is the tooltip of an unmerged rectangle; a merged one
  /// reads "N <what>".
  Row(std::string &svg, double y, double height, std::string_view colour,
      std::function<std::string(size_t)> label,
      std::string_view what = "instructions")
      : svg(svg), y(y), height(height), colour(colour), what(what),
        label(std::move(label)) {}
  ~Row() { flush(); }

  void add(double x0, double x1, size_t id) {
    if (count && x0 <= right + 1 && (x1 - x0 < 1 || right - left < 1)) {
      right = std::max(right, x1);
      ++count;
      return;
    }
    flush();
    left = x0;
    right = x1;
    count = 1;
    first = id;
  }

private:
  void flush() {
    if (!count)
      return;
    std::string text =
        count == 1 ? label(first) : absl::StrFormat("%d %s", count, what);
    absl::StrAppendFormat(
        &svg,
        "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
        "fill=\"%s\"><title>%s</title></rect>\n",
        left, y, std::max(right - left, 0.5), height, colour, text);
    count = 0;
  }

  std::string &svg;
  double y, height;
  std::string_view colour, what;
  double left = 0, right = 0;
  int64_t count = 0;
  size_t first = 0;
  std::function<std::string(size_t)> label;
};
} // namespace

static std::string_view colourOf(EngineClass c) {
  switch (c) {
  case EngineClass::Tensor:
    return "#4e79a7";
  case EngineClass::Vector:
    return "#f28e2b";
  case EngineClass::Scalar:
    return "#59a14f";
  case EngineClass::GpSimd:
    return "#b07aa1";
  case EngineClass::Dma:
    return "#9c755f";
  }
  return "#888888";
}

/// "12.5 µs" style: ns printed in µs.
static std::string micros(double ns) {
  return absl::StrFormat("%.3f", ns * 1e-3);
}

/// A tick step of 1, 2 or 5 times a power of ten giving about 10 ticks.
static double tickStep(double span) {
  double raw = std::max(span / 10, 1e-3);
  double power = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * power >= raw)
      return m * power;
  return 10 * power;
}

namespace {
/// The SVG timeline's geometry: the units drawn (one row each) and the
/// time scale.
struct Lanes {
  /// The lanes drawn, and each lane's row (-1 when not drawn), of the
  /// cost model's lanes.
  std::vector<int64_t> rows;
  std::vector<int64_t> rowOf;
  const CostModel *model = nullptr;
  double left = 80, width = 1200, rowHeight = 14, scale = 1;
};
} // namespace

/// At most this many ranks get an observed group; a line counts the rest.
static constexpr int64_t kMaxRanksDrawn = 8;
static constexpr std::string_view kCollectiveColour = "#e15759";
static constexpr std::string_view kHostColour = "#9c755f";

/// A group's bold label and its rows' labels, the first row 16 below `y0`.
static void drawGroupLabels(std::string &svg, const Lanes &lanes, double y0,
                            std::string_view label,
                            const std::vector<std::string> &rowLabels) {
  absl::StrAppendFormat(&svg,
                        "<text x=\"4\" y=\"%.1f\" font-weight=\"bold\">%s"
                        "</text>\n",
                        y0 + 10, label);
  for (size_t r = 0; r < rowLabels.size(); ++r)
    absl::StrAppendFormat(&svg,
                          "<text x=\"%.0f\" y=\"%.1f\" "
                          "text-anchor=\"end\">%s</text>\n",
                          lanes.left - 6,
                          y0 + 16 + r * lanes.rowHeight + lanes.rowHeight - 3,
                          rowLabels[r]);
}

/// The unit rows of a group below `y0`: rank `rank`'s observed
/// instructions at its step clock, or the predicted ones without a rank.
static void drawUnitRows(std::string &svg, const Program &program,
                         const ProgramTiming &timing, const StepClock &clock,
                         const Lanes &lanes, double y0,
                         std::optional<size_t> rank) {
  bool observed = rank.has_value();
  // Every row's intervals (start, end, step, instruction), in time order.
  using Span = std::tuple<double, double, size_t, size_t>;
  std::vector<std::vector<Span>> spans(lanes.rows.size());
  for (size_t s = 0; s < program.steps.size(); ++s) {
    const Step &step = program.steps[s];
    if (!step.isKernel())
      continue;
    const Kernel &kernel = program.kernels[step.kernel];
    if (!observed && !kernel.schedule)
      continue;
    const KernelTiming &t = timing.launch(program, int64_t(s));
    double base =
        observed ? timing.rankSteps[*rank][s].startNs : clock.predictedStart[s];
    if (observed)
      for (const TimedInstance &x : t.recorded)
        spans[lanes.rowOf[x.lane]]
            .emplace_back(base + x.startNs, base + x.endNs, s,
                          size_t(x.instruction));
    for (size_t i = 0; !observed && i < kernel.instructions.size(); ++i) {
      const Instruction &inst = kernel.instructions[i];
      int64_t lane = laneOfUnit(unitOf(inst), *lanes.model);
      if (inst.startNs && inst.endNs && lane >= 0 &&
          lane < int64_t(lanes.rowOf.size()) && lanes.rowOf[lane] >= 0)
        spans[lanes.rowOf[lane]].emplace_back(base + *inst.startNs,
                                              base + *inst.endNs, s, i);
    }
  }
  for (size_t r = 0; r < lanes.rows.size(); ++r) {
    std::sort(spans[r].begin(), spans[r].end());
    std::string colour(colourOf(classOfLane(lanes.rows[r], *lanes.model)));
    const std::vector<Span> &row = spans[r];
    Row out(svg, y0 + 16 + r * lanes.rowHeight + 1, lanes.rowHeight - 2, colour,
            [&](size_t k) {
              auto [start, end, s, i] = row[k];
              const Kernel &kernel = program.kernels[program.steps[s].kernel];
              return absl::StrFormat("%s #%d, step %d (%s): %.1f..%.1f ns",
                                     opName(kernel.instructions[i].op), i, s,
                                     kernel.name, start, end);
            });
    for (size_t k = 0; k < row.size(); ++k)
      out.add(lanes.left + std::get<0>(row[k]) * lanes.scale,
              lanes.left + std::get<1>(row[k]) * lanes.scale, k);
  }
}

/// The host row at `y`: rank `rank`'s host calls on its observed clock, or
/// without a rank on the predicted one.
static void drawHostRow(std::string &svg, const Program &program,
                        const ProgramTiming &timing, const StepClock &clock,
                        const Lanes &lanes, double y,
                        std::optional<size_t> rank) {
  Row out(
      svg, y + 1, lanes.rowHeight - 2, kHostColour,
      [&](size_t k) {
        const HostCallTiming &h = timing.hostCalls[k];
        return absl::StrFormat(
            "host_call %s, step %d: %d bytes over the host link %.1f ns, "
            "host compute %s",
            program.steps[h.step].hostCall, h.step, h.bytes, h.transferNs,
            h.computeNs ? absl::StrFormat("%.1f ns", *h.computeNs)
                        : std::string("not measured"));
      },
      "host calls");
  for (size_t k = 0; k < timing.hostCalls.size(); ++k) {
    const HostCallTiming &h = timing.hostCalls[k];
    double start = rank ? timing.rankSteps[*rank][h.step].startNs
                        : clock.predictedStart[h.step];
    out.add(lanes.left + start * lanes.scale,
            lanes.left + (start + h.ns()) * lanes.scale, k);
  }
}

/// The collective row at `y`: rank `rank`'s collectives from start to
/// finish, or without a rank their predicted placement (predictedSpan).
static void drawCollectiveRow(std::string &svg, const Program &program,
                              const ProgramTiming &timing,
                              const StepClock &clock, const Lanes &lanes,
                              double y, std::optional<size_t> rank) {
  // (start, end, collective), in time order.
  std::vector<std::tuple<double, double, size_t>> spans;
  for (size_t k = 0; k < timing.collectives.size(); ++k) {
    const CollectiveTiming &c = timing.collectives[k];
    if (rank) {
      spans.emplace_back(c.startNs[*rank], c.finishNs[*rank], k);
    } else if (auto span = predictedSpan(program, clock, c)) {
      spans.emplace_back(span->first, span->second, k);
    }
  }
  std::sort(spans.begin(), spans.end());
  Row out(
      svg, y + 1, lanes.rowHeight - 2, kCollectiveColour,
      [&](size_t k) {
        auto [start, end, index] = spans[k];
        const CollectiveTiming &c = timing.collectives[index];
        const Collective &spec = program.steps[c.startStep].collective;
        std::string head =
            absl::StrFormat("%s #%d: %.0f bytes, ", collectiveOpName(spec.op),
                            spec.id, c.query.bytes);
        if (rank)
          return head + absl::StrFormat("%s, observed %.1f ns, hidden %.1f ns: "
                                        "%.1f..%.1f ns",
                                        algorithmName(c.algorithm), end - start,
                                        c.overlapNs[*rank], start, end);
        return head + absl::StrFormat("%s, predicted %.1f ns: %.1f..%.1f ns",
                                      spec.algorithm
                                          ? algorithmName(*spec.algorithm)
                                          : std::string_view("-"),
                                      end - start, start, end);
      },
      "collectives");
  for (size_t k = 0; k < spans.size(); ++k)
    out.add(lanes.left + std::get<0>(spans[k]) * lanes.scale,
            lanes.left + std::get<1>(spans[k]) * lanes.scale, k);
}

std::string timelineSvg(const Program &program, const ProgramTiming &timing,
                        const CostModel &model) {
  StepClock clock = stepClock(program, timing);
  std::vector<bool> used = unitsUsed(program, timing, model);
  int64_t units = used.size();
  bool anyPredicted = false;
  for (const Step &step : program.steps)
    if (step.isKernel())
      anyPredicted |= program.kernels[step.kernel].schedule.has_value();
  Lanes lanes;
  lanes.model = &model;
  lanes.rowOf.assign(units, -1);
  for (int64_t u = 0; u < units; ++u)
    if (used[u]) {
      lanes.rowOf[u] = lanes.rows.size();
      lanes.rows.push_back(u);
    }
  // An SPMD program gets one observed group per rank, each with a
  // collective row; a single-core one a single "observed" group.
  bool spmd = program.isSpmd();
  bool collectives = !timing.collectives.empty();
  int64_t ranks = int64_t(timing.rankSteps.size());
  int64_t ranksDrawn = std::min(ranks, kMaxRanksDrawn);
  double span = std::max({clock.observedTotal, clock.predictedTotal, 1e-9});
  for (const CollectiveTiming &c : timing.collectives) {
    span =
        std::max(span, *std::max_element(c.finishNs.begin(), c.finishNs.end()));
    if (auto s = predictedSpan(program, clock, c)) {
      anyPredicted = true;
      span = std::max(span, s->second);
    }
  }
  lanes.scale = lanes.width / span;

  std::vector<std::string> rowLabels;
  for (int64_t u : lanes.rows)
    rowLabels.emplace_back(laneName(u, model));
  if (collectives)
    rowLabels.emplace_back("collective");
  bool hostCalls = !timing.hostCalls.empty();
  if (hostCalls)
    rowLabels.emplace_back("host");
  const double top = 60, omittedHeight = 18;
  const double groupHeight = lanes.rowHeight * rowLabels.size() + 24;
  int64_t groups = (spmd ? ranksDrawn : 1) + (anyPredicted ? 1 : 0);
  bool omitted = spmd && ranksDrawn < ranks;
  const double axisY =
      top + groups * groupHeight + (omitted ? omittedHeight : 0);
  const double height = axisY + 40;
  const double left = lanes.left, width = lanes.width, scale = lanes.scale;

  std::optional<double> predicted, bound;
  for (const Step &step : program.steps)
    if (step.isKernel())
      if (const auto &s = program.kernels[step.kernel].schedule) {
        predicted = predicted.value_or(0) + s->predictedNs;
        bound = bound.value_or(0) + s->boundNs;
      }
  auto optMicros = [](std::optional<double> ns) {
    return ns ? micros(*ns) + " µs" : std::string("-");
  };
  std::string svg = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
      "height=\"%.0f\" font-family=\"sans-serif\" font-size=\"11\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"%.0f\" y=\"20\" font-size=\"14\">program: observed %s µs, "
      "predicted %s, bound %s (%d steps)</text>\n",
      left + width + 20, height, left, micros(timing.totalNs),
      optMicros(predicted), optMicros(bound), program.steps.size());
  int64_t kernelSteps = 0;
  for (const Step &step : program.steps)
    kernelSteps += step.isKernel();
  if (kernelSteps == 1)
    for (size_t s = 0; s < program.steps.size(); ++s)
      if (program.steps[s].isKernel()) {
        const Kernel &k = program.kernels[program.steps[s].kernel];
        absl::StrAppendFormat(
            &svg,
            "<text x=\"%.0f\" y=\"38\">kernel %s: observed %s µs, predicted "
            "%s, bound %s</text>\n",
            left, k.name,
            micros(timing.launch(program, int64_t(s)).observedNs),
            optMicros(k.schedule ? std::optional(k.schedule->predictedNs)
                                 : std::nullopt),
            optMicros(k.schedule ? std::optional(k.schedule->boundNs)
                                 : std::nullopt));
      }

  // One group: its labels, unit rows and collective row; SPMD groups are
  // wrapped in <g> so each rank's part can be found.
  double y0 = top;
  auto group = [&](const std::string &label, std::optional<size_t> rank) {
    if (spmd)
      absl::StrAppendFormat(&svg, "<g id=\"%s\">\n",
                            absl::StrReplaceAll(label, {{" ", "-"}}));
    drawGroupLabels(svg, lanes, y0, label, rowLabels);
    drawUnitRows(svg, program, timing, clock, lanes, y0, rank);
    if (collectives)
      drawCollectiveRow(svg, program, timing, clock, lanes,
                        y0 + 16 + lanes.rows.size() * lanes.rowHeight, rank);
    if (hostCalls)
      drawHostRow(svg, program, timing, clock, lanes,
                  y0 + 16 +
                      (lanes.rows.size() + (collectives ? 1 : 0)) *
                          lanes.rowHeight,
                  rank);
    if (spmd)
      svg += "</g>\n";
    y0 += groupHeight;
  };
  if (!spmd)
    group("observed", 0);
  for (int64_t r = 0; spmd && r < ranksDrawn; ++r)
    group(absl::StrFormat("rank %d", r), r);
  if (omitted) {
    absl::StrAppendFormat(&svg,
                          "<text x=\"4\" y=\"%.1f\">ranks %d..%d not drawn "
                          "(%d ranks)</text>\n",
                          y0 + 10, ranksDrawn, ranks - 1, ranks);
    y0 += omittedHeight;
  }
  if (anyPredicted)
    group("predicted", std::nullopt);

  // The time axis, in µs.
  absl::StrAppendFormat(&svg,
                        "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" "
                        "y2=\"%.1f\" stroke=\"black\"/>\n",
                        left, axisY, left + width, axisY);
  double step = tickStep(span * 1e-3);
  for (double us = 0; us * 1e3 <= span * (1 + 1e-9); us += step)
    absl::StrAppendFormat(
        &svg,
        "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" "
        "stroke=\"black\"/><text x=\"%.2f\" y=\"%.1f\" "
        "text-anchor=\"middle\">%g</text>\n",
        left + us * 1e3 * scale, axisY, left + us * 1e3 * scale, axisY + 5,
        left + us * 1e3 * scale, axisY + 17, us);
  absl::StrAppendFormat(&svg,
                        "<text x=\"%.0f\" y=\"%.1f\" "
                        "text-anchor=\"middle\">time (µs)</text>\n",
                        left + width / 2, axisY + 33);
  svg += "</svg>\n";
  return svg;
}

//===----------------------------------------------------------------------===//
// Summary
//===----------------------------------------------------------------------===//

std::string timingSummary(const Program &program, const ProgramTiming &timing) {
  auto us = [](std::optional<double> ns) {
    return ns ? absl::StrFormat("%.3f", *ns * 1e-3) : std::string("-");
  };
  std::string out = absl::StrFormat(
      "%-5s %-24s %12s %12s %14s %14s %14s %14s\n", "step", "kernel",
      "instructions", "executed", "predicted_us", "observed_us", "bound_us",
      "observed/bound");
  std::optional<double> predicted, bound;
  for (size_t s = 0; s < program.steps.size(); ++s) {
    const Step &step = program.steps[s];
    if (step.isHostCall()) {
      absl::StrAppendFormat(&out, "%-5d %-24s %12s %12s %14s %14.3f %14s %14s\n",
                            s, "host_call " + step.hostCall, "-", "-", "-",
                            timing.steps[s].durationNs * 1e-3, "-", "-");
      continue;
    }
    if (step.isCollective()) {
      // The start shows the collective's own time, the done the wait.
      const Collective &c = step.collective;
      bool start = step.kind == StepKind::CollectiveStart;
      const CollectiveTiming *t = nullptr;
      for (const CollectiveTiming &ct : timing.collectives)
        if (ct.startStep == (start ? int64_t(s) : step.partner))
          t = &ct;
      std::string name = absl::StrFormat("%s %s #%d", start ? "start" : "done",
                                         collectiveOpName(c.op), c.id);
      std::optional<double> observed =
          !t ? std::nullopt
             : std::optional(start ? t->ns : timing.steps[s].durationNs);
      absl::StrAppendFormat(&out, "%-5d %-24s %12s %12s %14s %14s %14s %14s\n",
                            s, name, "-", "-", start ? us(c.predictedNs) : "-",
                            us(observed) + (start ? "" : " wait"), "-", "-");
      continue;
    }
    const Kernel &kernel = program.kernels[step.kernel];
    const std::optional<KernelSchedule> &sched = kernel.schedule;
    double observed = timing.steps[s].durationNs;
    std::optional<double> p, b, ratio;
    if (sched) {
      p = sched->predictedNs;
      b = sched->boundNs;
      predicted = predicted.value_or(0) + *p;
      bound = bound.value_or(0) + *b;
      if (*b > 0)
        ratio = observed / *b;
    }
    absl::StrAppendFormat(
        &out, "%-5d %-24s %12d %12d %14s %14s %14s %14s\n", s, kernel.name,
        kernel.instructions.size(),
        timing.kernels[step.kernel].dynamicInstructions, us(p), us(observed),
        us(b), ratio ? absl::StrFormat("%.3f", *ratio) : std::string("-"));
  }
  std::optional<double> ratio;
  if (bound && *bound > 0)
    ratio = timing.totalNs / *bound;
  absl::StrAppendFormat(&out, "%-5s %-24s %12s %12s %14s %14s %14s %14s\n",
                        "total", "", "", "", us(predicted), us(timing.totalNs),
                        us(bound),
                        ratio ? absl::StrFormat("%.3f", *ratio)
                              : std::string("-"));
  if (!program.isSpmd())
    return out;
  absl::StrAppendFormat(
      &out,
      "spmd: %d ranks (grid [%s]); observed %s us with collectives "
      "overlapped, %s us with every collective serialised\n",
      program.ranks(), absl::StrJoin(program.grid, ", "), us(timing.totalNs),
      us(timing.serialisedNs));
  for (const CollectiveTiming &c : timing.collectives) {
    const Collective &spec = program.steps[c.startStep].collective;
    absl::StrAppendFormat(
        &out,
        "  %s #%d: %.0f bytes over %d ranks on %d chips, %s (%d chunks): "
        "predicted %s us, observed %s us, exposed %s us, overlapped %s us\n",
        collectiveOpName(spec.op), spec.id, c.query.bytes, c.query.cores,
        c.query.chips, algorithmName(c.algorithm), c.chunks,
        us(spec.predictedNs), us(c.ns),
        us(*std::max_element(c.exposedNs.begin(), c.exposedNs.end())),
        us(*std::min_element(c.overlapNs.begin(), c.overlapNs.end())));
  }
  for (size_t r = 1; r < timing.rankSteps.size(); ++r)
    if (rankEnd(timing, r) != rankEnd(timing, 0))
      absl::StrAppendFormat(&out, "  rank %d ends at %s us\n", r,
                            us(rankEnd(timing, r)));
  return out;
}

} // namespace neuron::rt
