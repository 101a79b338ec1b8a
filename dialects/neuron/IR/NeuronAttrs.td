//===- NeuronAttrs.td - neuron attributes ------------------*- tablegen -*-===//

#ifndef NEURON_ATTRS_TD
#define NEURON_ATTRS_TD

include "dialects/neuron/IR/NeuronEnums.td"

def Neuron_TargetAttr : AttrDef<Neuron_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "The chip, instance and logical-core mode a module is compiled for";
  let description = [{
    Names the target the way `--target=` does: a chip generation, optionally
    the instance type it sits in, and the logical-NeuronCore mode (`lnc`, the
    number of physical cores grouped into one logical core). The figures
    behind the names live in the target descriptions (runtime/target/data),
    never in this attribute.

    Every pass that needs the target reads it from the module's
    `neuron.target` attribute (neuron-compile writes it from `--target`); a
    pass's `target` option serves modules without one, and an option naming
    another target than the module's is an error.

    ```mlir
    module attributes {neuron.target = #neuron.target<chip = "trainium2",
        instance = "trn2.48xlarge", lnc = 2>} {}
    ```
  }];
  let extraClassDeclaration = [{
    /// The target as `--target=` spells it: "trn2.48xlarge,lnc=2", or
    /// "trainium2,lnc=1" without an instance.
    std::string getSpec() const;
  }];
  let parameters = (ins
    "StringAttr":$chip,
    OptionalParameter<"StringAttr">:$instance,
    DefaultValuedParameter<"int64_t", "1">:$lnc);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // NEURON_ATTRS_TD
