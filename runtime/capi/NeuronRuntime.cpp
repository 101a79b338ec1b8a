//===- NeuronRuntime.cpp - The runtime's C API ----------------------------===//
//
// Each entry point turns absl::Status into a NeuronStatus code and the
// thread's last message; nothing below throws (the runtime is built without
// exceptions and reports every error as a status).
//
//===----------------------------------------------------------------------===//

#include "runtime/capi/NeuronRuntime.h"

#include "runtime/format/Executable.h"
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
  std::vector<IoInfo> inputs, outputs;
  std::string profile;
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

/// The loaded executable for `exe`, or an error.
static absl::StatusOr<NeuronExecutable *> adopt(Executable exe) {
  NEURON_ASSIGN_OR_RETURN(program, parseProgram(exe.manifest()));
  auto *e = new NeuronExecutable;
  e->target = targetSpecOf(exe.manifest());
  e->exe.emplace(std::move(exe));
  e->program = std::move(program);
  for (const IoBinding &io : e->program.inputs)
    e->inputs.push_back(describeIo(e->program, io));
  for (const IoBinding &io : e->program.outputs)
    e->outputs.push_back(describeIo(e->program, io));
  return e;
}

static NeuronStatus load(absl::StatusOr<Executable> exe, unsigned flags,
                         std::string_view origin, NeuronExecutable **out) {
  if (!exe.ok())
    return report(exe.status());
  absl::StatusOr<NeuronExecutable *> adopted = adopt(*std::move(exe));
  if (!adopted.ok())
    return report(adopted.status());
  NeuronExecutable *e = *adopted;
  absl::Status status = absl::OkStatus();
  if (flags & NEURON_LOAD_REFUSE_HOST_CODE)
    status = refuseHostCode(e->program, origin, "NEURON_LOAD_REFUSE_HOST_CODE");
  if (status.ok())
    status = loadHostCode(e->program, *e->exe, origin);
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
  std::vector<TensorRef> whole;
  for (size_t i = 0; i < e->inputs.size(); ++i)
    whole.push_back({e->inputs[i].dtype, e->inputs[i].shape,
                     static_cast<const uint8_t *>(inputs[i]), inputBytes[i]});
  absl::StatusOr<SpmdResult> run = runSpmdProcess(
      e->program, whole, sectionConstants(*e->exe), SpmdOptions());
  if (!run.ok())
    return report(run.status());
  for (size_t i = 0; i < e->outputs.size(); ++i)
    std::memcpy(outputs[i], run->outputs[i].data.data(), outputBytes[i]);
  return NEURON_OK;
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
