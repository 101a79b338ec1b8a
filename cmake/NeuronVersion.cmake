# Produces NeuronVersion.h in the build folder with the project version, the
# git revision of the source tree and the MLIR version, regenerated on every
# build so `--version` never reports a stale revision.
set(NEURON_VERSION_HEADER ${PROJECT_BINARY_DIR}/NeuronVersion.h)
add_custom_target(neuron-version
  COMMAND ${CMAKE_COMMAND}
    -DSRC=${PROJECT_SOURCE_DIR} -DOUT=${NEURON_VERSION_HEADER}
    -DPROJECT_VERSION=${PROJECT_VERSION}
    -DMLIR_VERSION=${LLVM_PACKAGE_VERSION}
    -P ${PROJECT_SOURCE_DIR}/cmake/WriteVersion.cmake
  BYPRODUCTS ${NEURON_VERSION_HEADER}
  COMMENT "Recording the neuron-mlir version")
