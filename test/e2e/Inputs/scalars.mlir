// Scalars a linalg body reads from one-element tensors (scalars.test): a
// temperature passed as a tensor<f32> argument (JAX and torch-mlir pass a
// scalar operand so) dividing logits, and a total computed in the graph,
// read back with tensor.extract from a [1, 1] tensor, normalising a
// matrix; and loop indices compared with constants (the first column
// masked, columns past 100 zeroed).
#id = affine_map<(i, j) -> (i, j)>
func.func @temperature(%x: tensor<9x130xf32>, %t: tensor<f32>) -> tensor<9x130xf32> {
  %s = tensor.extract %t[] : tensor<f32>
  %e = tensor.empty() : tensor<9x130xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<9x130xf32>) outs(%e : tensor<9x130xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.divf %a, %s : f32
    linalg.yield %y : f32
  } -> tensor<9x130xf32>
  return %r : tensor<9x130xf32>
}

func.func @normalised(%x: tensor<5x37xf32>) -> tensor<5x37xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %e1 = tensor.empty() : tensor<1x1xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x1xf32>) -> tensor<1x1xf32>
  %total = linalg.generic {indexing_maps = [#id, affine_map<(i, j) -> (0, 0)>], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<5x37xf32>) outs(%z : tensor<1x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = math.absf %a : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x1xf32>
  %t = tensor.extract %total[%c0, %c0] : tensor<1x1xf32>
  %e = tensor.empty() : tensor<5x37xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<5x37xf32>) outs(%e : tensor<5x37xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.divf %a, %t : f32
    linalg.yield %y : f32
  } -> tensor<5x37xf32>
  return %r : tensor<5x37xf32>
}

#id3 = affine_map<(b, i, j) -> (b, i, j)>
func.func @column_masks(%x: tensor<2x7x131xf32>) -> tensor<2x7x131xf32> {
  %big = arith.constant -1.0e9 : f32
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c100 = arith.constant 100 : i64
  %e = tensor.empty() : tensor<2x7x131xf32>
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x7x131xf32>) outs(%e : tensor<2x7x131xf32>) {
  ^bb0(%a: f32, %o: f32):
    %j = linalg.index 2 : index
    %first = arith.cmpi eq, %j, %c0 : index
    %ji = arith.index_cast %j : index to i64
    %late = arith.cmpi sgt, %ji, %c100 : i64
    %v = arith.select %first, %big, %a : f32
    %w = arith.select %late, %zero, %v : f32
    linalg.yield %w : f32
  } -> tensor<2x7x131xf32>
  return %r : tensor<2x7x131xf32>
}
