//===- neuron-run.cpp - run an executable on the simulated device ---------===//
//
//   neuron-run OUT.nxe (--input=I=a.npy ... | --random-inputs [--seed=N])
//              --output-dir=DIR [--bf16-as-f32]
//              [--profile=P.json] [--trace=T.json] [--timeline=T.svg]
//   neuron-run OUT.nxe --timing-only [--profile=...] [--trace=...]
//              [--timeline=...] [--check-order]
//
// Loads and validates the executable, feeds it inputs (from .npy files, by
// position or by the name the manifest gives them, or random and written to
// DIR/inputI.npy so another implementation can be fed the same), runs it on
// the simulated device and writes DIR/resultI.npy in result order. Only the
// runtime is linked: no MLIR.
//
// With a report option or --timing-only it also simulates the program's
// timing on the cost model of the manifest's target (runtime/sim/Timing.h),
// prints a summary per kernel step, and writes the reports asked for.
// --timing-only skips the functional run (inputs given are still checked;
// none is required and nothing is written to an output folder).
// --check-order checks the timed run against program order
// (runtime/sim/OrderCheck.h): an instance that starts before an earlier one
// touching the same bytes has ended is an error.
//
// A manifest with `spmd` runs on one simulated device per rank
// (runtime/sim/Spmd.h): inputs and results are the whole tensors, split and
// reassembled by their `sharding`, so they compare directly with a one-core
// run of the unsharded graph; the timing reports show every rank and each
// collective's overlap with the steps around it.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/Buckets.h"
#include "runtime/format/Executable.h"
#include "runtime/format/FileIO.h"
#include "runtime/format/Npy.h"
#include "runtime/mpi/MpiRun.h"
#include "runtime/sim/Buckets.h"
#include "runtime/sim/Numerics.h"
#include "runtime/sim/OrderCheck.h"
#include "runtime/sim/Profile.h"
#include "runtime/sim/Program.h"
#include "runtime/sim/Simulator.h"
#include "runtime/sim/Spmd.h"
#include "runtime/sim/TargetModels.h"
#include "runtime/sim/Timing.h"
#include "runtime/target/CollectiveModel.h"
#include "runtime/target/CostModel.h"
#include "runtime/target/Target.h"
#include "runtime/support/StatusMacros.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include "NeuronVersion.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

using namespace neuron::rt;

namespace {
struct Options {
  std::string executable, outputDir;
  /// --help or --version answered: nothing to run.
  bool exitEarly = false;
  std::map<std::string, std::string> inputs; // position or name -> path
  bool random = false, bf16AsF32 = false, describe = false,
       noHostCode = false;
  /// Each rank's own results instead of the whole ones.
  bool rankResults = false;
  uint64_t seed = 0;
  /// --length: the variable length of an executable with buckets.
  std::optional<int64_t> length;
  /// Timing reports; empty when not asked for.
  std::string profile, trace, timeline;
  bool timingOnly = false, checkOrder = false;

  bool timing() const {
    return timingOnly || checkOrder || !profile.empty() || !trace.empty() ||
           !timeline.empty();
  }
};
} // namespace

/// "process P of N: " in an MPI run, to start its messages with.
static std::string processPrefix;

static int fail(const std::string &message) {
  std::fprintf(stderr, "neuron-run: error: %s%s\n", processPrefix.c_str(),
               message.c_str());
  return 1;
}

static bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

/// The report file `arg` sets (--profile=, --trace=, --timeline=), or
/// nullptr.
static std::string *reportOption(std::string_view arg, Options &o) {
  if (startsWith(arg, "--profile="))
    return &o.profile;
  if (startsWith(arg, "--trace="))
    return &o.trace;
  if (startsWith(arg, "--timeline="))
    return &o.timeline;
  return nullptr;
}

static constexpr std::string_view kUsage =
    R"(usage: neuron-run OUT.nxe (--input=I=FILE.npy ... | --random-inputs [--seed=N])
                  --output-dir=DIR [reports] [--bf16-as-f32] [--check-order]
       neuron-run OUT.nxe --timing-only [reports] [--check-order]
       neuron-run OUT.nxe --describe

