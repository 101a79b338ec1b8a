//===- Simulator.cpp - Functional simulation of a program -----------------===//
//
// Each operand is gathered into a vector of doubles through its access
// pattern, the op computes on those, and the result is scattered back with
// rounding per the destination dtype. Program validation has already checked
// every address; what it cannot check is data used as an address (a gather's
// indices), which is checked as it is read. host_call steps run their
// native code (runtime/sim/HostCode.h) on HBM's bytes.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/Simulator.h"

#include "runtime/format/Executable.h"

#include "runtime/sim/Gemm.h"
#include "runtime/sim/Parallel.h"
#include "runtime/support/LargeBuffer.h"

#include "runtime/target/TargetInternal.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace neuron::rt {

static std::string describeTensor(std::string_view dtype,
                                  const std::vector<int64_t> &shape,
                                  size_t bytes) {
  return absl::StrFormat("%s[%s] (%d bytes)", dtype, absl::StrJoin(shape, ", "),
                         bytes);
}

absl::Status Device::load(const Program &program, std::vector<Tensor> inputs,
                          const ConstantLoader &loadConstant) {
  for (size_t i = 0; i < program.steps.size(); ++i)
    if (program.steps[i].isHostCall() && !program.steps[i].entry)
      return absl::FailedPreconditionError(absl::StrFormat(
          "program[%d]: host_call \"%s\": its host code is not loaded (the "
          "executable's host_code section; loadHostCode)",
          i, program.steps[i].hostCall));
  if (inputs.size() != program.inputs.size())
    return absl::InvalidArgumentError(
        absl::StrFormat("inputs: expected %d tensors, found %d",
                        program.inputs.size(), inputs.size()));
  int64_t total = 0;
  for (const TensorDesc &t : program.tensors) {
    if (t.kind != TensorKind::View)
      total += t.bytes(); // each below 2^43
    if (total > options.hbmBytes)
      return absl::ResourceExhaustedError(absl::StrFormat(
          "the program's tensors need more than %d bytes of HBM, the "
          "device's capacity",
          options.hbmBytes));
  }
  // A view has no bytes of its own; an input's are the caller's, a
  // constant's the loader's.
  hbmTensors.assign(program.tensors.size(), {});
  constants.assign(program.tensors.size(), nullptr);
  std::vector<bool> isInput(program.tensors.size(), false);
  for (const IoBinding &io : program.inputs)
    isInput[io.tensor] = true;
  for (size_t i = 0; i < program.tensors.size(); ++i) {
    const TensorDesc &t = program.tensors[i];
    if (t.kind != TensorKind::View && t.kind != TensorKind::Constant &&
        !isInput[i])
      resizeLargeBuffer(hbmTensors[i], t.bytes());
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorDesc &t = program.tensors[program.inputs[i].tensor];
    Tensor &in = inputs[i];
    size_t bytes = t.bytes();
    if (in.dtype != dtypeName(t.dtype) || in.shape != t.shape ||
        in.data.size() != bytes)
      return absl::InvalidArgumentError(
          absl::StrFormat("inputs[%d] (\"%s\"): expected %s, found %s", i,
                          program.inputs[i].name,
                          describeTensor(dtypeName(t.dtype), t.shape, bytes),
                          describeTensor(in.dtype, in.shape, in.data.size())));
    hbmTensors[program.inputs[i].tensor] = std::move(in.data);
  }
  for (size_t i = 0; i < program.tensors.size(); ++i) {
    const TensorDesc &t = program.tensors[i];
    if (t.kind != TensorKind::Constant)
      continue;
    if (!loadConstant)
      return absl::FailedPreconditionError(absl::StrFormat(
          "tensor %d is a constant (section \"%s\") but no constant loader "
          "was given",
          i, t.section));
    NEURON_ASSIGN_OR_RETURN(bytes, loadConstant(t));
    size_t expected = t.bytes();
    if (bytes.size != expected)
      return absl::InvalidArgumentError(absl::StrFormat(
          "tensor %d (section \"%s\"): expected %d bytes (%s), found %d", i,
          t.section, expected,
          describeTensor(dtypeName(t.dtype), t.shape, expected), bytes.size));
    constants[i] = bytes.data;
  }
  return absl::OkStatus();
}

ConstantLoader sectionConstants(const Executable &exe, std::string origin) {
  if (!origin.empty())
    origin += ": ";
  return [&exe, origin](const TensorDesc &desc)
             -> absl::StatusOr<ConstantBytes> {
    const SectionView *section = exe.section(desc.section);
    if (!section)
      return absl::InvalidArgumentError(
          absl::StrFormat("%sno section '%s' for constant '%s'", origin,
                          desc.section, desc.name));
    return ConstantBytes{section->data, size_t(section->size)};
  };
}

