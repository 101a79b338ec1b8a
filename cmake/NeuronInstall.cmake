# `cmake --install build --prefix P`: the tools, the libraries, the headers
# (with their generated .inc files and the TableGen sources) under
# include/neuron-mlir, the mlir-opt plugin, and the NeuronMLIR CMake package
# (lib/cmake/NeuronMLIR; cmake/NeuronMLIRConfig.cmake.in says what it
# gives). test/tools/install.test builds test/downstream against it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(NEURON_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/neuron-mlir)
set(NEURON_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/NeuronMLIR)
set(NEURON_INSTALLED_LIBRARIES
  NeuronDialect NisaDialect NeuronTransforms NeuronLowering NeuronPipelines
  NeuronHostCode NeuronNisaToExecutable NeuronRuntimeTarget NeuronRuntimeFormat
  NeuronRuntimeSim NeuronRuntimeMpi)

foreach(library ${NEURON_INSTALLED_LIBRARIES})
  target_include_directories(${library} INTERFACE
    $<INSTALL_INTERFACE:${NEURON_INSTALL_INCLUDEDIR}>)
endforeach()
install(TARGETS ${NEURON_INSTALLED_LIBRARIES} EXPORT NeuronMLIRTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The runtime's C API: one shared library, the runtime inside.
target_include_directories(NeuronRuntimeC INTERFACE
  $<INSTALL_INTERFACE:${NEURON_INSTALL_INCLUDEDIR}>)
install(TARGETS NeuronRuntimeC EXPORT NeuronMLIRTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The compiler's C API: two shared libraries (lowering/CAPI/CMakeLists.txt
# says why two).
target_include_directories(NeuronMLIRC INTERFACE
  $<INSTALL_INTERFACE:${NEURON_INSTALL_INCLUDEDIR}>)
install(TARGETS NeuronMLIRC NeuronMLIRUpstreamC EXPORT NeuronMLIRTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS neuron-opt neuron-compile neuron-translate neuron-run
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS NeuronPlugin LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

# Headers and TableGen sources from the source tree, generated headers and
# .inc files from the build tree, under the paths the sources include them
# by ("dialects/neuron/IR/NeuronOps.h").
foreach(dir dialects passes lowering runtime)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/
    DESTINATION ${NEURON_INSTALL_INCLUDEDIR}/${dir}
    FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
  install(DIRECTORY ${PROJECT_BINARY_DIR}/${dir}/
    DESTINATION ${NEURON_INSTALL_INCLUDEDIR}/${dir}
    FILES_MATCHING PATTERN "*.h" PATTERN "*.inc"
    PATTERN "CMakeFiles" EXCLUDE)
endforeach()

install(EXPORT NeuronMLIRTargets NAMESPACE NeuronMLIR::
  DESTINATION ${NEURON_INSTALL_CMAKEDIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/NeuronMLIRConfig.cmake.in
  ${PROJECT_BINARY_DIR}/NeuronMLIRConfig.cmake
  INSTALL_DESTINATION ${NEURON_INSTALL_CMAKEDIR}
  PATH_VARS NEURON_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR
            CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/NeuronMLIRConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/NeuronMLIRConfig.cmake
  ${PROJECT_BINARY_DIR}/NeuronMLIRConfigVersion.cmake
  DESTINATION ${NEURON_INSTALL_CMAKEDIR})
