//===- NisaInterfaces.td - nisa op interfaces --------------*- tablegen -*-===//

#ifndef NISA_INTERFACES_TD
#define NISA_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Nisa_EngineOpInterface : OpInterface<"EngineOpInterface"> {
  let cppNamespace = "::mlir::nisa";
  let description = [{
    An instruction of one engine of a NeuronCore (or a transfer on one DMA
    queue): which engine runs it, which tiles it reads and which it writes.
    The scheduler and the simulator place and time instructions by these.
  }];
  let methods = [
    InterfaceMethod<"The engine that runs this instruction.",
      "::mlir::neuron::EngineKind", "getEngine">,
    InterfaceMethod<"The tiles this instruction reads.",
      "::llvm::SmallVector<::mlir::Value>", "getReadTiles", (ins), [{}], [{
        ::llvm::SmallVector<::mlir::Value> reads;
        for (::mlir::Value v : $_op->getOperands().drop_back())
          reads.push_back(v);
        return reads;
      }]>,
    InterfaceMethod<"The tile this instruction writes.",
      "::mlir::Value", "getWrittenTile", (ins), [{}], [{
        return $_op->getOperands().back();
      }]>
  ];
}

#endif // NISA_INTERFACES_TD