Runs an executable on the simulated device and writes its results as .npy.

  --input=I=FILE.npy   input I (its position or its name) from a .npy file
  --random-inputs      seeded random inputs, written to DIR/inputI.npy
  --seed=N             the random inputs' seed (default 0)
  --length=N           with shape buckets: the variable length of the run
                       (random inputs, --timing-only); by default the
                       inputs' length, else the largest bucket
  --output-dir=DIR     where results go (DIR/resultI.npy); created if absent
  --bf16-as-f32        read bf16 inputs from f32 .npy files
  --per-rank-results   SPMD: each rank's own results (its shards), as
                       DIR/rankR/resultI.npy, instead of the whole ones
  --describe           print the executable's tensors, kernels and program
  --no-host-code       refuse an executable that carries host code (host
                       calls, which run on this machine): for executables
                       you did not compile
  --timing-only        time the program on the cost model, computing nothing
  --check-order        check the timed run against program order
  --profile=P.json     per-engine busy time, predicted and observed time
  --trace=T.json       a Chrome/Perfetto trace of the timed run
  --timeline=T.svg     the timed run as an SVG picture
  --help, --version

Under mpirun -np P (Open MPI; one or several machines), the P processes
share the ranks of an SPMD program, each loading only its ranks' shards and
meeting the others at collectives; process 0 writes the whole results and
the reports, which equal a run in one process.

Environment: NEURON_SIM_THREADS=N computes on N host threads (default: one
per hardware thread, shared by the run's processes on a machine); results
are the same bytes for any N.
)";

/// Parses the command line; returns an error message or "" (with
/// `o.exitEarly` set when --help or --version has answered).
static std::string parseArgs(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--help" || a == "-h") {
      std::printf("%.*s", int(kUsage.size()), kUsage.data());
      o.exitEarly = true;
      return "";
    }
    if (a == "--version") {
      std::printf("neuron-run: %s\n", NEURON_VERSION_LINE);
      o.exitEarly = true;
      return "";
    }
    if (startsWith(a, "--input=")) {
      std::string_view spec = a.substr(8);
      size_t eq = spec.find('=');
      if (eq == std::string_view::npos || eq == 0)
        return "expected --input=POSITION=FILE or --input=NAME=FILE, found '" +
               std::string(a) + "'";
      std::string key(spec.substr(0, eq));
      if (o.inputs.count(key))
        return "--input=" + key + "= given twice";
      o.inputs[key] = std::string(spec.substr(eq + 1));
    } else if (a == "--random-inputs") {
      o.random = true;
    } else if (startsWith(a, "--seed=")) {
      char *end = nullptr;
      std::string value(a.substr(7));
      o.seed = std::strtoull(value.c_str(), &end, 10);
      if (value.empty() || *end)
        return "expected a number after --seed=, found '" + value + "'";
    } else if (startsWith(a, "--length=")) {
      char *end = nullptr;
      std::string value(a.substr(9));
      long long n = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end || n < 1)
        return "expected a positive number after --length=, found '" + value +
               "'";
      o.length = n;
    } else if (startsWith(a, "--output-dir=")) {
      o.outputDir = std::string(a.substr(13));
    } else if (a == "--bf16-as-f32") {
      o.bf16AsF32 = true;
    } else if (a == "--per-rank-results") {
      o.rankResults = true;
    } else if (a == "--describe") {
      o.describe = true;
    } else if (a == "--no-host-code") {
      o.noHostCode = true;
    } else if (std::string *report = reportOption(a, o)) {
      *report = std::string(a.substr(a.find('=') + 1));
      if (report->empty())
        return "expected a file name after '" + std::string(a) + "'";
    } else if (a == "--timing-only") {
      o.timingOnly = true;
    } else if (a == "--check-order") {
      o.checkOrder = true;
    } else if (startsWith(a, "-")) {
      return "unknown option '" + std::string(a) +
             "' (neuron-run --help lists the options)";
    } else if (o.executable.empty()) {
      o.executable = std::string(a);
    } else {
      return "more than one executable given ('" + o.executable + "', '" +
             std::string(a) + "')";
    }
  }
  if (o.executable.empty())
    return "expected an executable (neuron-run --help lists the options)";
  if (o.outputDir.empty() && !o.describe && !o.timingOnly)
    return "expected --output-dir=DIR (or --describe or --timing-only)";
  return "";
}

static std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s + "]";
}

/// A random tensor of `desc`: floats uniform in [-1, 1), integers in
/// [-8, 8), masks 0/1, each rounded by the device's own store.
static Tensor randomTensor(const TensorDesc &desc,
                           const std::vector<int64_t> &shape,
                           std::mt19937_64 &rng) {
  Tensor t{std::string(dtypeName(desc.dtype)), shape, {}};
  int64_t bytes = elementBytes(desc.dtype), elements = 1;
  for (int64_t d : shape)
    elements *= d;
  t.data.resize(elements * bytes);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> integer(-8, 7);
  for (int64_t i = 0; i < elements; ++i) {
    double v = desc.dtype == DType::I1 ? integer(rng) & 1
               : isFloat(desc.dtype)    ? real(rng)
                                        : integer(rng);
    storeElement(desc.dtype, v, t.data.data() + i * bytes);
  }
  return t;
}

