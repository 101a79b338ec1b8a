//===- Profile.h - Reports of a program's timing ----------------*- C++ -*-===//
//
// What neuron-run writes from a ProgramTiming (runtime/sim/Timing.h): a
// profile (JSON: per kernel step, the compiler's prediction beside the
// observed time, the bound, busy time and utilisation per engine class), a
// Chrome trace-event file (opens in Perfetto), an SVG timeline, and a short
// text summary. Observed times come from the timing simulation, predicted
// ones from the kernels' `schedule` and instructions' `start_ns`/`end_ns`.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SIM_PROFILE_H
#define NEURON_RUNTIME_SIM_PROFILE_H

#include "runtime/sim/Program.h"
#include "runtime/sim/Timing.h"
#include "runtime/target/CostModel.h"
#include "runtime/target/Target.h"

#include <nlohmann/json.hpp>

#include <string>

namespace neuron::rt {

/// The "neuron-profile/1" document; `target` is the manifest's target
/// record, copied as is (null when absent). With `resolved`, "cores" gives
/// its core counts and what a logical core is (LNC); an SPMD program adds
/// "spmd": per rank its end and waiting time, per collective the
/// compiler's prediction beside the observed time, exposure and overlap,
/// and the time with every collective serialised.
nlohmann::json profileJson(const Program &program, const ProgramTiming &timing,
                           const CostModel &model, const nlohmann::json &target,
                           const ResolvedTarget *resolved = nullptr);

/// Chrome trace events: pid 1 "observed" (SPMD: pids 1..R "observed rank
/// r"), then "predicted" (scheduled kernels only), one thread per unit, one
/// complete event per instruction, times in µs on the program's clock; an
/// SPMD program with collectives adds to "predicted" a "collective" thread
/// with each collective the compiler predicted, on the predicted clock, and
/// a "links" process, one thread per rank, one event per collective from
/// its start to its finish.
nlohmann::json traceJson(const Program &program, const ProgramTiming &timing,
                         const CostModel &model);

/// An SVG timeline: one row per unit used, observed rows above predicted
/// ones, coloured by engine class; instructions narrower than a pixel merge
/// so the file stays small. An SPMD program draws one observed group per
/// rank (at most 8, a line counting the rest) at that rank's clock, and
/// with collectives a "collective" row in every group.
std::string timelineSvg(const Program &program, const ProgramTiming &timing,
                        const CostModel &model);

/// One line per kernel step: predicted, observed, bound, observed / bound;
/// per collective step the collective's time (start) or the wait (done);
/// then the program's totals and, for SPMD, the serialised time and each
/// collective's predicted, observed, exposed and overlapped time.
std::string timingSummary(const Program &program, const ProgramTiming &timing);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_SIM_PROFILE_H
