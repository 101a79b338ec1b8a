//===- NeuronRuntime.cpp - The runtime's C API ----------------------------===//
//
// Each entry point turns absl::Status into a NeuronStatus code and the
// thread's last message; nothing below throws (the runtime is built without
// exceptions and reports every error as a status).
//
//===----------------------------------------------------------------------===//

#include "runtime/capi/NeuronRuntime.h"

#include "runtime/format/Buckets.h"
#include "runtime/format/Executable.h"
#include "runtime/sim/Buckets.h"
#include "runtime/sim/Numerics.h"
#include "runtime/sim/Profile.h"
#include "runtime/sim/Program.h"
#include "runtime/sim/Spmd.h"
#include "runtime/sim/TargetModels.h"
#include "runtime/sim/Timing.h"
#include "runtime/support/StatusMacros.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

using namespace neuron::rt;

namespace {
/// An input or output as NeuronTensorInfo describes it.
struct IoInfo {
  std::string name, dtype;
  std::vector<int64_t> shape;
  size_t bytes = 0;
};
} // namespace

struct NeuronExecutable {
  std::optional<Executable> exe;
  Program program;
  std::string target;
  /// As the caller sees them: with buckets, at `length`, without the
  /// length input.
  std::vector<IoInfo> inputs, outputs;
  std::string profile;
  unsigned flags = NEURON_LOAD_DEFAULT;
  std::string origin;
  /// Shape buckets, the length the caller's tensors have, and the program
  /// input of each of the caller's inputs.
  std::optional<Buckets> buckets;
  int64_t length = 0;
  std::vector<size_t> programInputs;
};

static thread_local std::string lastError;

/// Records `status` as the thread's last error; its code.
static NeuronStatus report(const absl::Status &status) {
  if (status.ok())
    return NEURON_OK;
  lastError = std::string(status.message());
  return static_cast<NeuronStatus>(status.code());
}

static NeuronStatus invalid(const std::string &message) {
  return report(absl::InvalidArgumentError(message));
}

const char *neuronLastError(void) { return lastError.c_str(); }

/// Describes `io` of `program` as the caller sees it (whole tensors).
static IoInfo describeIo(const Program &program, const IoBinding &io) {
  const TensorDesc &t = program.tensors[io.tensor];
  return {io.name, std::string(dtypeName(t.dtype)), wholeShape(program, io),
          size_t(wholeBytes(program, io))};
}

/// `io` at `length` along `dims` (its bucketed dimensions).
static IoInfo atLength(IoInfo io, const std::vector<int64_t> &dims,
                       int64_t length) {
  if (dims.empty())
    return io;
  size_t elements = 1;
  io.shape = withLength(io.shape, dims, length);
  for (int64_t size : io.shape)
    elements *= size;
  io.bytes = elements * elementBytes(*parseDType(io.dtype));
  return io;
}

/// Makes `e` run its program for `length` (the whole program without
/// buckets): parses it, loads its host code (or refuses it, as `e->flags`
/// say) and describes its inputs and outputs as the caller passes them.
static absl::Status selectProgram(NeuronExecutable *e, int64_t length) {
  const nlohmann::json &manifest = e->exe->manifest();
  size_t bucket = 0;
  if (e->buckets) {
    NEURON_ASSIGN_OR_RETURN(chosen, e->buckets->choose(length));
    bucket = chosen;
  }
  NEURON_ASSIGN_OR_RETURN(
      program, parseProgram(e->buckets ? bucketManifest(manifest, bucket)
                                       : manifest));
  if (e->flags & NEURON_LOAD_REFUSE_HOST_CODE)
    NEURON_RETURN_IF_ERROR(
        refuseHostCode(program, e->origin, "NEURON_LOAD_REFUSE_HOST_CODE"));
  NEURON_RETURN_IF_ERROR(loadHostCode(program, *e->exe, e->origin));
  e->program = std::move(program);
  e->length = length;
  e->inputs.clear();
  e->outputs.clear();
  e->programInputs.clear();
  const std::vector<BucketDim> none;
  const Buckets *b = e->buckets ? &*e->buckets : nullptr;
  for (size_t i = 0; i < e->program.inputs.size(); ++i) {
    if (b && b->lengthInput == int64_t(i))
      continue;
    e->programInputs.push_back(i);
    e->inputs.push_back(atLength(describeIo(e->program, e->program.inputs[i]),
                                 bucketDims(b ? b->inputs : none, i), length));
  }
  for (size_t i = 0; i < e->program.outputs.size(); ++i)
    e->outputs.push_back(
        atLength(describeIo(e->program, e->program.outputs[i]),
                 bucketDims(b ? b->outputs : none, i), length));
  return absl::OkStatus();
}

