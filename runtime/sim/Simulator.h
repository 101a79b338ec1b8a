//===- Simulator.h - Functional simulation of a program ---------*- C++ -*-===//
//
// Runs a validated Program on a simulated device: HBM tensors and the SBUF
// and PSUM of one NeuronCore are real byte arrays, and every instruction of
// every kernel step executes in program order with the semantics of
// docs/executable.md; host_call steps run their native code between them
// (runtime/sim/HostCode.h). Functional only: instructions run one by one
// in list order (which the compiler keeps a valid order even when it
// schedules them onto overlapping units); time is modelled separately,
// independent of the data, by runtime/sim/Timing.h.
//
// Numerics: vector, scalar and gpsimd values are computed in double and
// rounded once, per the destination dtype, when stored. matmul follows the
// hardware instead: products and sums in f32, each output summed over K in
// ascending order, then added in f32 to the PSUM value when accumulating.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SIM_SIMULATOR_H
#define NEURON_RUNTIME_SIM_SIMULATOR_H

#include "runtime/sim/Program.h"
#include "runtime/support/Tensor.h"

#include "absl/status/statusor.h"

#include <functional>
#include <string>

namespace neuron::rt {

/// A constant's bytes where its loader keeps them (normally its section of
/// the mapped executable). The device reads them in place and never writes
/// them (the manifest's validation rejects a step that would), so they
/// must stay valid while it runs the program.
struct ConstantBytes {
  const uint8_t *data = nullptr;
  size_t size = 0;
};

/// The bytes of a constant tensor.
using ConstantLoader =
    std::function<absl::StatusOr<ConstantBytes>(const TensorDesc &)>;

class Executable;

/// The loader of an executable's constants: each read in place from its
/// section of `exe`, which must outlive the run. A missing section is an
/// error naming it and the constant, after "`origin`: " when `origin` (the
/// file, say) is not empty.
ConstantLoader sectionConstants(const Executable &exe, std::string origin = "");

/// Called before each step of a run with the step's index (for progress
/// reports); an SPMD run calls it once per step, not once per rank.
using StepObserver = std::function<void(size_t step)>;

struct DeviceOptions {
  /// HBM the device may allocate for a program's tensors, in bytes; also
  /// the host memory one host_call step's values may take.
  int64_t hbmBytes = int64_t(16) << 30;
  /// Told of each step as it starts; may be empty.
  StepObserver onStep;
};

/// A simulated device with one NeuronCore.
class Device {
public:
  explicit Device(DeviceOptions options = {}) : options(options) {}

  /// Runs `program` on `inputs` (one per program input, in order) and
  /// returns its outputs in order: load, every step, outputs. Errors:
  /// those of load and runStep; FailedPrecondition for a program with
  /// collective steps (they need every rank: runtime/sim/Spmd.h).
  absl::StatusOr<std::vector<Tensor>>
  run(const Program &program, std::vector<Tensor> inputs,
      const ConstantLoader &loadConstant = nullptr);

  /// Allocates `program`'s tensors and fills its inputs and constants.
  /// Errors: InvalidArgument for inputs or constants that do not match the
  /// manifest (naming the input index, expected and found); Unimplemented
  /// for a program with a host_call step that has no reference (before
  /// anything runs); ResourceExhausted when the tensors do not fit. Scratch
  /// tensors start zeroed.
  absl::Status load(const Program &program, std::vector<Tensor> inputs,
                    const ConstantLoader &loadConstant = nullptr);
  /// Runs kernel or host_call step `index` of the loaded program; errors
  /// start "program[INDEX]: ". ResourceExhausted when a host_call's values
  /// do not fit; OutOfRange when a gather index lies outside its table,
  /// naming the kernel, the instruction index, the partition and the
  /// index; FailedPrecondition for a collective step. SBUF and PSUM are
  /// zeroed at the start of every kernel step, so kernels exchange data
  /// only through HBM.
  absl::Status runStep(const Program &program, size_t index);
  /// The program's outputs, in order, as the loaded tensors hold them. A
  /// tensor returned once (and not through a view too) is moved out, so
  /// the device no longer holds it: call once, after the last step.
  std::vector<Tensor> outputs(const Program &program);

  /// The first byte of tensor `id` of the loaded program (within its root
  /// for a view).
  uint8_t *tensorBytes(const Program &program, int64_t id);

  /// The HBM bytes of tensor `id` after the last run (for tests and dumps;
  /// empty for a view, a constant (the loader's bytes) and a tensor
  /// outputs() moved out).
  const std::vector<uint8_t> &hbm(int64_t id) const { return hbmTensors[id]; }
  /// SBUF and PSUM after the last kernel step, partition-major: partition p
  /// of physical core c starts at (c x partitions + p) x
  /// partitionPitch(bytes per partition).
  const std::vector<uint8_t> &sbuf() const { return sbufBytes; }
  const std::vector<uint8_t> &psum() const { return psumBytes; }
  /// Bytes from one partition's start to the next in sbuf() and psum(): a
  /// cache line more than the partition holds, so that a tile's partitions
  /// do not all fall in the same sets of the host's caches (partition
  /// sizes are multiples of 4 KiB).
  static int64_t partitionPitch(int64_t bytesPerPartition) {
    return bytesPerPartition + 64;
  }

private:
  absl::Status runKernel(const Program &program, const Kernel &kernel,
                         const std::vector<int64_t> &bindings);
  DeviceOptions options;
  std::vector<std::vector<uint8_t>> hbmTensors;
  /// Per tensor: a constant's bytes as its loader keeps them, or nullptr.
  std::vector<const uint8_t *> constants;
  std::vector<uint8_t> sbufBytes, psumBytes;
};

} // namespace neuron::rt

#endif // NEURON_RUNTIME_SIM_SIMULATOR_H
