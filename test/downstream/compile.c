/* neuron-downstream-c GRAPH.mlir OUT.nxe: compiles a graph for trn2 through
 * the installed compiler C API (NeuronMLIR::NeuronMLIRC). */
#include "lowering/CAPI/NeuronMLIR.h"

#include "mlir-c/IR.h"

#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: neuron-downstream-c GRAPH.mlir OUT.nxe\n");
    return 2;
  }
  MlirContext context = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  neuronMlirRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(context, registry);
  mlirDialectRegistryDestroy(registry);
  MlirModule module = mlirModuleCreateParseFromFile(
      context, mlirStringRefCreateFromCString(argv[1]));
  int status = 1;
  if (!mlirModuleIsNull(module)) {
    char options[4096];
    snprintf(options, sizeof options, "target=trn2 output=%s", argv[2]);
    status = mlirLogicalResultIsSuccess(neuronMlirCompile(
                 module, mlirStringRefCreateFromCString(options)))
                 ? 0
                 : 1;
    mlirModuleDestroy(module);
  }
  mlirContextDestroy(context);
  printf("C compile: %s\n", status ? "failed" : "ok");
  return status;
}