uint8_t *Device::tensorBytes(const Program &program, int64_t id) {
  const TensorDesc &t = program.tensors[id];
  int64_t root = t.kind == TensorKind::View ? t.viewOf : id;
  int64_t offset = t.kind == TensorKind::View ? t.viewOffset : 0;
  // Validation keeps every write off a constant, so its bytes, which may
  // be a read-only mapping, are only ever read through this pointer.
  uint8_t *base = constants[root] ? const_cast<uint8_t *>(constants[root])
                                  : hbmTensors[root].data();
  return base + offset * elementBytes(t.dtype);
}

absl::Status Device::runStep(const Program &program, size_t index) {
  const Step &step = program.steps[index];
  auto bytesOf = [&](int64_t id) { return tensorBytes(program, id); };
  absl::Status status;
  switch (step.kind) {
  case StepKind::Kernel:
    status = runKernel(program, program.kernels[step.kernel], step.bindings);
    break;
  case StepKind::HostCall:
    status = runHostCall(step, program, bytesOf);
    if (!status.ok())
      status = absl::Status(status.code(),
                            absl::StrFormat("host_call \"%s\": %s",
                                            step.hostCall, status.message()));
    break;
  case StepKind::CollectiveStart:
  case StepKind::CollectiveDone:
    status = absl::FailedPreconditionError(absl::StrFormat(
        "collective %d needs every rank of the grid (an SPMD run)",
        step.collective.id));
    break;
  }
  if (status.ok())
    return status;
  return absl::Status(status.code(), absl::StrFormat("program[%d]: %s", index,
                                                     status.message()));
}

std::vector<Tensor> Device::outputs(const Program &program) {
  // A root tensor returned once, itself and through no view, gives its
  // bytes away; any other output is copied.
  std::vector<int> uses(program.tensors.size(), 0);
  for (const IoBinding &io : program.outputs) {
    const TensorDesc &t = program.tensors[io.tensor];
    ++uses[t.kind == TensorKind::View ? t.viewOf : io.tensor];
  }
  std::vector<Tensor> outputs;
  for (const IoBinding &io : program.outputs) {
    const TensorDesc &t = program.tensors[io.tensor];
    Tensor out{std::string(dtypeName(t.dtype)), t.shape, {}};
    if (t.kind != TensorKind::View && uses[io.tensor] == 1) {
      out.data = std::move(hbmTensors[io.tensor]);
    } else {
      const uint8_t *bytes = tensorBytes(program, io.tensor);
      out.data.assign(bytes, bytes + t.bytes());
    }
    outputs.push_back(std::move(out));
  }
  return outputs;
}

absl::StatusOr<std::vector<Tensor>>
Device::run(const Program &program, std::vector<Tensor> inputs,
            const ConstantLoader &loadConstant) {
  for (size_t i = 0; i < program.steps.size(); ++i)
    if (program.steps[i].isCollective())
      return absl::FailedPreconditionError(absl::StrFormat(
          "program[%d]: collective %d needs every rank of the grid (an SPMD "
          "run)",
          i, program.steps[i].collective.id));
  NEURON_RETURN_IF_ERROR(load(program, std::move(inputs), loadConstant));
  for (size_t i = 0; i < program.steps.size(); ++i) {
    if (options.onStep)
      options.onStep(i);
    NEURON_RETURN_IF_ERROR(runStep(program, i));
  }
  return outputs(program);
}

//===----------------------------------------------------------------------===//
// Kernel execution
//===----------------------------------------------------------------------===//

namespace {
/// Executes one kernel step's instructions against the device's memories.
class KernelRunner {
public:
  /// `bases[p]`: the first byte of the tensor bound to parameter p.
  KernelRunner(const Limits &limits, const std::vector<uint8_t *> &bases,
               std::vector<uint8_t> &sbuf, std::vector<uint8_t> &psum)
      : limits(limits), bases(bases), sbuf(sbuf), psum(psum),
        sbufPitch(Device::partitionPitch(limits.sbufBytes)),
        psumPitch(Device::partitionPitch(limits.psumBytes)) {}

  /// Fails only on data that addresses memory (gather indices). Its
  /// on-chip operands are its physical core's.
  absl::Status execute(const Instruction &inst) {
    core = inst.core;
    return dispatch(inst);
  }

private:
  absl::Status dispatch(const Instruction &inst);
  /// The byte address of every element of `ref`, in row-major order.
  std::vector<uint8_t *> addresses(const TileRef &ref);
  /// Calls `f(start, count, step)` on `ref`'s elements in order, as runs of
  /// `count` elements `step` bytes apart (a partition's free elements on
  /// chip, or its innermost dimension when strided; the innermost dimension
  /// in HBM).
  template <typename F> void forEachRun(const TileRef &ref, F &&f);
  std::vector<double> load(const TileRef &ref);
  void store(const TileRef &ref, const std::vector<double> &values);