static NeuronStatus load(absl::StatusOr<Executable> exe, unsigned flags,
                         std::string_view origin, NeuronExecutable **out) {
  if (!exe.ok())
    return report(exe.status());
  absl::StatusOr<std::optional<Buckets>> buckets =
      readBuckets(exe->manifest());
  if (!buckets.ok())
    return report(buckets.status());
  auto *e = new NeuronExecutable;
  e->target = targetSpecOf(exe->manifest());
  e->exe.emplace(*std::move(exe));
  e->flags = flags;
  e->origin = std::string(origin);
  e->buckets = *std::move(buckets);
  absl::Status status =
      selectProgram(e, e->buckets ? e->buckets->sizes.back() : 0);
  if (!status.ok()) {
    delete e;
    return report(status);
  }
  *out = e;
  return NEURON_OK;
}

NeuronStatus neuronExecutableLoadFileFlags(const char *path, unsigned flags,
                                           NeuronExecutable **out) {
  if (!path || !out)
    return invalid("neuronExecutableLoadFile: path and out must not be NULL");
  return load(Executable::readFile(path), flags, path, out);
}

NeuronStatus neuronExecutableLoadFile(const char *path,
                                      NeuronExecutable **out) {
  return neuronExecutableLoadFileFlags(path, NEURON_LOAD_DEFAULT, out);
}

NeuronStatus neuronExecutableLoadBytesFlags(const void *data, size_t size,
                                            unsigned flags,
                                            NeuronExecutable **out) {
  if ((!data && size) || !out)
    return invalid("neuronExecutableLoadBytes: data (unless size is 0) and "
                   "out must not be NULL");
  const auto *bytes = static_cast<const uint8_t *>(data);
  return load(Executable::parse(std::vector<uint8_t>(bytes, bytes + size)),
              flags, "<memory>", out);
}

NeuronStatus neuronExecutableLoadBytes(const void *data, size_t size,
                                       NeuronExecutable **out) {
  return neuronExecutableLoadBytesFlags(data, size, NEURON_LOAD_DEFAULT, out);
}

size_t neuronExecutableHostCalls(const NeuronExecutable *e) {
  if (!e)
    return 0;
  size_t calls = 0;
  for (const Step &step : e->program.steps)
    calls += step.isHostCall();
  return calls;
}

void neuronExecutableDestroy(NeuronExecutable *e) { delete e; }

size_t neuronExecutableInputCount(const NeuronExecutable *e) {
  return e ? e->inputs.size() : 0;
}

size_t neuronExecutableOutputCount(const NeuronExecutable *e) {
  return e ? e->outputs.size() : 0;
}

static NeuronStatus describe(const std::vector<IoInfo> &ios, size_t index,
                             NeuronTensorInfo *info, const char *what) {
  if (!info)
    return invalid(absl::StrFormat("%s: info must not be NULL", what));
  if (index >= ios.size())
    return report(absl::OutOfRangeError(absl::StrFormat(
        "%s: index %d, the executable has %d", what, index, ios.size())));
  const IoInfo &io = ios[index];
  *info = {io.name.c_str(), io.dtype.c_str(), io.shape.size(),
           io.shape.data(), io.bytes};
  return NEURON_OK;
}

NeuronStatus neuronExecutableInput(const NeuronExecutable *e, size_t index,
                                   NeuronTensorInfo *info) {
  if (!e)
    return invalid("neuronExecutableInput: the executable is NULL");
  return describe(e->inputs, index, info, "neuronExecutableInput");
}

NeuronStatus neuronExecutableOutput(const NeuronExecutable *e, size_t index,
                                    NeuronTensorInfo *info) {
  if (!e)
    return invalid("neuronExecutableOutput: the executable is NULL");
  return describe(e->outputs, index, info, "neuronExecutableOutput");
}

int64_t neuronExecutableRanks(const NeuronExecutable *e) {
  return e ? e->program.ranks() : 0;
}

const char *neuronExecutableTarget(const NeuronExecutable *e) {
  return e ? e->target.c_str() : "";
}

