/*===- NeuronMLIR.h - The compiler's C API -------------------------*- C -*-===*\
|*                                                                            *|
|* MLIR's C API (mlir-c/IR.h, Pass.h) with neuron's dialects and passes, for *|
|* C programs and foreign-function interfaces: register the dialects a       *|
|* frontend graph uses, register the passes (so mlirParsePassPipeline finds  *|
|* `neuron-compile{...}` and every other neuron pass), and run the whole     *|
|* compile on a module. Diagnostics go to the context's handlers            *|
|* (mlirContextAttachDiagnosticHandler); errors are results, not C++        *|
|* exceptions (the project builds without them). Link libNeuronMLIRC.so and *|
|* libNeuronMLIRUpstreamC.so, which has upstream's mlir* IR and pass        *|
|* functions (NeuronMLIR::NeuronMLIRC brings both).                         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef NEURON_LOWERING_CAPI_NEURONMLIR_H
#define NEURON_LOWERING_CAPI_NEURONMLIR_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mlirGetDialectHandle__neuron__() and mlirGetDialectHandle__nisa__(). */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Neuron, neuron);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Nisa, nisa);

/** Adds to `registry` every upstream dialect and extension (those that
 *  frontends emit: func, linalg, tosa, tensor, arith, math, shard, ...)
 *  and neuron's, as neuron-opt has them. */
MLIR_CAPI_EXPORTED void neuronMlirRegisterAllDialects(
    MlirDialectRegistry registry);

/** Registers every neuron pass and pipeline with the global registry
 *  (idempotent), for mlirParsePassPipeline and
 *  mlirOpPassManagerAddPipeline. */
MLIR_CAPI_EXPORTED void neuronMlirRegisterPasses(void);

/** Runs the whole compile on `module`, which then holds the scheduled
 *  kernels: `options` as the neuron-compile pass takes them, e.g.
 *  "target=trn2 fallback=host output=graph.nxe". A failure (bad options
 *  among them) is reported to the context's diagnostic handlers. */
MLIR_CAPI_EXPORTED MlirLogicalResult neuronMlirCompile(MlirModule module,
                                                       MlirStringRef options);

#ifdef __cplusplus
}
#endif

#endif /* NEURON_LOWERING_CAPI_NEURONMLIR_H */
