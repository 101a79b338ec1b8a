//===- NeuronTypes.td - neuron types -----------------------*- tablegen -*-===//

#ifndef NEURON_TYPES_TD
#define NEURON_TYPES_TD

include "dialects/neuron/IR/NeuronBase.td"

def Neuron_PendingType : TypeDef<Neuron_Dialect, "Pending"> {
  let mnemonic = "pending";
  let summary = "A collective in flight, and the tensor it will produce";
  let description = [{
    The handle `neuron.collective_start` returns: the collective runs on the
    collective engine and the links while other work proceeds, and
    `neuron.collective_done` waits for it and yields the tensor.

    ```mlir
    %h = neuron.collective_start all_reduce %x grid [4] axes [0] reduction <sum>
        : tensor<128x512xf32> -> !neuron.pending<tensor<128x512xf32>>
    ```
  }];
  let parameters = (ins "::mlir::RankedTensorType":$value);
  let assemblyFormat = "`<` $value `>`";
}

#endif // NEURON_TYPES_TD
