// RUN: neuron-opt %s -split-input-file -verify-diagnostics --convert-neuron-to-nisa="target=trn2 summary=1" -o /dev/null

// Each matmul's plan with summary=1: the side and block held in SBUF, the
// bytes read from HBM and their time at the logical core's HBM bandwidth,
// the plan's estimated time (the longest of its HBM traffic, those reads
// and the result's writes; the same transfers on the DMA engines, each
// contiguous run and each piece of a transfer paying its cost; and its
// tensor-engine work on one physical core), the operands the tensor
// engine transposes, and the runner-up. Plans are ranked by estimated
// time, then bytes; where transfers bound the shortest, those estimated
// within 10% of it by their transfers rank by bytes, then block, first
// (matmul-plans-dma.mlir).

// Tests lhs resident: 6 N tiles stream past a block of the 4 M tiles, so
// rhs is read once; holding all 6 N tiles of rhs reads as many bytes, and
// the larger block comes second. bf16 lhs tiles load through trn2's DMA
// transpose, so no operand goes through the tensor engine. Writing the
// 6 MiB of f32 results on the DMA engines takes longer than the matmuls
// (10.8 us): transfers bound both estimates, rhs resident's 5% shorter
// (rows of 6 KiB rather than the streamed tiles' 1 KiB), which is within
// what the estimate tells apart.
func.func @lhs(%a: tensor<512x256xbf16>, %b: tensor<256x3072xbf16>) -> tensor<512x3072xf32> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 512x256x3072: lhs resident in blocks of 4 M tiles, reading 1.8 MiB from HBM (2.5 us at the core's HBM bandwidth), estimated 15.4 us; fewer bytes or a smaller block than plans estimated up to 10% shorter by their transfers; runner-up: rhs resident in blocks of 6 N tiles, 1.8 MiB, 14.6 us}}
  %0 = neuron.matmul %a, %b : (tensor<512x256xbf16>, tensor<256x3072xbf16>) -> tensor<512x3072xf32>
  return %0 : tensor<512x3072xf32>
}

// -----

// Tests one output tile: nothing to reuse, both operands stream. f32 has no
// DMA transpose: the tensor engine transposes lhs.
func.func @single(%a: tensor<64x100xf32>, %b: tensor<100x200xf32>) -> tensor<64x200xf32> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 64x100x200: both operands streamed, reading 0.1 MiB from HBM (0.1 us at the core's HBM bandwidth), estimated 1.2 us; lhs transposed on the tensor engine}}
  %0 = neuron.matmul %a, %b : (tensor<64x100xf32>, tensor<100x200xf32>) -> tensor<64x200xf32>
  return %0 : tensor<64x200xf32>
}

// -----

// Tests a batched matmul with partial last tiles both ways: the partial
// last block runs in a loop over batches of its own (matmul-batched.mlir),
// so only the full and partial N tiles' sums are live together, and one of
// the 8 PSUM banks is kept for lhs's transposes: a block holds 3 M tiles.
// Streaming lhs past rhs would read fewer bytes but transpose every lhs
// tile once per N tile, its matmuls waiting for the copy out of PSUM of
// the first of each two loaded together: holding lhs (transposed once) is
// estimated faster; the larger block reads fewer bytes.
func.func @batched(%a: tensor<2x1000x256xf32>, %b: tensor<2x256x2600xf32>) -> tensor<2x1000x2600xf32> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 1000x256x2600: lhs resident in blocks of 3 M tiles, reading 17.2 MiB from HBM (24.9 us at the core's HBM bandwidth), estimated 167.4 us; lhs transposed on the tensor engine; runner-up: lhs resident in blocks of 2 M tiles, 22.3 MiB, 167.4 us}}
  %0 = neuron.batch_matmul %a, %b : (tensor<2x1000x256xf32>, tensor<2x256x2600xf32>) -> tensor<2x1000x2600xf32>
  return %0 : tensor<2x1000x2600xf32>
}

// -----

