/*===- compile_module.c - the compiler's C API from C ---------------------===*\
|*                                                                            *|
|*   neuron-capi-compile GRAPH.mlir OUT_DIR                                   *|
|*                                                                            *|
|* Compiles GRAPH twice through lowering/CAPI/NeuronMLIR.h: once with        *|
|* neuronMlirCompile, once with upstream's pass-manager API and the          *|
|* `neuron-compile{...}` pipeline text (OUT_DIR/a.nxe and b.nxe), then       *|
|* feeds the API bad input and prints what each call says, diagnostics one  *|
|* per line.                                                                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "lowering/CAPI/NeuronMLIR.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <string.h>

static void printPart(MlirStringRef part, void *unused) {
  (void)unused;
  fwrite(part.data, 1, part.length, stdout);
}

/* Prints each diagnostic on one line: "diagnostic: LOCATION: MESSAGE". */
static MlirLogicalResult printDiagnostic(MlirDiagnostic d, void *unused) {
  (void)unused;
  printf("diagnostic: ");
  mlirLocationPrint(mlirDiagnosticGetLocation(d), printPart, NULL);
  printf(": ");
  mlirDiagnosticPrint(d, printPart, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

static MlirModule parse(MlirContext context, const char *path) {
  return mlirModuleCreateParseFromFile(context,
                                       mlirStringRefCreateFromCString(path));
}

static const char *result(MlirLogicalResult r) {
  return mlirLogicalResultIsSuccess(r) ? "ok" : "failed";
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: neuron-capi-compile GRAPH.mlir OUT_DIR\n");
    return 2;
  }
  const char *graph = argv[1];
  MlirContext context = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  neuronMlirRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(context, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(context);
  mlirContextAttachDiagnosticHandler(context, printDiagnostic, NULL, NULL);
  neuronMlirRegisterPasses();
  printf("dialect: %s\n",
         mlirDialectIsNull(mlirContextGetOrLoadDialect(
             context, mlirStringRefCreateFromCString("nisa")))
             ? "missing"
             : "nisa");

  char options[4096];
  /* neuronMlirCompile. */
  MlirModule module = parse(context, graph);
  snprintf(options, sizeof options, "target=trn2 output=%s/a.nxe", argv[2]);
  printf("compile: %s\n",
         result(neuronMlirCompile(module, mlirStringRefCreateFromCString(options))));
  mlirModuleDestroy(module);

  /* Upstream's pass manager on the registered pipeline. */
  module = parse(context, graph);
  snprintf(options, sizeof options,
           "builtin.module(neuron-compile{target=trn2 output=%s/b.nxe "
           "report=%s/b.json})",
           argv[2], argv[2]);
  MlirPassManager pm = mlirPassManagerCreate(context);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(options), printPart, NULL);
  printf("pipeline: %s\n", result(parsed));
  printf("pass manager: %s\n",
         result(mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))));
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);

  /* Bad input: IR that does not parse, unknown options, a graph the
   * compile refuses, no module. */
  module = mlirModuleCreateParse(
      context,
      mlirStringRefCreateFromCString("func.func @f(%a: tensor<4xf32>) -> {"));
  printf("parse: %s\n", mlirModuleIsNull(module) ? "null" : "module");
  module = parse(context, graph);
  printf("options: %s\n",
         result(neuronMlirCompile(
             module, mlirStringRefCreateFromCString("frobnicate=1"))));
  mlirModuleDestroy(module);
  module = parse(context, graph);
  printf("entry: %s\n",
         result(neuronMlirCompile(
             module, mlirStringRefCreateFromCString("entry=nope output=-"))));
  mlirModuleDestroy(module);
  printf("null: %s\n",
         result(neuronMlirCompile(
             mlirModuleCreateEmpty(mlirLocationUnknownGet(context)),
             mlirStringRefCreateFromCString(""))));
  MlirModule none = {NULL};
  printf("no module: %s\n",
         result(neuronMlirCompile(none, mlirStringRefCreateFromCString(""))));

  module = parse(context, "/nonexistent/graph.mlir");
  printf("missing file: %s\n", mlirModuleIsNull(module) ? "null" : "module");

  mlirContextDestroy(context);
  return 0;
}