/// Prints what the executable holds: its target, tensors, kernels with
/// their instructions per engine, and the program's steps.
static void describe(const Executable &exe, const Program &program,
                     const std::optional<Buckets> &buckets, size_t bucket) {
  if (std::string spec = targetSpecOf(exe.manifest()); !spec.empty())
    std::printf("target: %s\n", spec.c_str());
  if (buckets) {
    std::printf("buckets: %s (this program: %lld; --length=N picks "
                "another)\n",
                buckets->sizesText().c_str(),
                (long long)buckets->sizes[bucket]);
    std::string dims;
    for (const BucketDim &d : buckets->inputs)
      dims += " input" + std::to_string(d.index) + "[" +
              std::to_string(d.dim) + "]";
    for (const BucketDim &d : buckets->outputs)
      dims += " result" + std::to_string(d.index) + "[" +
              std::to_string(d.dim) + "]";
    std::printf("  variable length:%s; padded with %g", dims.c_str(),
                buckets->pad);
    if (buckets->lengthInput)
      std::printf("; the length in input%lld", (long long)*buckets->lengthInput);
    std::printf("\n");
  }
  int64_t counts[5] = {0, 0, 0, 0, 0}, constantBytes = 0;
  for (const TensorDesc &t : program.tensors) {
    ++counts[int(t.kind)];
    if (t.kind == TensorKind::Constant)
      constantBytes += t.bytes();
  }
  std::printf("tensors: %zu (%lld inputs, %lld outputs, %lld constants of "
              "%lld bytes, %lld scratch, %lld views)\n",
              program.tensors.size(), (long long)counts[0],
              (long long)counts[1], (long long)counts[2],
              (long long)constantBytes, (long long)counts[3],
              (long long)counts[4]);
  // Results written into an input's buffer (a KV cache updated in place):
  // an input tensor that is a result and that a kernel writes.
  std::set<int64_t> written;
  for (const Step &step : program.steps)
    if (step.isKernel())
      for (const Instruction &inst : program.kernels[step.kernel].instructions)
        if (inst.dst.space == MemorySpace::Hbm)
          written.insert(step.bindings[inst.dst.param]);
  for (const IoBinding &out : program.outputs)
    for (const IoBinding &in : program.inputs)
      if (in.tensor == out.tensor && written.count(out.tensor)) {
        const TensorDesc &t = program.tensors[out.tensor];
        std::printf("  %s in place of %s (%s%s)\n", out.name.c_str(),
                    in.name.c_str(), std::string(dtypeName(t.dtype)).c_str(),
                    shapeString(t.shape).c_str());
      }
  std::vector<int64_t> launches(program.kernels.size(), 0);
  for (const Step &step : program.steps)
    if (step.isKernel())
      ++launches[step.kernel];
  static constexpr const char *kEngines[] = {"tensor", "vector", "scalar",
                                             "gpsimd", "dma"};
  std::printf("kernels: %zu\n", program.kernels.size());
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    const Kernel &kernel = program.kernels[k];
    int64_t perEngine[5] = {0, 0, 0, 0, 0};
    for (const Instruction &inst : kernel.instructions)
      ++perEngine[int(inst.engine)];
    std::printf("  %s: %lld parameters, %zu instructions (", kernel.name.c_str(),
                (long long)kernel.parameters, kernel.instructions.size());
    for (int e = 0; e < 5; ++e)
      std::printf("%s%s %lld", e ? ", " : "", kEngines[e],
                  (long long)perEngine[e]);
    std::printf("), launched %lld times\n", (long long)launches[k]);
  }
  std::printf("program: %zu steps", program.steps.size());
  if (program.isSpmd()) {
    std::printf(", SPMD on %lld ranks (grid", (long long)program.ranks());
    for (int64_t size : program.grid)
      std::printf(" %lld", (long long)size);
    std::printf(")");
  }
  std::printf("\n");
  for (size_t i = 0; i < program.steps.size(); ++i) {
    const Step &step = program.steps[i];
    const Collective &c = step.collective;
    switch (step.kind) {
    case StepKind::HostCall:
      std::printf("  %zu: host_call %s (%s)\n", i, step.hostCall.c_str(),
                  step.reason.c_str());
      break;
    case StepKind::Kernel: {
      std::vector<std::string> awaited;
      for (int64_t start : step.awaits)
        awaited.push_back(absl::StrFormat(
            "%d", program.steps[start].collective.id));
      std::printf("  %zu: kernel %s%s\n", i,
                  program.kernels[step.kernel].name.c_str(),
                  awaited.empty()
                      ? ""
                      : absl::StrFormat(" (awaits collective %s inside)",
                                        absl::StrJoin(awaited, ", "))
                            .c_str());
      break;
    }
    case StepKind::CollectiveStart: {
      // An output that is a window of another tensor (a join of chunks).
      const TensorDesc &out = program.tensors[c.output];
      std::string window =
          out.viewOf >= 0
              ? absl::StrFormat(" (elements %d.. of tensor %d)",
                                out.viewOffset, out.viewOf)
              : "";
      std::printf(
          "  %zu: collective_start %lld: %s of tensor %lld into %lld%s "
          "over groups of %lld ranks\n",
          i, (long long)c.id, std::string(collectiveOpName(c.op)).c_str(),
          (long long)c.input, (long long)c.output, window.c_str(),
          (long long)c.groupSize);
      break;
    }
    case StepKind::CollectiveDone:
      std::printf("  %zu: collective_done %lld\n", i, (long long)c.id);
      break;
    }
  }
}