  /// Fails only on a start offset outside its limit.
  absl::Status dmaCopy(const Instruction &inst);
  /// `src`'s elements into `dst`, in row-major order of both patterns.
  void copy(const TileRef &src, const TileRef &dst);
  /// Bytes between partitions of `ref`'s memory, an on-chip one.
  int64_t pitchOf(const TileRef &ref) const {
    return ref.space == MemorySpace::Sbuf ? sbufPitch : psumPitch;
  }
  /// The first byte of `ref`, an on-chip tile, in its first partition.
  uint8_t *firstPartition(const TileRef &ref);
  /// A matmul operand as rows `pitch` bytes apart: `ref` in place when its
  /// free elements are contiguous, else gathered into `scratch`.
  GemmOperand gemmOperand(const TileRef &ref, std::vector<uint8_t> &scratch);
  void matmul(const Instruction &inst);
  void transpose(const Instruction &inst);
  void activation(const Instruction &inst);
  void reduce(const Instruction &inst);
  void iota(const Instruction &inst);
  absl::Status gather(const Instruction &inst);
  void select(const Instruction &inst);
  /// `a` op scalar, elementwise: tensor_scalar and scalar_tensor_tensor's
  /// first step, with the immediate or the per-partition scalars.
  void scalarStep(const Instruction &inst, std::vector<double> &a);

  const Limits &limits;
  const std::vector<uint8_t *> &bases;
  /// Every physical core's SBUF (PSUM), one after another.
  std::vector<uint8_t> &sbuf;
  std::vector<uint8_t> &psum;
  int64_t sbufPitch, psumPitch;
  /// The physical core of the instruction executing.
  int64_t core = 0;
  /// `count` elements `step` bytes apart from `start`.
  struct Run {
    uint8_t *start;
    int64_t count;
    int64_t step;
  };
  static void copyRuns(const Run *dst, const Run *dstEnd, const Run *src,
                       int64_t srcDone, int64_t bytes);
  /// Reused across instructions: a copy's runs, the first element of each
  /// source run, staged bytes, a misaligned matmul result.
  std::vector<Run> srcRuns, dstRuns;
  std::vector<int64_t> runStarts;
  std::vector<uint8_t> staged, stagedStationary;
  std::vector<float> dstScratch;
  GemmScratch gemmScratch;
};
} // namespace

/// Calls `f(start, count, step)` on the row-major access pattern `sizes` x
/// `strides` (elements of `bytes` bytes) from `base`, one call per
/// innermost run.
template <typename F>
static void forEachPatternRun(uint8_t *base, const int64_t *sizes,
                              const int64_t *strides, size_t rank,
                              int64_t bytes, F &&f) {
  if (rank == 0) {
    f(base, 1, bytes);
    return;
  }
  int64_t inner = sizes[rank - 1], step = strides[rank - 1] * bytes;
  int64_t runs = 1;
  for (size_t d = 0; d + 1 < rank; ++d)
    runs *= sizes[d];
  std::vector<int64_t> index(rank - 1, 0);
  for (int64_t run = 0; run < runs; ++run) {
    int64_t element = 0;
    for (size_t d = 0; d + 1 < rank; ++d)
      element += index[d] * strides[d];
    f(base + element * bytes, inner, step);
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
  }
}

template <typename F>
void KernelRunner::forEachRun(const TileRef &ref, F &&f) {
  if (ref.elements == 0)
    return;
  int64_t bytes = elementBytes(ref.dtype);
  if (ref.space == MemorySpace::Hbm) {
    forEachPatternRun(bases[ref.param] + ref.offset * bytes, ref.shape.data(),
                      ref.strides.data(), ref.shape.size(), bytes, f);
    return;
  }
  uint8_t *start = firstPartition(ref);
  for (int64_t p = 0; p < ref.partitionCount(); ++p) {
    uint8_t *partition = start + p * pitchOf(ref);
    if (ref.contiguous())
      f(partition, ref.freeElements(), bytes);
    else
      forEachPatternRun(partition, ref.shape.data() + 1, ref.strides.data(),
                        ref.strides.size(), bytes, f);
  }
}

std::vector<uint8_t *> KernelRunner::addresses(const TileRef &ref) {
  std::vector<uint8_t *> out;
  out.reserve(ref.elements);
  forEachRun(ref, [&](uint8_t *p, int64_t count, int64_t step) {
    for (int64_t i = 0; i < count; ++i, p += step)
      out.push_back(p);
  });
  return out;
}

