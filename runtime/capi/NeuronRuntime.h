/*===- NeuronRuntime.h - The runtime's C API ----------------------*- C -*-===*\
|*                                                                            *|
|* Loads an executable (.nxe) from a file or from bytes, describes its       *|
|* inputs and outputs, runs it on the simulated device on the caller's       *|
|* buffers, and times it on the cost model of the target it was compiled     *|
|* for (the profile neuron-run --profile writes). Plain C; no C++ exception  *|
|* or abort crosses it: every call that can fail returns a NeuronStatus, and *|
|* neuronLastError() gives the message of the calling thread's last failed   *|
|* call. Strings and arrays it hands out belong to the object they came      *|
|* from. Link libNeuronRuntimeC.so (or NeuronMLIR::NeuronRuntimeC).          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef NEURON_RUNTIME_CAPI_NEURONRUNTIME_H
#define NEURON_RUNTIME_CAPI_NEURONRUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define NEURON_CAPI __attribute__((visibility("default")))
#else
#define NEURON_CAPI
#endif

/** What a call did: 0 for success, else the kind of error (the canonical
 *  codes of gRPC and absl, in their order). */
typedef enum NeuronStatus {
  NEURON_OK = 0,
  NEURON_CANCELLED = 1,
  NEURON_UNKNOWN = 2,
  NEURON_INVALID_ARGUMENT = 3,
  NEURON_DEADLINE_EXCEEDED = 4,
  NEURON_NOT_FOUND = 5,
  NEURON_ALREADY_EXISTS = 6,
  NEURON_PERMISSION_DENIED = 7,
  NEURON_RESOURCE_EXHAUSTED = 8,
  NEURON_FAILED_PRECONDITION = 9,
  NEURON_ABORTED = 10,
  NEURON_OUT_OF_RANGE = 11,
  NEURON_UNIMPLEMENTED = 12,
  NEURON_INTERNAL = 13,
  NEURON_UNAVAILABLE = 14,
  NEURON_DATA_LOSS = 15,
  NEURON_UNAUTHENTICATED = 16
} NeuronStatus;

/** The message of the calling thread's last failed call ("" if none),
 *  valid until its next call. */
NEURON_CAPI const char *neuronLastError(void);

/** A loaded and validated executable. */
typedef struct NeuronExecutable NeuronExecutable;

/** Maps and validates the file at `path`. */
NEURON_CAPI NeuronStatus neuronExecutableLoadFile(const char *path,
                                                  NeuronExecutable **out);
/** Validates a copy of the `size` bytes at `data` (a whole .nxe file). */
NEURON_CAPI NeuronStatus neuronExecutableLoadBytes(const void *data,
                                                   size_t size,
                                                   NeuronExecutable **out);
/** Flags of the ...Flags loads. */
typedef enum NeuronLoadFlags {
  NEURON_LOAD_DEFAULT = 0,
  /** Refuse (NEURON_PERMISSION_DENIED) an executable that carries host
   *  code: its host calls would run on this machine. For executables the
   *  caller did not compile. */
  NEURON_LOAD_REFUSE_HOST_CODE = 1
} NeuronLoadFlags;

/** neuronExecutableLoadFile and neuronExecutableLoadBytes with `flags`, a
 *  bitwise or of NeuronLoadFlags. */
NEURON_CAPI NeuronStatus neuronExecutableLoadFileFlags(const char *path,
                                                       unsigned flags,
                                                       NeuronExecutable **out);
NEURON_CAPI NeuronStatus neuronExecutableLoadBytesFlags(
    const void *data, size_t size, unsigned flags, NeuronExecutable **out);

/** How many host calls the program makes (0: it runs on the device alone). */
NEURON_CAPI size_t neuronExecutableHostCalls(const NeuronExecutable *e);

/** Frees it (NULL is ignored). */
NEURON_CAPI void neuronExecutableDestroy(NeuronExecutable *executable);

/** A program input or output as the caller passes it: the whole tensor,
 *  which an SPMD program splits over its ranks and reassembles. */
typedef struct NeuronTensorInfo {
  /** The name the graph gave it, or "". */
  const char *name;
  /** A manifest dtype: "f32", "bf16", "f16", "f8E4M3FN", "f8E5M2", "i8",
   *  "i16", "i32", "i64" or "i1". */
  const char *dtype;
  size_t rank;
  const int64_t *shape;
  /** Its size in bytes: C order, little-endian, an i1 in one byte. */
  size_t bytes;
} NeuronTensorInfo;

NEURON_CAPI size_t neuronExecutableInputCount(const NeuronExecutable *e);
NEURON_CAPI size_t neuronExecutableOutputCount(const NeuronExecutable *e);
/** Input or output `index`, or NEURON_OUT_OF_RANGE. */
NEURON_CAPI NeuronStatus neuronExecutableInput(const NeuronExecutable *e,
                                               size_t index,
                                               NeuronTensorInfo *info);
NEURON_CAPI NeuronStatus neuronExecutableOutput(const NeuronExecutable *e,
                                                size_t index,
                                                NeuronTensorInfo *info);
/** The logical cores the program runs on (1 without SPMD). */
NEURON_CAPI int64_t neuronExecutableRanks(const NeuronExecutable *e);
/** The target spec it was compiled for ("trainium2,lnc=2"), or "". */
NEURON_CAPI const char *neuronExecutableTarget(const NeuronExecutable *e);

/** Runs it on the simulated device (every rank, in this process): input i
 *  from `inputs[i]`, `inputBytes[i]` bytes long, output i into
 *  `outputs[i]`, `outputBytes[i]` bytes long; each size must be what
 *  neuronExecutableInput/Output say. The outputs are written only when the
 *  run succeeds. */
NEURON_CAPI NeuronStatus neuronExecutableRun(NeuronExecutable *e,
                                             const void *const *inputs,
                                             const size_t *inputBytes,
                                             void *const *outputs,
                                             const size_t *outputBytes);

/** The bucket sizes of an executable compiled with shape buckets
 *  (neuron-compile --buckets), increasing, through `*sizes` (valid while
 *  `e` lives; `sizes` may be NULL); 0 without buckets. */
NEURON_CAPI size_t neuronExecutableBuckets(const NeuronExecutable *e,
                                           const int64_t **sizes);
/** With buckets: from now on the inputs and outputs have the variable
 *  length `length` (neuronExecutableInput/Output say their shapes, the
 *  length input the program masks with is filled by the runtime and not
 *  listed), and a run pads the inputs to the smallest bucket holding
 *  `length` and cuts the outputs back. It starts at the largest bucket's
 *  size. NEURON_OUT_OF_RANGE beyond the largest bucket (the message names
 *  the buckets); NEURON_INVALID_ARGUMENT without buckets or below 1. The
 *  NeuronTensorInfo strings and shapes given out before are invalid after
 *  it, and it must not run while another thread runs `e`. */
NEURON_CAPI NeuronStatus neuronExecutableSetLength(NeuronExecutable *e,
                                                   int64_t length);
/** The length set (0 without buckets). */
NEURON_CAPI int64_t neuronExecutableLength(const NeuronExecutable *e);

/** Times the program on its target's cost model and sets `*json` to the
 *  profile, the "neuron-profile/1" document of neuron-run --profile (per
 *  step and engine: predicted, observed and busy time), valid until the
 *  next call of this function on `e` or its destruction. */
NEURON_CAPI NeuronStatus neuronExecutableProfile(NeuronExecutable *e,
                                                 const char **json);

#ifdef __cplusplus
}
#endif

#endif /* NEURON_RUNTIME_CAPI_NEURONRUNTIME_H */
