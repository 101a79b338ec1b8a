# Instrumented builds (issue #17), for a build folder of their own:
#
#   cmake -S . -B build-hardened -G Ninja \
#     -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
#     -DNEURON_SANITIZE=address,undefined -DNEURON_FUZZERS=ON
#
# NEURON_SANITIZE builds every neuron-mlir target that comes after the
# build-time generators (tblgen/) with the listed sanitizers; undefined
# behaviour stops the program. NEURON_FUZZERS (Clang) adds coverage
# instrumentation for libFuzzer and the fuzz targets of test/fuzz. LLVM and
# MLIR themselves come from Debian's packages, uninstrumented.

set(NEURON_SANITIZE "" CACHE STRING
  "Sanitizers for the neuron-mlir targets, as -fsanitize takes them (address,undefined)")
option(NEURON_FUZZERS "Build the libFuzzer targets of test/fuzz (Clang only)" OFF)

if((NEURON_FUZZERS OR NEURON_SANITIZE) AND
   NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "NEURON_FUZZERS and NEURON_SANITIZE need Clang "
    "(libFuzzer, the sanitizer runtimes): configure with "
    "-DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_C_COMPILER=clang-22")
endif()

if(NEURON_SANITIZE)
  add_compile_options(-fsanitize=${NEURON_SANITIZE} -fno-omit-frame-pointer
    -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${NEURON_SANITIZE})
  # Executables link the sanitizer runtime statically. Shared objects loaded
  # into uninstrumented hosts (the mlir-opt plugin, the oracle's IO library
  # in mlir-runner) link the shared runtime, which the tests preload there
  # (test/lit.cfg.py). ASan's runtime holds UBSan's; UBSan alone has its own.
  if(NEURON_SANITIZE MATCHES "address")
    set(runtime libclang_rt.asan-x86_64.so)
  else()
    set(runtime libclang_rt.ubsan_standalone-x86_64.so)
  endif()
  execute_process(
    COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${runtime}
    OUTPUT_VARIABLE NEURON_SANITIZER_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
  get_filename_component(runtime_dir ${NEURON_SANITIZER_RUNTIME} DIRECTORY)
  string(APPEND CMAKE_SHARED_LINKER_FLAGS
    " -shared-libsan -Wl,-rpath,${runtime_dir}")
  string(APPEND CMAKE_MODULE_LINKER_FLAGS
    " -shared-libsan -Wl,-rpath,${runtime_dir}")
endif()
if(NEURON_FUZZERS)
  add_compile_options(-fsanitize=fuzzer-no-link)
  # The coverage callbacks of every instrumented binary.
  add_link_options(-fsanitize=fuzzer-no-link)
endif()