std::vector<double> KernelRunner::load(const TileRef &ref) {
  std::vector<double> values(ref.elements);
  double *out = values.data();
  forEachRun(ref, [&](const uint8_t *p, int64_t count, int64_t step) {
    loadElements(ref.dtype, p, count, step, out);
    out += count;
  });
  return values;
}

void KernelRunner::store(const TileRef &ref,
                         const std::vector<double> &values) {
  const double *in = values.data();
  forEachRun(ref, [&](uint8_t *p, int64_t count, int64_t step) {
    storeElements(ref.dtype, in, count, step, p);
    in += count;
  });
}

/// copyRun of elements of T's size: each moved by a fixed-size copy the
/// compiler turns into one load and one store, not a call.
template <typename T>
static void copyStrided(uint8_t *to, int64_t toStep, const uint8_t *from,
                        int64_t fromStep, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    T value;
    std::memcpy(&value, from + i * fromStep, sizeof(T));
    std::memcpy(to + i * toStep, &value, sizeof(T));
  }
}

/// Copies `count` elements of `bytes` bytes, `fromStep` bytes apart from
/// `from` to `toStep` bytes apart from `to`; in one piece when both are
/// contiguous.
static void copyRun(uint8_t *to, int64_t toStep, const uint8_t *from,
                    int64_t fromStep, int64_t count, int64_t bytes) {
  if (toStep == bytes && fromStep == bytes) {
    std::memcpy(to, from, count * bytes);
    return;
  }
  switch (bytes) {
  case 1:
    return copyStrided<uint8_t>(to, toStep, from, fromStep, count);
  case 2:
    return copyStrided<uint16_t>(to, toStep, from, fromStep, count);
  case 4:
    return copyStrided<uint32_t>(to, toStep, from, fromStep, count);
  case 8:
    return copyStrided<uint64_t>(to, toStep, from, fromStep, count);
  default:
    for (int64_t i = 0; i < count; ++i)
      std::memcpy(to + i * toStep, from + i * fromStep, bytes);
  }
}

/// Copies into the runs [dst, dstEnd) the elements that start `srcDone`
/// elements into run `src` and continue through the runs after it.
void KernelRunner::copyRuns(const Run *dst, const Run *dstEnd, const Run *src,
                            int64_t srcDone, int64_t bytes) {
  for (; dst != dstEnd; ++dst)
    for (int64_t done = 0; done < dst->count;) {
      int64_t n = std::min(dst->count - done, src->count - srcDone);
      copyRun(dst->start + done * dst->step, dst->step,
              src->start + srcDone * src->step, src->step, n, bytes);
      done += n;
      srcDone += n;
      if (srcDone == src->count) {
        ++src;
        srcDone = 0;
      }
    }
}

/// Whether `ref` reaches an element more than once: a zero stride on a
/// dimension of size above 1.
static bool writesRepeatedly(const TileRef &ref) {
  size_t first = ref.space == MemorySpace::Hbm ? 0 : 1;
  for (size_t d = 0; d < ref.strides.size(); ++d)
    if (ref.strides[d] == 0 && ref.shape[d + first] > 1)
      return true;
  return false;
}

absl::Status KernelRunner::dmaCopy(const Instruction &inst) {
  if (!inst.offset) {
    copy(inst.src, inst.dst);
    return absl::OkStatus();
  }
  // The start is read when the transfer starts and checked before a byte
  // moves.
  int64_t start = int64_t(load(*inst.offset)[0]);
  bool movesDst = &movedSide(inst) == &inst.dst;
  if (start < 0 || start > inst.offsetLimit)
    return absl::OutOfRangeError(absl::StrFormat(
        "dma_copy: its start offset is %d, outside [0, %d] (the %s's "
        "positions along the dimension it moves)",
        start, inst.offsetLimit, movesDst ? "destination" : "source"));
  TileRef moved = movedSide(inst);
  moved.offset += start * inst.offsetStride;
  copy(movesDst ? inst.src : moved, movesDst ? moved : inst.dst);
  return absl::OkStatus();
}

