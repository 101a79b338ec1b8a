// Graphs whose operands are transposed on the way on chip (the tensor
// engine or a DMA transpose, as the cost model chooses); see
// transposes.test.

// A batched x @ w^T: the transpose is read only by the batch_matmul, so
// it is the matmul's rhs view, each tile of w's rows transposed.
func.func @linear_batched(%a: tensor<3x70x300xf32>, %w: tensor<3x530x300xf32>) -> tensor<3x70x530xf32> {
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<3x300x530xf32>
  %wt = linalg.transpose ins(%w : tensor<3x530x300xf32>) outs(%e1 : tensor<3x300x530xf32>) permutation = [0, 2, 1]
  %e = tensor.empty() : tensor<3x70x530xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3x70x530xf32>) -> tensor<3x70x530xf32>
  %r = linalg.batch_matmul ins(%a, %wt : tensor<3x70x300xf32>, tensor<3x300x530xf32>) outs(%f : tensor<3x70x530xf32>) -> tensor<3x70x530xf32>
  return %r : tensor<3x70x530xf32>
}

// A transpose returned and read by an add: copied through SBUF, tile by
// tile, partial tiles both ways.
func.func @returned(%a: tensor<2x300x200xf32>, %b: tensor<2x200x300xf32>) -> (tensor<2x200x300xf32>, tensor<2x200x300xf32>) {
  %e = tensor.empty() : tensor<2x200x300xf32>
  %t = linalg.transpose ins(%a : tensor<2x300x200xf32>) outs(%e : tensor<2x200x300xf32>) permutation = [0, 2, 1]
  %e2 = tensor.empty() : tensor<2x200x300xf32>
  %s = linalg.add ins(%t, %b : tensor<2x200x300xf32>, tensor<2x200x300xf32>) outs(%e2 : tensor<2x200x300xf32>) -> tensor<2x200x300xf32>
  return %t, %s : tensor<2x200x300xf32>, tensor<2x200x300xf32>
}

// A bf16 matmul whose lhs^T tiles load by DMA transpose on trn2 and
// through the tensor engine on trn1.
func.func @bf16(%a: tensor<333x200xbf16>, %b: tensor<200x700xbf16>) -> tensor<333x700xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<333x700xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<333x700xf32>) -> tensor<333x700xf32>
  %r = linalg.matmul ins(%a, %b : tensor<333x200xbf16>, tensor<200x700xbf16>) outs(%f : tensor<333x700xf32>) -> tensor<333x700xf32>
  return %r : tensor<333x700xf32>
}
