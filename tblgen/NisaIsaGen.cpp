//===- NisaIsaGen.cpp - the nisa instruction set for the runtime ----------===//
//
// neuron-isa-tblgen reads the nisa dialect's ODS (dialects/nisa/IR/NisaOps.td)
// and writes the instruction set as the runtime reads executables: one
// X-macro entry per engine instruction (its manifest name, engine and tile
// operands) and per case of the enums instructions carry (activation
// functions, ALU operations, memory spaces). The dialect and the runtime so
// share one definition; the runtime stays free of MLIR (the output is plain
// C++ with no includes).
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Main.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"

using namespace llvm;

namespace {

/// The runtime's engine enumerator for an ODS engine name.
StringRef engineSymbol(const Record &op, StringRef engine) {
  StringRef symbol = StringSwitch<StringRef>(engine.trim())
                         .Case("tensor", "Tensor")
                         .Case("vector", "Vector")
                         .Case("scalar", "Scalar")
                         .Case("gpsimd", "GpSimd")
                         .Case("dma", "Dma")
                         .Default("");
  if (symbol.empty())
    PrintFatalError(&op, "unknown engine '" + engine + "'");
  return symbol;
}

/// "Nisa_DmaCopyOp" -> "DmaCopy".
StringRef opSymbol(const Record &op) {
  StringRef name = op.getName();
  if (!name.consume_front("Nisa_") || !name.consume_back("Op"))
    PrintFatalError(&op, "expected an engine op named Nisa_<Name>Op");
  return name;
}

/// Whether `arg` is a tile operand (Nisa_Tile, or Optional of it), and
/// whether it is optional.
std::optional<bool> tileOperand(const Init *arg) {
  const auto *def = dyn_cast<DefInit>(arg);
  if (!def)
    return std::nullopt;
  const Record *record = def->getDef();
  if (record->getName() == "Nisa_Tile")
    return false;
  if (record->isSubClassOf("Optional"))
    if (const auto *base =
            dyn_cast<DefInit>(record->getValueInit("baseType")))
      if (base->getDef()->getName() == "Nisa_Tile")
        return true;
  return std::nullopt;
}

void emitInstructions(raw_ostream &os, const RecordKeeper &records) {
  os << "#ifdef NISA_INSTRUCTION\n"
        "// NISA_INSTRUCTION(Symbol, \"manifest name\", Engine, \"tile "
        "operands\"): the\n// operands in ODS order, the written one named "
        "dst, '?' after an optional one.\n";
  for (const Record *op : records.getAllDerivedDefinitions("Nisa_EngineOp")) {
    std::string operands;
    const DagInit *args = op->getValueAsDag("arguments");
    bool writes = false;
    for (unsigned i = 0; i < args->getNumArgs(); ++i) {
      std::optional<bool> optional = tileOperand(args->getArg(i));
      if (!optional)
        continue;
      StringRef name = args->getArgNameStr(i);
      writes |= name == "dst";
      if (!operands.empty())
        operands += ' ';
      operands += name.str() + (*optional ? "?" : "");
    }
    if (!writes)
      PrintFatalError(op, "an engine op writes one tile operand named dst");
    os << "NISA_INSTRUCTION(" << opSymbol(*op) << ", \""
       << op->getValueAsString("opName") << "\", "
       << engineSymbol(*op, op->getValueAsString("engineKind")) << ", \""
       << operands << "\")\n";
  }
  os << "#undef NISA_INSTRUCTION\n#endif\n\n";
}

/// NISA_<MACRO>(Symbol, "keyword") per case of the enum `name`.
void emitEnum(raw_ostream &os, const RecordKeeper &records, StringRef name,
              StringRef macro) {
  const Record *info = records.getDef(name);
  if (!info)
    PrintFatalError("no enum " + name + " in the input");
  os << "#ifdef NISA_" << macro << "\n";
  for (const Record *c : info->getValueAsListOfDefs("enumerants")) {
    StringRef keyword = c->getValueAsString("str");
    os << "NISA_" << macro << "("
       << convertToCamelFromSnakeCase(c->getValueAsString("symbol"),
                                      /*capitalizeFirst=*/true)
       << ", \"" << keyword << "\")\n";
  }
  os << "#undef NISA_" << macro << "\n#endif\n\n";
}

bool emitIsa(raw_ostream &os, const RecordKeeper &records) {
  emitSourceFileHeader("The nisa instruction set as executables spell it",
                       os, records);
  emitInstructions(os, records);
  emitEnum(os, records, "Nisa_ActivationFunction", "ACTIVATION_FUNCTION");
  emitEnum(os, records, "Nisa_AluOp", "ALU_OP");
  emitEnum(os, records, "Nisa_MemorySpace", "MEMORY_SPACE");
  return false;
}

} // namespace

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv,
                              "the nisa instruction set for the runtime\n");
  return TableGenMain(argv[0], &emitIsa);
}