void KernelRunner::copy(const TileRef &src, const TileRef &dst) {
  if (src.dtype != dst.dtype) {
    store(dst, load(src));
    return;
  }
  // Same dtype: the bytes move unchanged (NaN payloads included).
  int64_t bytes = elementBytes(src.dtype);
  auto runsOf = [&](const TileRef &ref, std::vector<Run> &runs) {
    runs.clear();
    forEachRun(ref, [&](uint8_t *p, int64_t count, int64_t step) {
      runs.push_back({p, count, step});
    });
  };
  runsOf(dst, dstRuns);
  runsOf(src, srcRuns);
  if (src.space == dst.space) {
    // Within one memory the tiles may overlap: gathering the source first
    // makes the copy behave like memmove.
    staged.resize(src.elements * bytes);
    Run gathered{staged.data(), src.elements, bytes};
    copyRuns(&gathered, &gathered + 1, srcRuns.data(), 0, bytes);
    srcRuns.assign(1, gathered);
  }
  // The runs of both sides are walked together, a piece contiguous on both
  // sides moving in one copy. A large transfer is split by destination runs
  // over the threads, unless the destination writes an element more than
  // once (a zero stride), where the last write in order must win.
  if (src.elements * bytes < (int64_t(1) << 12) || writesRepeatedly(dst)) {
    copyRuns(dstRuns.data(), dstRuns.data() + dstRuns.size(), srcRuns.data(),
             0, bytes);
    return;
  }
  runStarts.assign(1, 0);
  for (const Run &run : srcRuns)
    runStarts.push_back(runStarts.back() + run.count);
  parallelFor(int64_t(dstRuns.size()), [&](int64_t first, int64_t last) {
    int64_t element = 0;
    for (int64_t r = 0; r < first; ++r)
      element += dstRuns[r].count;
    auto from = std::upper_bound(runStarts.begin(), runStarts.end(),
                                 element) -
                runStarts.begin() - 1;
    copyRuns(dstRuns.data() + first, dstRuns.data() + last,
             srcRuns.data() + from, element - runStarts[from], bytes);
  });
}

uint8_t *KernelRunner::firstPartition(const TileRef &ref) {
  return (ref.space == MemorySpace::Sbuf ? sbuf : psum).data() +
         (core * limits.partitions + ref.partition) * pitchOf(ref) +
         ref.offset;
}

GemmOperand KernelRunner::gemmOperand(const TileRef &ref,
                                      std::vector<uint8_t> &scratch) {
  if (ref.contiguous())
    return {firstPartition(ref), pitchOf(ref), ref.dtype};
  // A strided access pattern is gathered into rows of its free elements.
  int64_t bytes = elementBytes(ref.dtype), row = ref.freeElements() * bytes;
  scratch.resize(ref.elements * bytes);
  Run gathered{scratch.data(), ref.elements, bytes};
  srcRuns.clear();
  forEachRun(ref, [&](uint8_t *p, int64_t count, int64_t step) {
    srcRuns.push_back({p, count, step});
  });
  copyRuns(&gathered, &gathered + 1, srcRuns.data(), 0, bytes);
  return {scratch.data(), row, ref.dtype};
}

/// Row `row` of a [K, rows, F] on-chip tile: its [K, F] elements.
static TileRef rowOf(const TileRef &ref, int64_t row) {
  TileRef r = ref;
  int64_t rowStride = ref.contiguous() ? ref.shape[2] : ref.strides[0];
  int64_t step = ref.contiguous() ? 1 : ref.strides[1];
  r.shape = {ref.shape[0], ref.shape[2]};
  r.strides = step == 1 ? std::vector<int64_t>{} : std::vector<int64_t>{step};
  r.offset += row * rowStride * elementBytes(ref.dtype);
  r.elements = ref.shape[0] * ref.shape[2];
  return r;
}

void KernelRunner::matmul(const Instruction &inst) {
  if (inst.doubleRow) {
    // Each partition's two rows: the second's products add to the first's.
    Instruction row = inst;
    row.doubleRow = false;
    for (int64_t r = 0; r < 2; ++r) {
      row.stationary = rowOf(inst.stationary, r);
      row.moving = rowOf(inst.moving, r);
      row.accumulate = inst.accumulate || r > 0;
      matmul(row);
    }
    return;
  }
  int64_t k = inst.stationary.shape[0], m = inst.stationary.shape[1];
  int64_t n = inst.moving.freeElements();
  // The reader keeps both operands in SBUF and dst an f32 PSUM tile, so dst
  // shares no byte with them; it is summed in place unless misaligned.
  GemmOperand stationary = gemmOperand(inst.stationary, stagedStationary);
  GemmOperand moving = gemmOperand(inst.moving, staged);
  uint8_t *dst = firstPartition(inst.dst);
  if (psumPitch % 4 == 0 && inst.dst.offset % 4 == 0) {
    gemmTransposedA(m, n, k, stationary, moving, reinterpret_cast<float *>(dst),
                    psumPitch / 4, inst.accumulate, gemmScratch);
    return;
  }
  std::vector<double> values = load(inst.dst);
  dstScratch.assign(values.begin(), values.end());
  gemmTransposedA(m, n, k, stationary, moving, dstScratch.data(), n,
                  inst.accumulate, gemmScratch);
  store(inst.dst, std::vector<double>(dstScratch.begin(), dstScratch.end()));
}

