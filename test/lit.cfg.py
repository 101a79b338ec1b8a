# lit configuration of neuron-mlir: FileCheck tests of the tools and passes,
# the corpus import test and the GoogleTest unit binaries.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "neuron-mlir"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.neuron_obj_root, "test")
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt", "Inputs",
                   "unit"]

llvm_config.with_system_environment(["HOME", "TMP", "TEMP", "NEURON_CORPUS_DIR"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.neuron_tools_dir, append_path=True)

# The corpus lives beside the checkout (../shared/corpus) unless
# NEURON_CORPUS_DIR says otherwise; tests that need it skip without it.
corpus = os.environ.get(
    "NEURON_CORPUS_DIR",
    os.path.join(config.neuron_src_root, "..", "shared", "corpus"))
corpus = os.path.abspath(corpus)
if os.path.isdir(corpus):
    config.available_features.add("corpus")
config.substitutions.append(("%corpus", corpus))
config.substitutions.append(("%neuron_lib", config.neuron_lib_dir))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%llvm_bin", config.llvm_tools_dir))
config.substitutions.append(("%neuron_bin", config.neuron_tools_dir))
config.substitutions.append(("%neuron_obj_root", config.neuron_obj_root))
config.substitutions.append(("%neuron_src_root", config.neuron_src_root))
config.substitutions.append(("%mlir_opt",
                             os.path.join(config.llvm_tools_dir, "mlir-opt")))
# The library the oracle's harness loads into mlir-runner (test/e2e).
config.substitutions.append(("%oracle_io", os.path.join(
    config.neuron_lib_dir, "libNeuronOracleIO.so")))

# An instrumented build (cmake/NeuronHardening.cmake): the uninstrumented
# hosts of its shared objects (mlir-opt loading the plugin, mlir-runner
# loading the oracle's IO library) run with the sanitizer runtime preloaded
# (%preload_sanitizer; oracle.py reads NEURON_SANITIZER_RUNTIME) and without
# leak checks, since their allocations are not the project's.
# The project's code inlines LLVM's allocators, which poison the memory they
# hand out under ASan, while Debian's uninstrumented libMLIR allocates from
# the same slabs without unpoisoning: allow_user_poisoning=0 keeps those
# annotations from reporting libMLIR's own writes (use-after-poison).
preload = ""
if config.neuron_sanitize:
    config.available_features.add("sanitized")
    config.environment["NEURON_SANITIZER_RUNTIME"] = \
        config.neuron_sanitizer_runtime
    config.environment["ASAN_OPTIONS"] = "allow_user_poisoning=0"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1"
    preload = (f"env LD_PRELOAD={config.neuron_sanitizer_runtime} "
               "ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=0")
config.substitutions.append(("%preload_sanitizer", preload))

# neuron-run joins MPI runs (runtime/mpi/MpiRun.h): %mpirun launches one on
# this machine. Open MPI refuses to start as root unless told (CI runs as
# root), and a test may start more processes than there are cores; cross-
# memory attach, which containers forbid, is not used.
if config.neuron_have_mpi == "ON" and config.mpiexec:
    config.available_features.add("mpi")
    config.environment["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    config.environment["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    config.substitutions.append(
        ("%mpirun", f"{config.mpiexec} --oversubscribe "
                    "--mca btl_vader_single_copy_mechanism none"))

# The neuron_mlir Python package (python/), for the pytest tests in
# test/python: %neuron_python is the python3 it is built for.
if config.neuron_have_python_package == "ON":
    config.available_features.add("python-package")
    config.substitutions.append(("%neuron_python", config.neuron_python))

llvm_config.add_tool_substitutions(
    [ToolSubst(tool, unresolved="fatal")
     for tool in ["neuron-opt", "neuron-translate", "neuron-run",
                 "neuron-compile"]],
    [config.neuron_tools_dir])
