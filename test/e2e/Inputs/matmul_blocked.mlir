// Two matmuls whose tiling holds a block of one operand in SBUF while the
// other streams past it (test/e2e/matmul_blocked.test), on sizes that are
// not multiples of the tiles: 1000x200 @ 200x600 keeps rhs resident (two N
// tiles, the second 88 wide) against 8 M tiles (the last 104 tall);
// 300x200 @ 200x5000 keeps lhs resident (three M tiles, the last 44 tall)
// against 10 N tiles (the last 392 wide).

func.func @blocked(%a: tensor<1000x200xf32>, %b: tensor<200x600xf32>,
                   %c: tensor<300x200xf32>, %d: tensor<200x5000xf32>)
    -> (tensor<1000x600xf32>, tensor<300x5000xf32>) {
  %z = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1000x600xf32>
  %f0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<1000x600xf32>) -> tensor<1000x600xf32>
  %r0 = linalg.matmul ins(%a, %b : tensor<1000x200xf32>, tensor<200x600xf32>)
                      outs(%f0 : tensor<1000x600xf32>) -> tensor<1000x600xf32>
  %e1 = tensor.empty() : tensor<300x5000xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<300x5000xf32>) -> tensor<300x5000xf32>
  %r1 = linalg.matmul ins(%c, %d : tensor<300x200xf32>, tensor<200x5000xf32>)
                      outs(%f1 : tensor<300x5000xf32>) -> tensor<300x5000xf32>
  return %r0, %r1 : tensor<1000x600xf32>, tensor<300x5000xf32>
}

// A batched matmul with partial last tiles both ways (lhs resident, its
// three M tiles, the last 44 tall, in one block; N 1024 + 76 columns).
func.func @blocked_batch(%a: tensor<2x300x200xf32>, %b: tensor<2x200x1100xf32>)
    -> tensor<2x300x1100xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x300x1100xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x300x1100xf32>) -> tensor<2x300x1100xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x300x200xf32>, tensor<2x200x1100xf32>)
                           outs(%f : tensor<2x300x1100xf32>) -> tensor<2x300x1100xf32>
  return %r : tensor<2x300x1100xf32>
}

// Full blocks and a partial last one over batches (lhs resident in blocks
// of 3 M tiles: two full, then 256 + 104 rows), each in a loop over
// batches of its own (matmul-batched.mlir).
func.func @blocked_batch_apart(%a: tensor<3x1000x200xf32>, %b: tensor<3x200x700xf32>)
    -> tensor<3x1000x700xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x1000x700xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3x1000x700xf32>) -> tensor<3x1000x700xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x1000x200xf32>, tensor<3x200x700xf32>)
                           outs(%f : tensor<3x1000x700xf32>) -> tensor<3x1000x700xf32>
  return %r : tensor<3x1000x700xf32>
}

// One block for all of M (lhs resident: three M tiles, the last 44 tall),
// filled by a loop over K (eight full tiles, then 76 rows) before the nest
// that streams rhs past it: each matmul waits for the slice of the block
// it reads only.
func.func @block_by_slices(%a: tensor<300x1100xf32>, %b: tensor<1100x700xf32>)
    -> tensor<300x700xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<300x700xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<300x700xf32>) -> tensor<300x700xf32>
  %r = linalg.matmul ins(%a, %b : tensor<300x1100xf32>, tensor<1100x700xf32>)
                     outs(%f : tensor<300x700xf32>) -> tensor<300x700xf32>
  return %r : tensor<300x700xf32>
}

// Held lhs blocks the tensor engine transposes (trn1): the first block of
// four M tiles fills a PSUM chunk of f32 transposes and its K (1030, three
// panels of four K tiles, the last 6 rows) goes panel by panel, row tile
// by row tile; the last block (three M tiles, the last 104 rows) goes K
// tile by K tile.
func.func @block_by_rows(%a: tensor<1000x1030xf32>, %b: tensor<1030x1000xf32>)
    -> tensor<1000x1000xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1000x1000xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1000x1030xf32>, tensor<1030x1000xf32>)
                     outs(%f : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  return %r : tensor<1000x1000xf32>
}
