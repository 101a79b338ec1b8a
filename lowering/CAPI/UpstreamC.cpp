//===- UpstreamC.cpp - upstream's C API as a shared library ---------------===//
//
// Nothing is compiled here: NeuronMLIRUpstreamC is MLIR's C API for IR and
// passes (libMLIRCAPIIR.a from Debian's MLIR), linked whole into a shared
// library of its own. Those objects were built by MLIR's compiler with
// inline statics hidden; kept apart from neuron's objects they cannot make
// neuron's copies of the same statics hidden too, which would split
// MLIR's type identifiers between libMLIR.so and neuron's code (lowering/
// CAPI/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//