void KernelRunner::transpose(const Instruction &inst) {
  int64_t p = inst.src.shape[0], f = inst.src.shape[1];
  std::vector<double> src = load(inst.src), dst(p * f);
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j < f; ++j)
      dst[j * p + i] = src[i * f + j];
  store(inst.dst, dst);
}

/// `x[i] = fn(x[i])` for i < n: the function chosen once, each loop one
/// the compiler can vectorise.
static void activateTile(ActivationFn fn, double *x, int64_t n) {
  constexpr double kSqrt1_2 = 0.70710678118654752440;
  constexpr double kSqrt2OverPi = 0.79788456080286535588;
  auto each = [&](auto f) {
    for (int64_t i = 0; i < n; ++i)
      x[i] = f(x[i]);
  };
  switch (fn) {
  case ActivationFn::Identity:
    return;
  case ActivationFn::Exp:
    return each([](double v) { return std::exp(v); });
  case ActivationFn::Log:
    return each([](double v) { return std::log(v); });
  case ActivationFn::Tanh:
    return each([](double v) { return std::tanh(v); });
  case ActivationFn::Sigmoid:
    return each([](double v) { return 1 / (1 + std::exp(-v)); });
  case ActivationFn::Relu:
    // max(v, 0) as arith.maximumf: NaN propagates.
    return each([](double v) { return std::isnan(v) || v > 0 ? v : 0; });
  case ActivationFn::Gelu:
    return each(
        [](double v) { return 0.5 * v * (1 + std::erf(v * kSqrt1_2)); });
  case ActivationFn::GeluTanh:
    return each([](double v) {
      return 0.5 * v * (1 + std::tanh(kSqrt2OverPi * (v + 0.044715 * v * v * v)));
    });
  case ActivationFn::Silu:
    return each([](double v) { return v / (1 + std::exp(-v)); });
  case ActivationFn::Sqrt:
    return each([](double v) { return std::sqrt(v); });
  case ActivationFn::Rsqrt:
    return each([](double v) { return 1 / std::sqrt(v); });
  case ActivationFn::Reciprocal:
    return each([](double v) { return 1 / v; });
  case ActivationFn::Erf:
    return each([](double v) { return std::erf(v); });
  case ActivationFn::Square:
    return each([](double v) { return v * v; });
  case ActivationFn::Abs:
    return each([](double v) { return std::fabs(v); });
  case ActivationFn::Neg:
    return each([](double v) { return -v; });
  }
}

/// `a[i] = a[i] op b(i)` for i < n, `b` an array or a scalar (a callable
/// of the index); comparisons give 1 or 0, bypass keeps `a`. The op is
/// chosen once, so each loop is one the compiler can vectorise.
template <typename B>
static void aluTile(AluOp op, double *a, B b, int64_t n) {
  auto each = [&](auto f) {
    for (int64_t i = 0; i < n; ++i)
      a[i] = f(a[i], b(i));
  };
  switch (op) {
  case AluOp::Add:
    return each([](double x, double y) { return x + y; });
  case AluOp::Subtract:
    return each([](double x, double y) { return x - y; });
  case AluOp::Multiply:
    return each([](double x, double y) { return x * y; });
  case AluOp::Divide:
    return each([](double x, double y) { return x / y; });
  case AluOp::Max:
    return each([](double x, double y) { return maximumF(x, y); });
  case AluOp::Min:
    return each([](double x, double y) { return minimumF(x, y); });
  case AluOp::Pow:
    return each([](double x, double y) { return std::pow(x, y); });
  case AluOp::IsEqual:
    return each([](double x, double y) { return double(x == y); });
  case AluOp::NotEqual:
    return each([](double x, double y) { return double(x != y); });
  case AluOp::IsLt:
    return each([](double x, double y) { return double(x < y); });
  case AluOp::IsLe:
    return each([](double x, double y) { return double(x <= y); });
  case AluOp::IsGt:
    return each([](double x, double y) { return double(x > y); });
  case AluOp::IsGe:
    return each([](double x, double y) { return double(x >= y); });
  case AluOp::Bypass:
    return;
  }
}

void KernelRunner::activation(const Instruction &inst) {
  std::vector<double> x = load(inst.src);
  std::vector<double> bias =
      inst.bias ? load(*inst.bias)
                : std::vector<double>(inst.src.partitionCount(), 0.0);
  std::vector<double> scales =
      inst.scales ? load(*inst.scales)
                  : std::vector<double>(inst.src.partitionCount(), 1.0);
  int64_t free = inst.src.freeElements();
  for (int64_t p = 0; p < int64_t(bias.size()); ++p) {
    double *row = x.data() + p * free, b = bias[p],
           scale = inst.scale * scales[p];
    for (int64_t f = 0; f < free; ++f)
      row[f] = row[f] * scale + b;
  }
  activateTile(inst.function, x.data(), int64_t(x.size()));
  store(inst.dst, x);
}

