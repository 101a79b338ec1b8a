//===- neuron-translate.cpp - neuron-mlir translations --------------------===//
//
// mlir-translate with neuron's translations: `--nisa-to-executable` writes an
// allocated nisa kernel as an executable (.nxe).
//
//===----------------------------------------------------------------------===//

#include "lowering/NisaToExecutable/NisaToExecutable.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::neuron::registerNisaToExecutableTranslation();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "neuron-mlir translation tool"));
}