namespace {
/// One whole input of the run: generated or converted (owned), or a .npy
/// file mapped, so that an SPMD process reads only its ranks' shards.
struct InputArray {
  Tensor owned;
  std::optional<MappedNpy> mapped;

  TensorRef ref() const {
    return mapped ? mapped->ref() : TensorRef::of(owned);
  }
  /// The tensor, for a one-core run (a mapped file's data copied out).
  Tensor take() {
    if (!mapped)
      return std::move(owned);
    return Tensor{mapped->dtype, mapped->shape,
                  std::vector<uint8_t>(mapped->data,
                                       mapped->data + mapped->size)};
  }
};

/// What a run needs, read and checked.
struct Prepared {
  std::optional<Executable> exe;
  /// The executable's shape buckets, the run's length and its bucket.
  std::optional<Buckets> buckets;
  int64_t length = 0;
  size_t bucket = 0;
  Program program;
  /// One per program input; none with --timing-only.
  std::vector<InputArray> inputs;
  /// When the run is timed.
  std::optional<TargetModels> models;
  /// Host compute per host_call step, per rank, as the functional run
  /// measured it (none with --timing-only).
  std::map<size_t, double> hostComputeNs;
};
} // namespace

/// The file --input gives for input `index` named `name` (by position,
/// else by name), or null.
static const std::string *givenFile(const Options &o, size_t index,
                                    const std::string &name) {
  auto given = o.inputs.find(std::to_string(index));
  if (given == o.inputs.end())
    given = o.inputs.find(name);
  return given == o.inputs.end() ? nullptr : &given->second;
}

/// Fails where an --input names no input of `program` (a mistyped name
/// would otherwise leave its input to --random-inputs), or gives one input
/// both by position and by name.
static absl::Status checkInputKeys(const Options &o, const Program &program) {
  std::string known;
  std::set<std::string> keys;
  for (size_t i = 0; i < program.inputs.size(); ++i) {
    const std::string &name = program.tensors[program.inputs[i].tensor].name;
    std::string position = std::to_string(i);
    known += (i ? ", " : "") + position + " '" + name + "'";
    keys.insert({position, name});
    if (o.inputs.count(position) && o.inputs.count(name) && name != position)
      return absl::InvalidArgumentError(
          "--input gives input " + position + " twice, by position "
          "and by name '" + name + "'");
  }
  for (const auto &[key, file] : o.inputs)
    if (!keys.count(key))
      return absl::InvalidArgumentError(
          "--input=" + key + "=" + file + ": the executable has no input " +
          "at that position or of that name (its inputs: " +
          (known.empty() ? std::string("none") : known) + ")");
  return absl::OkStatus();
}