// Tests a kernel launched while its first input is in flight (an awaited
// all-reduce's result, neuron.input_arrivals_ns): the weights it receives,
// stored [N, K] as a linear layer's are and transposed on the tensor
// engine (f32), are held resident for the single M tile of the input it
// awaits, so their transposes and copies out of PSUM are issued before
// the matmuls that wait; 128 KiB, 0.2 us of HBM reads before the input's
// 6 us. Without the arrivals, when the weights take longer to read than
// the input takes to arrive, or when they need no transpose on the tensor
// engine, both stream.
func.func @awaiting(%x: tensor<40x256xf32>, %w: tensor<128x256xf32>) -> tensor<40x128xf32>
    attributes {neuron.input_arrivals_ns = array<f64: 6000.0, 0.0>} {
  %t = neuron.transpose %w permutation [1, 0] : tensor<128x256xf32> -> tensor<256x128xf32>
  // expected-remark@+1 {{convert-neuron-to-nisa: 40x256x128: rhs resident in blocks of 1 N tiles, reading 0.2 MiB from HBM (0.2 us at the core's HBM bandwidth), estimated 2.6 us; lhs and rhs transposed on the tensor engine; held while the kernel awaits its other operand; runner-up: both operands streamed, 0.2 MiB, 3.0 us}}
  %0 = neuron.matmul %x, %t : (tensor<40x256xf32>, tensor<256x128xf32>) -> tensor<40x128xf32>
  return %0 : tensor<40x128xf32>
}

// -----

func.func @launched_ready(%x: tensor<40x256xf32>, %w: tensor<128x256xf32>) -> tensor<40x128xf32> {
  %t = neuron.transpose %w permutation [1, 0] : tensor<128x256xf32> -> tensor<256x128xf32>
  // expected-remark@+1 {{convert-neuron-to-nisa: 40x256x128: both operands streamed}}
  %0 = neuron.matmul %x, %t : (tensor<40x256xf32>, tensor<256x128xf32>) -> tensor<40x128xf32>
  return %0 : tensor<40x128xf32>
}

// -----

func.func @awaiting_briefly(%x: tensor<40x256xf32>, %w: tensor<128x256xf32>) -> tensor<40x128xf32>
    attributes {neuron.input_arrivals_ns = array<f64: 100.0, 0.0>} {
  %t = neuron.transpose %w permutation [1, 0] : tensor<128x256xf32> -> tensor<256x128xf32>
  // expected-remark@+1 {{convert-neuron-to-nisa: 40x256x128: both operands streamed}}
  %0 = neuron.matmul %x, %t : (tensor<40x256xf32>, tensor<256x128xf32>) -> tensor<40x128xf32>
  return %0 : tensor<40x128xf32>
}

// -----

// bf16 weights load through trn2's DMA transpose: their transfers run
// ahead of the matmuls in any plan.
func.func @awaiting_dma_transposed(%x: tensor<40x256xbf16>, %w: tensor<128x256xbf16>) -> tensor<40x128xf32>
    attributes {neuron.input_arrivals_ns = array<f64: 6000.0, 0.0>} {
  %t = neuron.transpose %w permutation [1, 0] : tensor<128x256xbf16> -> tensor<256x128xbf16>
  // expected-remark@+1 {{convert-neuron-to-nisa: 40x256x128: both operands streamed}}
  %0 = neuron.matmul %x, %t : (tensor<40x256xbf16>, tensor<256x128xbf16>) -> tensor<40x128xf32>
  return %0 : tensor<40x128xf32>
}

// -----

// Tests an awaiting kernel whose matmul reads only what it computes:
// nothing is there earlier than the rest, so both stream.
func.func @awaiting_computed(%x: tensor<40x256xf32>, %w: tensor<128x256xf32>) -> tensor<40x128xf32>
    attributes {neuron.input_arrivals_ns = array<f64: 6000.0, 0.0>} {
  %r = neuron.relu %x : tensor<40x256xf32>
  %v = neuron.relu %w : tensor<128x256xf32>
  %t = neuron.transpose %v permutation [1, 0] : tensor<128x256xf32> -> tensor<256x128xf32>
  // expected-remark@+1 {{convert-neuron-to-nisa: 40x256x128: both operands streamed}}
  %0 = neuron.matmul %r, %t : (tensor<40x256xf32>, tensor<256x128xf32>) -> tensor<40x128xf32>
  return %0 : tensor<40x128xf32>
}

