// RUN: neuron-opt %s -split-input-file -verify-diagnostics --convert-neuron-to-nisa="target=trn2 summary=1" -o /dev/null

// Each matmul's plan with summary=1: the side and block held in SBUF, the
// bytes read from HBM and their time at the logical core's HBM bandwidth,
// and the runner-up.

// Tests lhs resident: 6 N tiles stream past a block of the 4 M tiles, so
// rhs is read once; holding rhs instead needs 2 blocks of its 6 N tiles, so
// lhs is read twice.
func.func @lhs(%a: tensor<512x256xbf16>, %b: tensor<256x3072xbf16>) -> tensor<512x3072xf32> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 512x256x3072: lhs resident in blocks of 4 M tiles, reading 1.8 MiB from HBM (2.5 us at the core's HBM bandwidth); runner-up: rhs resident in blocks of 3 N tiles, 2.0 MiB}}
  %0 = neuron.matmul %a, %b : (tensor<512x256xbf16>, tensor<256x3072xbf16>) -> tensor<512x3072xf32>
  return %0 : tensor<512x3072xf32>
}

// -----

// Tests one output tile: nothing to reuse, both operands stream.
func.func @single(%a: tensor<64x100xf32>, %b: tensor<100x200xf32>) -> tensor<64x200xf32> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 64x100x200: both operands streamed, reading 0.1 MiB from HBM}}
  %0 = neuron.matmul %a, %b : (tensor<64x100xf32>, tensor<100x200xf32>) -> tensor<64x200xf32>
  return %0 : tensor<64x200xf32>
}

// -----

// Tests a batched matmul with partial last tiles both ways: in the loop
// over batches the accumulators of full and partial blocks and tiles are
// live together, so a block holds at most 2 tiles (8 PSUM banks).
func.func @batched(%a: tensor<2x1000x256xf32>, %b: tensor<2x256x2600xf32>) -> tensor<2x1000x2600xf32> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 1000x256x2600: rhs resident in blocks of 2 N tiles, reading 10.9 MiB from HBM (15.8 us at the core's HBM bandwidth); runner-up: rhs resident in blocks of 1 N tiles, 16.8 MiB}}
  %0 = neuron.batch_matmul %a, %b : (tensor<2x1000x256xf32>, tensor<2x256x2600xf32>) -> tensor<2x1000x2600xf32>
  return %0 : tensor<2x1000x2600xf32>
}