void KernelRunner::reduce(const Instruction &inst) {
  std::vector<double> x = load(inst.src);
  int64_t free = inst.src.freeElements();
  int64_t partitions = inst.src.partitionCount();
  // Partitions side by side: the first column, then each next one folded
  // in, so every partition's sum keeps its order along the free dimension.
  std::vector<double> out(partitions);
  for (int64_t p = 0; p < partitions; ++p)
    out[p] = x[p * free];
  for (int64_t f = 1; f < free; ++f)
    aluTile(
        inst.alu, out.data(), [&](int64_t p) { return x[p * free + f]; },
        partitions);
  store(inst.dst, out);
}

void KernelRunner::iota(const Instruction &inst) {
  int64_t free = inst.dst.freeElements();
  std::vector<double> out(inst.dst.elements);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = double(int64_t(i) / free * inst.partitionStep + int64_t(i) % free);
  store(inst.dst, out);
}

absl::Status KernelRunner::gather(const Instruction &inst) {
  const TileRef &table = inst.table;
  std::vector<double> indices = load(inst.indices);
  int64_t rows = table.shape[0], cols = table.shape[1];
  // Every index is checked before any row moves, so a failed gather leaves
  // its destination as it was.
  for (size_t p = 0; p < indices.size(); ++p)
    if (indices[p] < 0 || indices[p] >= double(rows))
      return absl::OutOfRangeError(absl::StrFormat(
          "gather: partition %d holds index %d, outside the table's rows "
          "[0, %d)",
          p, int64_t(indices[p]), rows));
  int64_t bytes = elementBytes(table.dtype);
  const uint8_t *base = bases[table.param];
  std::vector<uint8_t *> out = addresses(inst.dst);
  for (size_t p = 0; p < indices.size(); ++p) {
    int64_t row = table.offset + int64_t(indices[p]) * table.strides[0];
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(out[p * cols + c],
                  base + (row + c * table.strides[1]) * bytes, bytes);
  }
  return absl::OkStatus();
}

void KernelRunner::select(const Instruction &inst) {
  // The chosen element's bytes move unchanged (one dtype), NaN payloads and
  // infinities included; all operands are read before dst is written.
  std::vector<double> predicate = load(inst.predicate);
  std::vector<uint8_t *> onTrue = addresses(inst.onTrue),
                         onFalse = addresses(inst.onFalse);
  int64_t bytes = elementBytes(inst.dst.dtype);
  std::vector<uint8_t> staged(predicate.size() * bytes);
  for (size_t i = 0; i < predicate.size(); ++i)
    std::memcpy(staged.data() + i * bytes,
                predicate[i] != 0 ? onTrue[i] : onFalse[i], bytes);
  std::vector<uint8_t *> out = addresses(inst.dst);
  for (size_t i = 0; i < out.size(); ++i)
    std::memcpy(out[i], staged.data() + i * bytes, bytes);
}

void KernelRunner::scalarStep(const Instruction &inst, std::vector<double> &a) {
  if (inst.scalars) {
    std::vector<double> scalars = load(*inst.scalars);
    int64_t free = inst.src.freeElements();
    aluTile(
        inst.alu, a.data(), [&](int64_t i) { return scalars[i / free]; },
        int64_t(a.size()));
    return;
  }
  double scalar = inst.scalar;
  aluTile(
      inst.alu, a.data(), [scalar](int64_t) { return scalar; },
      int64_t(a.size()));
}

absl::Status KernelRunner::dispatch(const Instruction &inst) {
  switch (inst.op) {
  case Opcode::DmaCopy:
    return dmaCopy(inst);
  case Opcode::Matmul:
    matmul(inst);
    break;
  case Opcode::Transpose:
    transpose(inst);
    break;
  case Opcode::Activation:
    activation(inst);
    break;
  case Opcode::TensorTensor: {
    std::vector<double> a = load(inst.lhs), b = load(inst.rhs);
    aluTile(
        inst.alu, a.data(), [&](int64_t i) { return b[i]; }, int64_t(a.size()));
    store(inst.dst, a);
    break;
  }
  case Opcode::TensorScalar: {
    std::vector<double> a = load(inst.src);
    scalarStep(inst, a);
    store(inst.dst, a);
    break;
  }
  case Opcode::ScalarTensorTensor: {
    // The engine holds the intermediate in fp32.
    std::vector<double> a = load(inst.src), b = load(inst.rhs);
    scalarStep(inst, a);
    for (double &x : a)
      x = double(float(x));
    aluTile(
        inst.alu1, a.data(), [&](int64_t i) { return b[i]; },
        int64_t(a.size()));
    store(inst.dst, a);
    break;
  }
  case Opcode::TensorReduce:
    reduce(inst);
    break;
  case Opcode::Memset:
    store(inst.dst, std::vector<double>(inst.dst.elements, inst.value));
    break;
  case Opcode::Iota:
    iota(inst);
    break;
  case Opcode::Gather:
    return gather(inst);
  case Opcode::Select:
    select(inst);
    break;
  }
  return absl::OkStatus();
}

