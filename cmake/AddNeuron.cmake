# Thin wrappers over MLIR's CMake helpers so every neuron-mlir library is
# declared the same way.

# add_neuron_library(name SRCS... [DEPENDS ...] [LINK_LIBS ...])
# An MLIR-dependent library linked against the MLIR dylib.
function(add_neuron_library name)
  add_mlir_library(${name} ${ARGN} DISABLE_INSTALL)
endfunction()

# add_neuron_doc(td_file output_name gen_flag)
# Generates Markdown docs from TableGen into <build>/docs; part of `neuron-docs`.
function(add_neuron_doc td_file output_name gen_flag)
  set(LLVM_TARGET_DEFINITIONS ${td_file})
  mlir_tablegen(${output_name}.md ${gen_flag} ${ARGN})
  set(out ${PROJECT_BINARY_DIR}/docs/${output_name}.md)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E copy
            ${CMAKE_CURRENT_BINARY_DIR}/${output_name}.md ${out}
    DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/${output_name}.md)
  add_custom_target(${output_name}DocGen DEPENDS ${out})
  if(NOT TARGET neuron-docs)
    add_custom_target(neuron-docs ALL)
  endif()
  add_dependencies(neuron-docs ${output_name}DocGen)
endfunction()