// -----

// Tests both operands in flight: neither is there earlier.
func.func @awaiting_both(%x: tensor<40x256xf32>, %w: tensor<128x256xf32>) -> tensor<40x128xf32>
    attributes {neuron.input_arrivals_ns = array<f64: 6000.0, 6000.0>} {
  %t = neuron.transpose %w permutation [1, 0] : tensor<128x256xf32> -> tensor<256x128xf32>
  // expected-remark@+1 {{convert-neuron-to-nisa: 40x256x128: both operands streamed}}
  %0 = neuron.matmul %x, %t : (tensor<40x256xf32>, tensor<256x128xf32>) -> tensor<40x128xf32>
  return %0 : tensor<40x128xf32>
}

// -----

// Tests plans over trn2's two physical cores. All 2 N tiles of rhs held,
// its 3 row tiles of lhs stream past, shared 2 and 1 by the cores; all 3 M
// tiles of lhs held, its 2 column transfers are shared 1 and 1. The two
// are estimated alike and read alike: the evenly shared one goes first.
func.func @even_share(%a: tensor<384x2048xbf16>, %b: tensor<2048x1024xbf16>) -> tensor<384x1024xf32> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 384x2048x1024: lhs resident in blocks of 3 M tiles, reading 5.5 MiB from HBM (8.0 us at the core's HBM bandwidth), estimated 21.7 us; runner-up: rhs resident in blocks of 2 N tiles, 5.5 MiB, 21.7 us}}
  %0 = neuron.matmul %a, %b : (tensor<384x2048xbf16>, tensor<2048x1024xbf16>) -> tensor<384x1024xf32>
  return %0 : tensor<384x1024xf32>
}

// -----

// Tests an evenly shared plan estimated up to 2% longer: all 2 M tiles of
// lhs held (3 column transfers, 2 and 1) is the shortest; all 3 N tiles
// of rhs held (2 row tiles, 1 and 1) reads as many bytes and goes first.
// Holding 1 M tile (2 blocks, 1 and 1) reads twice the rhs and does not.
func.func @even_share_longer(%a: tensor<256x1280xf32>, %b: tensor<1280x1536xf32>) -> tensor<256x1536xf32> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 256x1280x1536: rhs resident in blocks of 3 N tiles, reading 8.8 MiB from HBM (12.7 us at the core's HBM bandwidth), estimated 54.5 us; lhs transposed on the tensor engine; its work shared out more evenly over the 2 physical cores than plans estimated up to 2% shorter; runner-up: lhs resident in blocks of 2 M tiles, 8.8 MiB, 53.5 us}}
  %0 = neuron.matmul %a, %b : (tensor<256x1280xf32>, tensor<1280x1536xf32>) -> tensor<256x1536xf32>
  return %0 : tensor<256x1536xf32>
}

// -----

// Tests an evenly shared plan that reads more: all 2 M tiles of lhs held
// (3 column transfers, 2 and 1) stays first; rhs held in blocks of 2 N
// tiles, a block and a partial one, one per core, reads 1 MiB more
// through the HBM both cores share (it measured 35.2 -> 51.6 us where it
// went first).
func.func @even_share_more_bytes(%a: tensor<144x3752xbf16>, %b: tensor<3752x1515xbf16>) -> tensor<144x1515xf32> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 144x3752x1515: lhs resident in blocks of 2 M tiles, reading 11.9 MiB from HBM (17.2 us at the core's HBM bandwidth), estimated 40.6 us; runner-up: rhs resident in blocks of 2 N tiles, 12.9 MiB, 40.6 us}}
  %0 = neuron.matmul %a, %b : (tensor<144x3752xbf16>, tensor<3752x1515xbf16>) -> tensor<144x1515xf32>
  return %0 : tensor<144x1515xf32>
}
