# GoogleTest binaries of neuron-mlir, run by lit's GoogleTest format.

import os

import lit.formats

config.name = "neuron-mlir-unit"
config.suffixes = []
config.test_source_root = os.path.join(config.neuron_obj_root, "test", "unit")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
