//===- Profile.cpp - Reports of a program's timing ------------------------===//

#include "runtime/sim/Profile.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
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

static EngineClass classOfUnit(int64_t unit) {
  return unit >= kFirstDmaUnit ? EngineClass::Dma
                               : static_cast<EngineClass>(unit);
}

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
    if (step.isHostCall)
      continue;
    const Kernel &kernel = program.kernels[step.kernel];
    c.predictedTotal += kernel.schedule ? kernel.schedule->predictedNs
                                        : timing.steps[s].durationNs;
  }
  c.observedTotal = timing.totalNs;
  return c;
}

/// Per unit of `model`: whether an instruction of a launched kernel runs on
/// it.
static std::vector<bool> unitsUsed(const Program &program,
                                   const CostModel &model) {
  std::vector<bool> used(kFirstDmaUnit + model.dmaQueues(), false);
  for (const Step &step : program.steps)
    if (!step.isHostCall)
      for (const Instruction &inst : program.kernels[step.kernel].instructions)
        used[unitOf(inst)] = true;
  return used;
}

//===----------------------------------------------------------------------===//
// Profile
//===----------------------------------------------------------------------===//

static json kernelProfile(const Program &program, const ProgramTiming &timing,
                          const CostModel &model, size_t stepIndex) {
  const Step &step = program.steps[stepIndex];
  const Kernel &kernel = program.kernels[step.kernel];
  const KernelTiming &t = timing.kernels[step.kernel];
  const std::optional<KernelSchedule> &s = kernel.schedule;
  json k = {{"step", stepIndex},
            {"kernel", kernel.name},
            {"instructions", kernel.instructions.size()},
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
    double capacity =
        t.observedNs * (c == EngineClass::Dma ? model.dmaQueues() : 1);
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

json profileJson(const Program &program, const ProgramTiming &timing,
                 const CostModel &model, const json &target) {
  json kernels = json::array();
  std::optional<double> predicted, bound;
  int64_t hostCalls = 0;
  for (size_t i = 0; i < program.steps.size(); ++i) {
    const Step &step = program.steps[i];
    if (step.isHostCall) {
      ++hostCalls;
      continue;
    }
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
    programJson["note"] = "host_call steps count 0 ns: host time is not "
                          "modelled; predicted_ns and bound_ns sum the "
                          "scheduled kernel steps";
  else
    programJson["note"] = "predicted_ns and bound_ns sum the scheduled "
                          "kernel steps";
  return {{"schema", "neuron-profile/1"},
          {"target", target},
          {"cost_model", std::move(lines)},
          {"program", std::move(programJson)},
          {"kernels", std::move(kernels)}};
}

//===----------------------------------------------------------------------===//
// Chrome trace
//===----------------------------------------------------------------------===//

json traceJson(const Program &program, const ProgramTiming &timing,
               const CostModel &model) {
  StepClock clock = stepClock(program, timing);
  json events = json::array();
  std::vector<bool> used = unitsUsed(program, model);
  int64_t units = used.size();
  for (auto [pid, name] : {std::pair{1, "observed"}, {2, "predicted"}}) {
    events.push_back({{"ph", "M"},
                      {"pid", pid},
                      {"name", "process_name"},
                      {"args", {{"name", name}}}});
    events.push_back({{"ph", "M"},
                      {"pid", pid},
                      {"name", "process_sort_index"},
                      {"args", {{"sort_index", pid}}}});
    for (int64_t u = 0; u < units; ++u) {
      if (!used[u])
        continue;
      events.push_back({{"ph", "M"},
                        {"pid", pid},
                        {"tid", u},
                        {"name", "thread_name"},
                        {"args", {{"name", unitName(u)}}}});
      events.push_back({{"ph", "M"},
                        {"pid", pid},
                        {"tid", u},
                        {"name", "thread_sort_index"},
                        {"args", {{"sort_index", u}}}});
    }
  }
  auto event = [&](int pid, int64_t unit, std::string_view op, double start,
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
    if (step.isHostCall)
      continue;
    const Kernel &kernel = program.kernels[step.kernel];
    const KernelTiming &t = timing.kernels[step.kernel];
    for (size_t i = 0; i < kernel.instructions.size(); ++i) {
      const Instruction &inst = kernel.instructions[i];
      int64_t unit = unitOf(inst);
      double base = clock.observedStart[s];
      event(1, unit, opName(inst.op), base + t.startNs[i], base + t.endNs[i],
            kernel.name, s, i);
      if (kernel.schedule && inst.startNs && inst.endNs)
        event(2, unit, opName(inst.op), clock.predictedStart[s] + *inst.startNs,
              clock.predictedStart[s] + *inst.endNs, kernel.name, s, i);
    }
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
  /// `label(first)` is the tooltip of an unmerged rectangle.
  Row(std::string &svg, double y, double height, std::string_view colour,
      std::function<std::string(size_t)> label)
      : svg(svg), y(y), height(height), colour(colour),
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
        count == 1 ? label(first) : absl::StrFormat("%d instructions", count);
    absl::StrAppendFormat(
        &svg,
        "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
        "fill=\"%s\"><title>%s</title></rect>\n",
        left, y, std::max(right - left, 0.5), height, colour, text);
    count = 0;
  }

  std::string &svg;
  double y, height;
  std::string_view colour;
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

std::string timelineSvg(const Program &program, const ProgramTiming &timing,
                        const CostModel &model) {
  StepClock clock = stepClock(program, timing);
  std::vector<bool> used = unitsUsed(program, model);
  int64_t units = used.size();
  bool anyPredicted = false;
  for (const Step &step : program.steps)
    if (!step.isHostCall)
      anyPredicted |= program.kernels[step.kernel].schedule.has_value();
  std::vector<int64_t> rows;
  std::vector<int64_t> rowOf(units, -1);
  for (int64_t u = 0; u < units; ++u)
    if (used[u]) {
      rowOf[u] = rows.size();
      rows.push_back(u);
    }

  const double left = 80, width = 1200, rowHeight = 14, top = 60;
  const double groupHeight = rowHeight * rows.size() + 24;
  int groups = anyPredicted ? 2 : 1;
  const double axisY = top + groups * groupHeight;
  const double height = axisY + 40;
  double span = std::max({clock.observedTotal, clock.predictedTotal, 1e-9});
  double scale = width / span;

  std::optional<double> predicted, bound;
  for (const Step &step : program.steps)
    if (!step.isHostCall)
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
    kernelSteps += !step.isHostCall;
  if (kernelSteps == 1)
    for (size_t s = 0; s < program.steps.size(); ++s)
      if (!program.steps[s].isHostCall) {
        const Kernel &k = program.kernels[program.steps[s].kernel];
        absl::StrAppendFormat(
            &svg,
            "<text x=\"%.0f\" y=\"38\">kernel %s: observed %s µs, predicted "
            "%s, bound %s</text>\n",
            left, k.name,
            micros(timing.kernels[program.steps[s].kernel].observedNs),
            optMicros(k.schedule ? std::optional(k.schedule->predictedNs)
                                 : std::nullopt),
            optMicros(k.schedule ? std::optional(k.schedule->boundNs)
                                 : std::nullopt));
      }

  for (int g = 0; g < groups; ++g) {
    bool observed = g == 0;
    double y0 = top + g * groupHeight;
    absl::StrAppendFormat(&svg,
                          "<text x=\"4\" y=\"%.1f\" font-weight=\"bold\">%s"
                          "</text>\n",
                          y0 + 10, observed ? "observed" : "predicted");
    for (size_t r = 0; r < rows.size(); ++r)
      absl::StrAppendFormat(&svg,
                            "<text x=\"%.0f\" y=\"%.1f\" "
                            "text-anchor=\"end\">%s</text>\n",
                            left - 6, y0 + 16 + r * rowHeight + rowHeight - 3,
                            unitName(rows[r]));
    // Every row's intervals (start, end, step, instruction), in time order.
    using Span = std::tuple<double, double, size_t, size_t>;
    std::vector<std::vector<Span>> spans(rows.size());
    for (size_t s = 0; s < program.steps.size(); ++s) {
      const Step &step = program.steps[s];
      if (step.isHostCall)
        continue;
      const Kernel &kernel = program.kernels[step.kernel];
      if (!observed && !kernel.schedule)
        continue;
      const KernelTiming &t = timing.kernels[step.kernel];
      double base = observed ? clock.observedStart[s] : clock.predictedStart[s];
      for (size_t i = 0; i < kernel.instructions.size(); ++i) {
        const Instruction &inst = kernel.instructions[i];
        std::optional<double> start = observed ? t.startNs[i] : inst.startNs;
        std::optional<double> end = observed ? t.endNs[i] : inst.endNs;
        if (!start || !end)
          continue;
        spans[rowOf[unitOf(inst)]].emplace_back(base + *start, base + *end, s,
                                                i);
      }
    }
    for (size_t r = 0; r < rows.size(); ++r) {
      std::sort(spans[r].begin(), spans[r].end());
      std::string colour(colourOf(classOfUnit(rows[r])));
      const std::vector<Span> &row = spans[r];
      Row out(svg, y0 + 16 + r * rowHeight + 1, rowHeight - 2, colour,
              [&](size_t k) {
                auto [start, end, s, i] = row[k];
                const Kernel &kernel = program.kernels[program.steps[s].kernel];
                return absl::StrFormat("%s #%d, step %d (%s): %.1f..%.1f ns",
                                       opName(kernel.instructions[i].op), i, s,
                                       kernel.name, start, end);
              });
      for (size_t k = 0; k < row.size(); ++k)
        out.add(left + std::get<0>(row[k]) * scale,
                left + std::get<1>(row[k]) * scale, k);
    }
  }

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
      "%-5s %-24s %12s %14s %14s %14s %14s\n", "step", "kernel", "instructions",
      "predicted_us", "observed_us", "bound_us", "observed/bound");
  std::optional<double> predicted, bound;
  for (size_t s = 0; s < program.steps.size(); ++s) {
    const Step &step = program.steps[s];
    if (step.isHostCall) {
      absl::StrAppendFormat(&out, "%-5d %-24s %12s %14s %14s %14s %14s\n", s,
                            "host_call " + step.hostCall, "-", "-",
                            "(not modelled)", "-", "-");
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
        &out, "%-5d %-24s %12d %14s %14s %14s %14s\n", s, kernel.name,
        kernel.instructions.size(), us(p), us(observed), us(b),
        ratio ? absl::StrFormat("%.3f", *ratio) : std::string("-"));
  }
  std::optional<double> ratio;
  if (bound && *bound > 0)
    ratio = timing.totalNs / *bound;
  absl::StrAppendFormat(&out, "%-5s %-24s %12s %14s %14s %14s %14s\n", "total",
                        "", "", us(predicted), us(timing.totalNs), us(bound),
                        ratio ? absl::StrFormat("%.3f", *ratio)
                              : std::string("-"));
  return out;
}

} // namespace neuron::rt