/// The inputs of `program`: from .npy files, or random (written to the
/// output folder when `writes`).
static absl::Status readInputs(const Options &o, const Prepared &p,
                               bool writes, std::vector<InputArray> &inputs) {
  const Program &program = p.program;
  NEURON_RETURN_IF_ERROR(checkInputKeys(o, program));
  std::mt19937_64 rng(o.seed);
  for (size_t i = 0; i < program.inputs.size(); ++i) {
    const TensorDesc &desc = program.tensors[program.inputs[i].tensor];
    // SPMD: the whole tensor, which the run splits by its sharding.
    std::vector<int64_t> shape = wholeShape(program, program.inputs[i]);
    // With buckets: the length input is the run's, and the others are given
    // at the run's length and padded to the bucket's size.
    std::vector<int64_t> padded = shape, dims;
    if (p.buckets) {
      if (p.buckets->lengthInput == int64_t(i)) {
        if (!o.timingOnly)
          inputs.push_back({lengthTensor(p.length), std::nullopt});
        continue;
      }
      dims = bucketDims(p.buckets->inputs, i);
      shape = withLength(shape, dims, p.length);
    }
    auto pad = [&](InputArray &input) {
      if (dims.empty())
        return;
      input.owned = resizeTensor(input.ref(), padded, p.buckets->pad);
      input.mapped.reset();
    };
    const std::string *given = givenFile(o, i, desc.name);
    if (!given) {
      if (o.timingOnly)
        continue;
      if (!o.random)
        return absl::InvalidArgumentError(
            "no value for input " + std::to_string(i) + " ('" + desc.name +
            "', " + std::string(dtypeName(desc.dtype)) + shapeString(shape) +
            "): pass --input=" + std::to_string(i) +
            "=FILE.npy or --random-inputs");
      inputs.push_back({randomTensor(desc, shape, rng), std::nullopt});
      std::string path = o.outputDir + "/input" + std::to_string(i) + ".npy";
      if (writes)
        NEURON_RETURN_IF_ERROR(writeNpy(path, inputs.back().owned));
      pad(inputs.back());
      continue;
    }
    InputArray input;
    if (o.bf16AsF32 && desc.dtype == DType::BF16) {
      NpyReadOptions options;
      options.f32AsBf16 = true;
      NEURON_ASSIGN_OR_RETURN(array, readNpy(*given, options));
      input.owned = std::move(array);
    } else {
      NEURON_ASSIGN_OR_RETURN(array, mapNpy(*given));
      input.mapped = std::move(array);
    }
    TensorRef array = input.ref();
    if (array.dtype != dtypeName(desc.dtype) || array.shape != shape)
      return absl::InvalidArgumentError(
          "input " + std::to_string(i) + " ('" + desc.name +
          "'): the executable expects " + std::string(dtypeName(desc.dtype)) +
          shapeString(shape) + ", " + *given + " holds " +
          std::string(array.dtype) + shapeString(array.shape));
    pad(input);
    inputs.push_back(std::move(input));
  }
  return absl::OkStatus();
}

/// The run's length with buckets: --length, else the given inputs' (all
/// the same), else the largest bucket's size.
static absl::StatusOr<int64_t> runLength(const Options &o,
                                         const Buckets &buckets,
                                         const nlohmann::json &manifest) {
  if (o.length)
    return *o.length;
  // readBuckets checked that every bucketed input exists.
  static const nlohmann::json none = nlohmann::json::array();
  const nlohmann::json &io =
      manifest.contains("inputs") && manifest["inputs"].is_array()
          ? manifest["inputs"]
          : none;
  std::vector<std::vector<int64_t>> shapes(io.size());
  for (const BucketDim &d : buckets.inputs) {
    const nlohmann::json &entry = io[size_t(d.index)];
    const std::string *given = givenFile(
        o, d.index,
        entry.contains("name") && entry["name"].is_string()
            ? entry["name"].get<std::string>()
            : std::string());
    if (!given)
      continue;
    NEURON_ASSIGN_OR_RETURN(array, mapNpy(*given));
    shapes[d.index] = array.shape;
  }
  absl::StatusOr<int64_t> length = inputLength(buckets, shapes);
  if (length.status().code() == absl::StatusCode::kNotFound)
    return buckets.sizes.back();
  return length;
}

/// The program to run: the executable's, or with buckets the one of the
/// smallest bucket holding the run's length.
static absl::StatusOr<Program> chooseProgram(const Options &o, Prepared &p) {
  const nlohmann::json &manifest = p.exe->manifest();
  absl::StatusOr<std::optional<Buckets>> buckets = readBuckets(manifest);
  if (!buckets.ok())
    return buckets.status();
  p.buckets = *std::move(buckets);
  if (!p.buckets) {
    if (o.length)
      return absl::InvalidArgumentError(
          "--length is for executables with shape buckets (neuron-compile "
          "--buckets); this one has none");
    return parseProgram(manifest);
  }
  NEURON_ASSIGN_OR_RETURN(length, runLength(o, *p.buckets, manifest));
  NEURON_ASSIGN_OR_RETURN(bucket, p.buckets->choose(length));
  p.length = length;
  p.bucket = bucket;
  return parseProgram(bucketManifest(manifest, bucket));
}