/// Checks the caller's buffers against `ios` ("input" or "output").
static absl::Status checkBuffers(const std::vector<IoInfo> &ios,
                                 const void *const *buffers,
                                 const size_t *sizes, const char *what) {
  if (!ios.empty() && (!buffers || !sizes))
    return absl::InvalidArgumentError(absl::StrFormat(
        "neuronExecutableRun: the %ss and their sizes must not be NULL (the "
        "executable has %d)",
        what, ios.size()));
  for (size_t i = 0; i < ios.size(); ++i) {
    if (!buffers[i] && ios[i].bytes)
      return absl::InvalidArgumentError(absl::StrFormat(
          "neuronExecutableRun: %s %d (\"%s\") is NULL", what, i,
          ios[i].name));
    if (sizes[i] != ios[i].bytes)
      return absl::InvalidArgumentError(absl::StrFormat(
          "neuronExecutableRun: %s %d (\"%s\", %s[%s]) has %d bytes, "
          "expected %d",
          what, i, ios[i].name, ios[i].dtype,
          absl::StrJoin(ios[i].shape, ", "), sizes[i], ios[i].bytes));
  }
  return absl::OkStatus();
}

NeuronStatus neuronExecutableRun(NeuronExecutable *e,
                                 const void *const *inputs,
                                 const size_t *inputBytes,
                                 void *const *outputs,
                                 const size_t *outputBytes) {
  if (!e)
    return invalid("neuronExecutableRun: the executable is NULL");
  if (NeuronStatus s =
          report(checkBuffers(e->inputs, inputs, inputBytes, "input"));
      s != NEURON_OK)
    return s;
  if (NeuronStatus s = report(checkBuffers(
          e->outputs, const_cast<const void *const *>(outputs), outputBytes,
          "output"));
      s != NEURON_OK)
    return s;
  // The program's inputs: the caller's, padded to the bucket's size where
  // the length is shorter, and the length.
  std::vector<TensorRef> whole(e->program.inputs.size());
  std::vector<Tensor> owned;
  owned.reserve(whole.size() + 1);
  const Buckets *b = e->buckets ? &*e->buckets : nullptr;
  if (b && b->lengthInput) {
    owned.push_back(lengthTensor(e->length));
    whole[*b->lengthInput] = TensorRef::of(owned.back());
  }
  for (size_t i = 0; i < e->inputs.size(); ++i) {
    size_t at = e->programInputs[i];
    TensorRef given{e->inputs[i].dtype, e->inputs[i].shape,
                    static_cast<const uint8_t *>(inputs[i]), inputBytes[i]};
    std::vector<int64_t> shape = wholeShape(e->program, e->program.inputs[at]);
    if (b && shape != given.shape) {
      owned.push_back(resizeTensor(given, shape, b->pad));
      given = TensorRef::of(owned.back());
    }
    whole[at] = given;
  }
  absl::StatusOr<SpmdResult> run = runSpmdProcess(
      e->program, whole, sectionConstants(*e->exe), SpmdOptions());
  if (!run.ok())
    return report(run.status());
  for (size_t i = 0; i < e->outputs.size(); ++i) {
    Tensor &result = run->outputs[i];
    if (result.shape != e->outputs[i].shape)
      result = resizeTensor(TensorRef::of(result), e->outputs[i].shape, 0);
    std::memcpy(outputs[i], result.data.data(), outputBytes[i]);
  }
  return NEURON_OK;
}

size_t neuronExecutableBuckets(const NeuronExecutable *e,
                               const int64_t **sizes) {
  if (!e || !e->buckets) {
    if (sizes)
      *sizes = nullptr;
    return 0;
  }
  if (sizes)
    *sizes = e->buckets->sizes.data();
  return e->buckets->sizes.size();
}

NeuronStatus neuronExecutableSetLength(NeuronExecutable *e, int64_t length) {
  if (!e)
    return invalid("neuronExecutableSetLength: the executable is NULL");
  if (!e->buckets)
    return invalid("neuronExecutableSetLength: the executable has no shape "
                   "buckets (neuron-compile --buckets)");
  return report(selectProgram(e, length));
}

int64_t neuronExecutableLength(const NeuronExecutable *e) {
  return e ? e->length : 0;
}

NeuronStatus neuronExecutableProfile(NeuronExecutable *e, const char **json) {
  if (!e || !json)
    return invalid(
        "neuronExecutableProfile: the executable and json must not be NULL");
  absl::StatusOr<TargetModels> models =
      targetModelsOf(e->exe->manifest(), e->program);
  if (!models.ok())
    return report(models.status());
  TimingOptions options;
  options.recordInstances = 0;
  absl::StatusOr<ProgramTiming> timing =
      simulateProgramTiming(e->program, models->cost, models->links, options);
  if (!timing.ok())
    return report(timing.status());
  e->profile = profileJson(e->program, *timing, models->cost,
                           targetRecordOf(e->exe->manifest()), &models->target)
                   .dump(2);
  *json = e->profile.c_str();
  return NEURON_OK;
}
