//===- IsaTest.cpp - the dialect and the runtime share one instruction set ===//
//
// The runtime's opcodes, engines and tile operands are generated from the
// nisa dialect's ODS (tblgen/NisaIsaGen.cpp). These tests hold the two
// sides together where a hand-written piece remains: every engine op the
// dialect registers is an opcode the runtime reads, with the same engine,
// and every tile operand the dialect declares is a field the runtime fills.
//
//===----------------------------------------------------------------------===//

#include "dialects/neuron/IR/NeuronDialect.h"
#include "dialects/nisa/IR/NisaDialect.h"
#include "dialects/nisa/IR/NisaOps.h"
#include "runtime/sim/Program.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace {

using namespace neuron::rt;

std::set<std::string> runtimeOpNames() {
  std::set<std::string> names;
  for (Opcode op : kOpcodes)
    names.insert(std::string(opName(op)));
  return names;
}

TEST(IsaTest, EveryEngineOpOfTheDialectIsARuntimeOpcode) {
  mlir::MLIRContext context;
  context.loadDialect<mlir::nisa::NisaDialect>();
  std::set<std::string> dialect;
  for (mlir::RegisteredOperationName name : context.getRegisteredOperations())
    if (name.getDialectNamespace() == "nisa" &&
        name.hasInterface<mlir::nisa::EngineOpInterface>())
      dialect.insert(name.stripDialect().str());
  EXPECT_FALSE(dialect.empty());
  EXPECT_EQ(dialect, runtimeOpNames());
}

TEST(IsaTest, OpcodesHaveTheirDialectEngines) {
  EXPECT_EQ(engineOf(Opcode::Matmul), Engine::Tensor);
  EXPECT_EQ(engineOf(Opcode::Transpose), Engine::Tensor);
  EXPECT_EQ(engineOf(Opcode::Activation), Engine::Scalar);
  EXPECT_EQ(engineOf(Opcode::TensorTensor), Engine::Vector);
  EXPECT_EQ(engineOf(Opcode::Iota), Engine::GpSimd);
  EXPECT_EQ(engineOf(Opcode::DmaCopy), Engine::Dma);
}

int64_t countDst(const std::vector<TileOperand> &operands) {
  int64_t count = 0;
  for (const TileOperand &operand : operands)
    count += operand.name == "dst";
  return count;
}

TEST(IsaTest, EveryTileOperandIsAFieldTheRuntimeFills) {
  for (Opcode op : kOpcodes) {
    Instruction inst;
    inst.op = op;
    inst.bias = TileRef();
    inst.scales = TileRef();
    inst.scalars = TileRef();
    inst.offset = TileRef();
    const std::vector<TileOperand> &operands = tileOperandsOf(op);
    ASSERT_FALSE(operands.empty()) << opName(op);
    EXPECT_EQ(countDst(operands), 1) << opName(op);
    for (const TileOperand &operand : operands)
      EXPECT_NE(operandRef(inst, operand.name), nullptr)
          << opName(op) << " " << operand.name;
  }
}

TEST(IsaTest, TileOperandsFollowTheDialect) {
  auto names = [](Opcode op) {
    std::string text;
    for (const TileOperand &operand : tileOperandsOf(op))
      text += std::string(operand.name) + (operand.optional ? "? " : " ");
    return text;
  };
  EXPECT_EQ(names(Opcode::Matmul), "stationary moving dst ");
  EXPECT_EQ(names(Opcode::Activation), "src dst bias? scales? ");
  EXPECT_EQ(names(Opcode::Select), "predicate on_true on_false dst ");
  EXPECT_EQ(names(Opcode::DmaCopy), "src offset? dst ");
  Instruction activation;
  activation.op = Opcode::Activation;
  EXPECT_EQ(operandRef(activation, "bias"), nullptr);
  EXPECT_EQ(operandRef(activation, "scales"), nullptr);
}

} // namespace