/// Reads the executable, its program, the target's models when the run is
/// timed, and the inputs; creates the output folder. Files are written only
/// by process 0 of an MPI run (`mpi`).
static absl::StatusOr<Prepared> prepare(const Options &o, const MpiRun *mpi) {
  Prepared p;
  NEURON_ASSIGN_OR_RETURN(exe, Executable::readFile(o.executable));
  p.exe.emplace(std::move(exe));
  absl::StatusOr<Program> program = chooseProgram(o, p);
  if (!program.ok())
    return absl::InvalidArgumentError(
        o.executable + ": " + std::string(program.status().message()));
  p.program = *std::move(program);
  if (o.noHostCode)
    NEURON_RETURN_IF_ERROR(
        refuseHostCode(p.program, o.executable, "--no-host-code"));
  if (o.describe)
    return p;
  if (!o.timingOnly)
    NEURON_RETURN_IF_ERROR(loadHostCode(p.program, *p.exe, o.executable));
  if (mpi && !o.timingOnly && mpi->processes() > p.program.ranks())
    return absl::FailedPreconditionError(absl::StrFormat(
        "the program has %d ranks, fewer than the run's %d processes: start "
        "at most %d",
        p.program.ranks(), mpi->processes(), p.program.ranks()));
  bool writes = !mpi || mpi->process() == 0;
  if (!o.outputDir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(o.outputDir, error);
    if (error)
      return absl::InvalidArgumentError("cannot create the output folder '" +
                                        o.outputDir + "': " + error.message());
  }
  if (o.timing()) {
    absl::StatusOr<TargetModels> models =
        targetModelsOf(p.exe->manifest(), p.program);
    if (!models.ok())
      return absl::Status(models.status().code(),
                          o.executable + ": " +
                              std::string(models.status().message()));
    p.models = *std::move(models);
  }
  NEURON_RETURN_IF_ERROR(readInputs(o, p, writes, p.inputs));
  return p;
}

/// Checks that every process of an MPI run holds the same executable, and
/// tells each whether any failed to prepare (`status`).
static absl::Status agreeOnExecutable(MpiRun &mpi, const absl::Status &status,
                                      uint32_t checksum) {
  std::string mine = absl::StrFormat("%08x %s", checksum, mpi.host());
  NEURON_ASSIGN_OR_RETURN(
      blocks, mpi.exchange(std::vector<uint8_t>(mine.begin(), mine.end()),
                           status, /*toAll=*/true));
  std::string first(blocks[0].begin(), blocks[0].end());
  for (size_t p = 1; p < blocks.size(); ++p) {
    std::string theirs(blocks[p].begin(), blocks[p].end());
    if (theirs.substr(0, 8) != first.substr(0, 8))
      return absl::FailedPreconditionError(absl::StrFormat(
          "process %d (on %s) loaded another executable than process 0 (on "
          "%s): checksums 0x%s and 0x%s; every process of the run must load "
          "the same file",
          p, theirs.substr(9), first.substr(9), theirs.substr(0, 8),
          first.substr(0, 8)));
  }
  return absl::OkStatus();
}

/// Writes `results` as DIR/resultI.npy.
static absl::Status writeResults(const std::string &dir,
                                 const std::vector<Tensor> &results) {
  for (size_t i = 0; i < results.size(); ++i)
    NEURON_RETURN_IF_ERROR(writeNpy(
        dir + "/result" + std::to_string(i) + ".npy", results[i]));
  return absl::OkStatus();
}

/// Runs this process's part of the program, telling `onStep` of each step.
static absl::StatusOr<SpmdResult>
runFunctionally(const Options &o, Prepared &p, RankExchange *exchange,
                StepObserver onStep) {
  // Constants are read in place from the mapped executable.
  ConstantLoader loadConstant = sectionConstants(*p.exe, o.executable);
  if (!p.program.isSpmd() && !exchange && !o.rankResults) {
    std::vector<Tensor> inputs;
    for (InputArray &input : p.inputs)
      inputs.push_back(input.take());
    p.inputs.clear();
    DeviceOptions device;
    device.onStep = std::move(onStep);
    NEURON_ASSIGN_OR_RETURN(outputs, Device(device).run(p.program,
                                                       std::move(inputs),
                                                       loadConstant));
    SpmdResult result;
    result.outputs = std::move(outputs);
    return result;
  }
  SpmdOptions options;
  options.device.onStep = std::move(onStep);
  options.exchange = exchange;
  options.gatherOutputs = !o.rankResults;
  options.rankOutputs = o.rankResults;
  std::vector<TensorRef> inputs;
  for (const InputArray &input : p.inputs)
    inputs.push_back(input.ref());
  return runSpmdProcess(p.program, inputs, loadConstant, options);
}