/// Calls `f(from's operand, to's operand)` on every tile operand of two
/// instructions of the same op and operands.
template <typename F>
static void forEachRef(const Instruction &from, Instruction &to, F &&f) {
  for (const TileOperand &operand : tileOperandsOf(from.op)) {
    const TileRef *a = operandRef(from, operand.name);
    TileRef *b = operandRef(to, operand.name);
    if (a && b)
      f(*a, *b);
  }
}

namespace {
/// Runs a kernel's instructions in program order, each loop's body as many
/// times as it has trips, with the operands of every instance at their
/// offsets for its iteration.
class LoopRunner {
public:
  LoopRunner(const Kernel &kernel, KernelRunner &runner)
      : kernel(kernel), runner(runner), resolved(kernel.instructions),
        iv(kernel.loops.size() + 1, 0) {
    for (size_t i = 0; i < kernel.instructions.size(); ++i) {
      std::vector<int64_t> trips;
      for (int64_t l : kernel.nestOf(int64_t(i)))
        trips.push_back(kernel.loops[l].trips);
      nestTrips.push_back(std::move(trips));
    }
  }

  absl::Status run() {
    return runRange(0, int64_t(kernel.instructions.size()), 0);
  }

private:
  /// Instructions [first, end), all at loop depth `depth` or deeper.
  absl::Status runRange(int64_t first, int64_t end, int64_t depth) {
    for (int64_t i = first; i < end;) {
      const Instruction &inst = kernel.instructions[i];
      if (inst.depth == depth) {
        NEURON_RETURN_IF_ERROR(runInstance(i));
        ++i;
        continue;
      }
      int64_t loop = inst.loop;
      while (kernel.loops[loop].depth > depth)
        loop = kernel.loops[loop].parent;
      const Loop &l = kernel.loops[loop];
      for (iv[depth] = 0; iv[depth] < l.trips; ++iv[depth])
        NEURON_RETURN_IF_ERROR(runRange(l.first, l.end, depth + 1));
      i = l.end;
    }
    return absl::OkStatus();
  }

  absl::Status runInstance(int64_t i) {
    const Instruction &inst = kernel.instructions[i];
    Instruction &at = resolved[i];
    const int64_t *trips = nestTrips[i].data();
    if (inst.depth > 0) {
      forEachRef(inst, at, [&](const TileRef &from, TileRef &to) {
        to.offset = offsetAt(from, iv.data(), trips);
      });
      at.accumulate =
          inst.accumulate &&
          (inst.restart.empty() ||
           std::any_of(inst.restart.begin(), inst.restart.end(),
                       [&](int64_t level) { return iv[level] != 0; }));
    }
    absl::Status status = runner.execute(at);
    if (status.ok())
      return status;
    std::string where =
        inst.depth ? absl::StrFormat(" at iteration [%s]",
                                     absl::StrJoin(iv.begin(),
                                                   iv.begin() + inst.depth,
                                                   ", "))
                   : std::string();
    return absl::Status(status.code(),
                        absl::StrFormat("kernel \"%s\" instruction %d%s: %s",
                                        kernel.name, i, where,
                                        status.message()));
  }

  const Kernel &kernel;
  KernelRunner &runner;
  std::vector<Instruction> resolved;
  std::vector<std::vector<int64_t>> nestTrips;
  std::vector<int64_t> iv;
};
} // namespace

absl::Status Device::runKernel(const Program &program, const Kernel &kernel,
                               const std::vector<int64_t> &bindings) {
  std::vector<uint8_t *> bases;
  for (int64_t id : bindings)
    bases.push_back(tensorBytes(program, id));
  const Limits &limits = kernel.limits;
  // Each physical core's SBUF and PSUM, one after another.
  int64_t rows = kernel.cores * limits.partitions;
  resizeLargeBuffer(sbufBytes, rows * partitionPitch(limits.sbufBytes));
  resizeLargeBuffer(psumBytes, rows * partitionPitch(limits.psumBytes));
  KernelRunner runner(limits, bases, sbufBytes, psumBytes);
  return LoopRunner(kernel, runner).run();
}

} // namespace neuron::rt