namespace {
/// When each step of a run starts, for the host calls' measured compute,
/// and on a terminal the step a run is at, overwritten in place
/// ("neuron-run: step 3/35: forward_kernel2"), and the time the run took
/// at the end; nothing shown when standard error is not a terminal (or on
/// the processes of an MPI run but the first).
class RunProgress {
public:
  RunProgress(const Program &program, bool first)
      : program(program), shown(first && isatty(STDERR_FILENO)) {}

  /// The observer to give the device.
  StepObserver observer() {
    return [this](size_t i) {
      starts.emplace_back(i, std::chrono::steady_clock::now());
      if (!shown)
        return;
      const Step &step = program.steps[i];
      std::string what = step.isKernel()   ? program.kernels[step.kernel].name
                         : step.isHostCall() ? "host call " + step.hostCall
                         : step.kind == StepKind::CollectiveStart
                             ? std::string("collective start")
                             : std::string("collective done");
      absl::FPrintF(stderr, "\r\x1b[Kneuron-run: step %d/%d: %s", i + 1,
                    program.steps.size(), what);
    };
  }
  /// Each host_call step's wall time (until the next step starts or the
  /// run ends), divided over the `ranks` this process ran it for.
  std::map<size_t, double> hostComputeNs(int64_t ranks) const {
    std::map<size_t, double> out;
    auto end = std::chrono::steady_clock::now();
    for (size_t k = 0; k < starts.size(); ++k) {
      auto [step, start] = starts[k];
      if (!program.steps[step].isHostCall())
        continue;
      auto next = k + 1 < starts.size() ? starts[k + 1].second : end;
      out[step] = std::chrono::duration<double, std::nano>(next - start)
                      .count() /
                  double(std::max<int64_t>(1, ranks));
    }
    return out;
  }

  /// Ends the line: with the run's time when it succeeded, else cleared
  /// for the error that follows.
  void finish(bool succeeded) {
    if (!shown)
      return;
    if (!succeeded) {
      absl::FPrintF(stderr, "\r\x1b[K");
      return;
    }
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    absl::FPrintF(stderr, "\r\x1b[Kneuron-run: ran %d steps in %.2f s\n",
                  program.steps.size(), seconds);
  }

private:
  const Program &program;
  bool shown;
  std::vector<std::pair<size_t, std::chrono::steady_clock::time_point>> starts;
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
};
} // namespace

/// Runs this process's part of the program. Every process of an MPI run
/// returns the same error, agreed through the run's exchanges.
static absl::StatusOr<SpmdResult>
runFunctionally(const Options &o, Prepared &p, RankExchange *exchange) {
  RunProgress progress(p.program, !exchange || exchange->process() == 0);
  absl::StatusOr<SpmdResult> result =
      runFunctionally(o, p, exchange, progress.observer());
  if (result.ok())
    p.hostComputeNs = progress.hostComputeNs(
        result->ranks.end > result->ranks.first
            ? result->ranks.end - result->ranks.first
            : 1);
  progress.finish(result.ok());
  return result;
}

/// Writes the whole results (on process 0) or, with --per-rank-results,
/// each of this process's ranks' own as DIR/rankR/resultI.npy.
static absl::Status writeRunResults(const Options &o, const Prepared &p,
                                    const SpmdResult &run, bool first) {
  if (!o.rankResults && p.buckets) {
    // Results at the run's length, not the bucket's size.
    std::vector<Tensor> trimmed;
    for (size_t i = 0; i < run.outputs.size(); ++i)
      trimmed.push_back(resizeTensor(
          TensorRef::of(run.outputs[i]),
          withLength(run.outputs[i].shape, bucketDims(p.buckets->outputs, i),
                     p.length),
          0));
    return first ? writeResults(o.outputDir, trimmed) : absl::OkStatus();
  }
  if (!o.rankResults)
    return first ? writeResults(o.outputDir, run.outputs) : absl::OkStatus();
  for (int64_t r = run.ranks.first; r < run.ranks.end; ++r) {
    std::string dir = o.outputDir + "/rank" + std::to_string(r);
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error)
      return absl::InvalidArgumentError("cannot create the folder '" + dir +
                                        "': " + error.message());
    NEURON_RETURN_IF_ERROR(
        writeResults(dir, run.rankOutputs[r - run.ranks.first]));
  }
  return absl::OkStatus();
}

/// Times the program, prints the summary and writes the reports asked for.
static absl::Status timeProgram(const Options &o, const Prepared &p) {
  const Program &program = p.program;
  const CostModel &model = p.models->cost;
  // Instances one by one for the pictures (a bounded number of them) and
  // for the order check (all of them).
  TimingOptions timingOptions;
  timingOptions.hostComputeNs = p.hostComputeNs;
  if (o.checkOrder)
    timingOptions.recordInstances = std::numeric_limits<int64_t>::max();
  else if (o.trace.empty() && o.timeline.empty())
    timingOptions.recordInstances = 0;
  absl::StatusOr<ProgramTiming> timing =
      simulateProgramTiming(program, model, p.models->links, timingOptions);
  if (!timing.ok())
    return absl::Status(timing.status().code(),
                        o.executable + ": " +
                            std::string(timing.status().message()));
  std::fputs(timingSummary(program, *timing).c_str(), stdout);
  if (o.checkOrder) {
    // The kernels this program launches (an executable with buckets holds
    // the other buckets' too).
    std::set<int64_t> launched;
    for (const Step &step : program.steps)
      if (step.isKernel())
        launched.insert(step.kernel);
    int64_t instances = 0;
    for (int64_t k : launched) {
      absl::Status s = checkProgramOrder(program.kernels[k], timing->kernels[k]);
      if (!s.ok())
        return absl::Status(s.code(), o.executable + ": order check: " +
                                          std::string(s.message()));
      instances += timing->kernels[k].dynamicInstructions;
    }
    std::printf("order check: %zu kernels, %lld instances, each after the "
                "earlier ones touching its bytes\n",
                launched.size(), static_cast<long long>(instances));
  }
  nlohmann::json target = targetRecordOf(p.exe->manifest());
  auto report = [](const std::string &path, std::string_view what,
                   auto text) {
    return path.empty() ? absl::OkStatus() : writeTextFile(path, text(), what);
  };
  NEURON_RETURN_IF_ERROR(report(o.profile, "profile", [&] {
    return profileJson(program, *timing, model, target, &p.models->target)
        .dump(2);
  }));
  NEURON_RETURN_IF_ERROR(report(o.trace, "trace", [&] {
    return traceJson(program, *timing, model).dump();
  }));
  return report(o.timeline, "timeline",
                [&] { return timelineSvg(program, *timing, model); });
}

int main(int argc, char **argv) {
  std::unique_ptr<MpiRun> mpi;
  if (launchedByMpi()) {
    absl::StatusOr<std::unique_ptr<MpiRun>> joined = joinMpiRun(argc, argv);
    if (!joined.ok())
      return fail(std::string(joined.status().message()));
    mpi = *std::move(joined);
    processPrefix = absl::StrFormat("process %d of %d: ", mpi->process(),
                                    mpi->processes());
  }
  Options o;
  if (std::string error = parseArgs(argc, argv, o); !error.empty())
    return fail(error);
  if (o.exitEarly)
    return 0;
  // Process 0 of an MPI run writes the files the whole run has one of and
  // prints; the others only run their ranks.
  bool first = !mpi || mpi->process() == 0;
  // The run's processes on one machine share its hardware threads.
  if (mpi && !std::getenv("NEURON_SIM_THREADS")) {
    int64_t threads = std::max<int64_t>(
        1, std::thread::hardware_concurrency() / mpi->localProcesses());
    setenv("NEURON_SIM_THREADS", std::to_string(threads).c_str(), 1);
  }

  absl::StatusOr<Prepared> prepared = prepare(o, mpi.get());
  absl::Status status = prepared.status();
  if (mpi)
    status = agreeOnExecutable(*mpi, status,
                               prepared.ok() ? prepared->exe->checksum() : 0);
  if (status.ok() && o.describe) {
    if (first)
      describe(*prepared->exe, prepared->program, prepared->buckets,
               prepared->bucket);
  } else if (status.ok()) {
    std::optional<SpmdResult> run;
    if (!o.timingOnly) {
      absl::StatusOr<SpmdResult> ran =
          runFunctionally(o, *prepared, mpi.get());
      status = ran.status();
      if (ran.ok())
        run = *std::move(ran);
    }
    if (status.ok()) {
      // Writes and timing are each process's own; the processes agree on
      // their outcome before they part.
      absl::Status local = run ? writeRunResults(o, *prepared, *run, first)
                               : absl::OkStatus();
      if (local.ok() && first && o.timing())
        local = timeProgram(o, *prepared);
      status = mpi ? mpi->exchange({}, local, /*toAll=*/true).status() : local;
    }
  }
  // Every process prints before any leaves: the launcher stops the others
  // once one has ended with an error.
  int exitCode = status.ok() ? 0 : fail(std::string(status.message()));
  if (mpi)
    mpi->finish();
  return exitCode;
}
